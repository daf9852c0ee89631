/**
 * A process with a BullMQ queue and its worker, for src/platform/queue/queue.contract.spec.ts: on
 * REDIS_URL it runs one job and says `ready`; told `close` on stdin, it closes the queue, says
 * `closed` and leaves the process to end by itself, which it does only if nothing is left open.
 */
import { BullMqQueue } from '../../src/platform/queue/bullmq';

const queue = new BullMqQueue({ url: process.env.REDIS_URL!, prefix: `closer-${process.pid}`, timeoutMs: 500 });
queue.process('notifications', async () => void process.stdout.write('ready\n'));
void queue.add('notifications', 'send', {}, { jobId: 'closer-1' });
process.stdin.once('data', () => {
  process.stdin.destroy();
  void queue.close().then(() => process.stdout.write('closed\n'));
});
