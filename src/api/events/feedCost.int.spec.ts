import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import type { EventStore, NewEvent, RecordedEvent } from '../../platform/eventstore/port';
import { SqliteEventStore } from '../../platform/eventstore/sqlite';

const OTHERS_EVENTS = Number(process.env.OTHERS_EVENTS ?? 100_000);

/** The log, counting the events its reads answer and the calls asking for its head. */
function countedLog(dataDir: string) {
  const inner = new SqliteEventStore({ filename: path.join(dataDir, 'events.db') });
  const counts = { eventsRead: 0, headCalls: 0 };
  const events = new Proxy(inner, {
    get(target, property) {
      if (property === 'readAll' || property === 'readStream')
        return async (...args: unknown[]) => {
          const read = (await (target[property] as (...a: unknown[]) => Promise<RecordedEvent[]>).apply(target, args)) as RecordedEvent[];
          counts.eventsRead += read.length;
          return read;
        };
      if (property === 'headPosition')
        return () => {
          counts.headCalls += 1;
          return target.headPosition();
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as EventStore;
  return { events, counts };
}

describe('The event feed with a long history of other customers', () => {
  let server: TestServer;
  let counts: { eventsRead: number; headCalls: number };
  let admin: string;
  let agent: Member;
  let me: Member;
  let agentsCustomer: Member;
  let category: string;
  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'desk-feed-cost-'));
    const log = countedLog(dataDir);
    counts = log.counts;
    server = await startTestServer({ dataDir, events: log.events });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    me = await addMember(server, admin, 'customer', 'Cara');
    agentsCustomer = await addMember(server, admin, 'customer', 'Bea');
    category = await addCategory(server, admin);
  }, 60_000);
  afterAll(() => server.stop());

  /**
   * Appends `count` events of other customers straight through the event store, in batches: tickets
   * of 100 events each (opened, then replies), shaped as the desk's own.
   */
  async function othersHistory(count: number) {
    const other = await addMember(server, admin, 'customer', 'Dan');
    const sampleTicket = await openTicket(server, other, category);
    expect((await server.request('POST', `/api/tickets/${sampleTicket._id}/messages`, { token: agent.token, body: { content: 'A reply' } })).status).toBe(201);
    const sample = await server.deps.events.readStream(`ticket-${sampleTicket._id}`);
    const opened = sample.find((event) => event.type === 'TicketOpened')!;
    const reply = sample.find((event) => event.type === 'MessagePosted')!;
    for (let done = 0, number = 500_000; done < count; number++) {
      const ticketId = randomUUID();
      const customerId = randomUUID();
      const batch: NewEvent[] = [{ type: 'TicketOpened', data: { ...opened.data, ticketId, number, customerId }, metadata: opened.metadata }];
      for (done++; batch.length < 100 && done < count; done++)
        batch.push({ type: 'MessagePosted', data: { ...reply.data, ticketId, messageId: randomUUID(), content: `Reply ${done}` }, metadata: reply.metadata });
      await server.deps.events.append(`ticket-${ticketId}`, batch, 'no_stream');
    }
  }

  it('when 100,000 events of other customers precede one of mine, then my feed call answers mine and reads a handful of events, not the history', async () => {
    const started = Date.now();
    await othersHistory(OTHERS_EVENTS);
    const mine = await openTicket(server, me, category);
    expect(await server.deps.projections.waitFor(await server.deps.events.headPosition(), 300_000, ['feed'])).toBe(true);
    const appendedMs = Date.now() - started;

    counts.eventsRead = 0;
    const called = performance.now();
    const answer = await server.request('GET', '/api/events?after=0&wait=0&limit=100', { token: me.token });
    const callMs = performance.now() - called;
    const again = performance.now();
    expect((await server.request('GET', `/api/events?after=${answer.body.next}&wait=0`, { token: me.token })).body.events).toEqual([]);
    const againMs = performance.now() - again;
    process.stdout.write(
      `feed call after ${OTHERS_EVENTS} others' events (appended and projected in ${appendedMs} ms): ${callMs.toFixed(1)} ms, ${counts.eventsRead} events read; the next call ${againMs.toFixed(1)} ms\n`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.events.map((item: { type: string; subject: string }) => [item.type, item.subject])).toEqual([['desk.TicketOpened', mine._id]]);
    expect(answer.body.next).toBeGreaterThan(OTHERS_EVENTS);
    // My one event, and what the call's own checks read: nothing proportional to the others' history.
    expect(counts.eventsRead).toBeLessThanOrEqual(10);
  }, 600_000);

  it('when an event comes while a long poll waits, then the poll answers it within about 100 ms, and nobody asked the log for its head meanwhile', async () => {
    const ticket = await openTicket(server, agentsCustomer, category);
    const head = await server.deps.events.headPosition();
    const waiting = fetch(`${server.url}/api/events?after=${head}&wait=20`, { headers: { authorization: `Bearer ${agentsCustomer.token}` } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    counts.headCalls = 0;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const headCallsWhileWaiting = counts.headCalls;
    const postedAt = new Date().toISOString();
    const data = { ticketId: ticket._id, messageId: randomUUID(), senderId: agent.id, senderRole: 'agent', content: 'Any news?', messageType: 'text' };
    const reply = { ...data, isInternal: false, platform: 'web', attachments: [], postedAt };
    await server.deps.events.append(
      `ticket-${ticket._id}`,
      [{ type: 'MessagePosted', data: reply, metadata: { occurredAt: postedAt, schemaVersion: 1 } }],
      'any',
    );
    const posted = performance.now();
    const answer = await waiting;
    const afterAppendMs = performance.now() - posted;
    const body = (await answer.json()) as { events: Array<{ data: { content?: string } }> };
    process.stdout.write(`long poll answered ${afterAppendMs.toFixed(1)} ms after the append; ${headCallsWhileWaiting} head reads in 2 s of waiting\n`);
    expect(body.events.map((item) => item.data.content)).toContain('Any news?');
    expect(afterAppendMs).toBeLessThan(150);
    // The runner's stall watch may look once in a while; a poll that polled would have looked ten times.
    expect(headCallsWhileWaiting).toBeLessThanOrEqual(1);
  }, 60_000);
});
