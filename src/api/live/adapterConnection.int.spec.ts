import { once } from 'node:events';
import { createServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import pino from 'pino';
import { Server } from 'socket.io';
import { AdapterConnection } from './adapterConnection';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('The socket.io adapter’s Redis connections', () => {
  it('when the live channel closes while its connections are still being made, then the adapter’s queued (un)subscribes are dropped and logged, never an unhandled rejection', async () => {
    const lines: Array<{ msg: string; command: string }> = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const pub = new AdapterConnection(REDIS_URL, logger);
    const sub = new AdapterConnection(REDIS_URL, logger);
    const io = new Server(createServer());
    io.adapter(createAdapter(pub, sub, { key: `test-adapter-${process.pid}` }));
    // Connected, not yet ready: the adapter's subscribes wait in the offline queue, as after a reconnect.
    await once(sub, 'connect');
    await io.close();
    pub.disconnect();
    sub.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A plain ioredis connection leaves each of these rejections unhandled, which fails this test (and ends a process).
    expect(lines.filter((line) => line.msg.includes('dropped with its connection')).map((line) => line.command)).toEqual(
      expect.arrayContaining(['psubscribe', 'subscribe', 'punsubscribe', 'unsubscribe']),
    );
  });

  it('when Redis answers, then commands go through as usual: a publish reaches a subscriber', async () => {
    const logger = pino({ level: 'silent' });
    const pub = new AdapterConnection(REDIS_URL, logger);
    const sub = new AdapterConnection(REDIS_URL, logger);
    try {
      const channel = `test-adapter-${process.pid}-plain`;
      await sub.subscribe(channel);
      const received = once(sub, 'message');
      expect(await pub.publish(channel, 'hello')).toBe(1);
      expect(await received).toEqual([channel, 'hello']);
    } finally {
      pub.disconnect();
      sub.disconnect();
    }
  });
});
