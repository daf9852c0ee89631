import { randomUUID } from 'node:crypto';
import { loadConfig } from '../config';
import { EventStoreDbEventStore } from './eventstoredb';
import { GENESIS, streamLink, verifyStreamEvents } from './integrity';
import { DuplicateEventIdError, type EventStore, type NewEvent, type RecordedEvent, WrongExpectedVersionError } from './port';
import { SqliteEventStore } from './sqlite';
import { pagesOfAll } from './paging';
import { EventStoreDbClientDouble } from '../../../test/support/eventStoreDbDouble';

const adapters: Array<[string, () => EventStore]> = [
  ['sqlite', () => new SqliteEventStore({ filename: ':memory:' })],
  ['sqlite, group commit off', () => new SqliteEventStore({ filename: ':memory:', groupCommit: false })],
  // No server runs on the development machine: the adapter's own logic against a stand-in client.
  ['eventstoredb adapter, client double', () => new EventStoreDbEventStore(new EventStoreDbClientDouble().asClient())],
];
if (process.env.EVENTSTORE_URL) {
  // Through the configuration parser, as the app does: a kurrentdb:// string becomes the esdb form.
  const url = loadConfig({ EVENTSTORE_URL: process.env.EVENTSTORE_URL }).EVENTSTORE_URL!;
  adapters.push(['eventstoredb', () => new EventStoreDbEventStore(url)]);
}

const AT = '2026-01-01T00:00:00.000Z';
const event = (type: string, data: Record<string, unknown> = {}, id?: string): NewEvent => ({
  ...(id ? { id } : {}),
  type,
  data,
  metadata: { occurredAt: AT, schemaVersion: 1, actor: { userId: 'u1', role: 'admin', platform: 'web' } },
});

const until = async (condition: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.each(adapters)('EventStore contract (%s)', (_name, create) => {
  let store: EventStore;
  let stream: string;
  beforeEach(() => {
    store = create();
    stream = `test-${randomUUID()}`;
  });
  afterEach(() => store.close());

  describe('when appending with an expected revision', () => {
    it('creates a stream with no_stream and refuses a second no_stream', async () => {
      const first = await store.append(stream, [event('A')], 'no_stream');
      expect(first.nextRevision).toBe(0);
      await expect(store.append(stream, [event('B')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedVersionError);
    });

    it('refuses stream_exists on a missing stream and accepts it on an existing one', async () => {
      await expect(store.append(stream, [event('A')], 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await store.append(stream, [event('A')], 'any');
      await expect(store.append(stream, [event('B')], 'stream_exists')).resolves.toMatchObject({ nextRevision: 1 });
    });

    it('accepts the exact current revision and refuses any other', async () => {
      await store.append(stream, [event('A'), event('B')], 'no_stream');
      await expect(store.append(stream, [event('C')], 0)).rejects.toMatchObject({ streamId: stream, actual: 1 });
      await expect(store.append(stream, [event('C')], 1)).resolves.toMatchObject({ nextRevision: 2 });
    });

    it('lets exactly one of two concurrent appends with the same expected revision win', async () => {
      await store.append(stream, [event('A')], 'no_stream');
      const results = await Promise.allSettled([store.append(stream, [event('B1')], 0), store.append(stream, [event('B2')], 0)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.filter((r) => r.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('lets exactly one of twenty concurrent no_stream appends win', async () => {
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => store.append(stream, [event('Reserved', { i })], 'no_stream')));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await store.readStream(stream)).toHaveLength(1);
    });
  });

  describe('when the same event id is appended twice', () => {
    it('stores it once and answers the retry with the first result', async () => {
      const id = randomUUID();
      const first = await store.append(stream, [event('A', { n: 1 }, id)], 'no_stream');
      const retry = await store.append(stream, [event('A', { n: 1 }, id)], 'no_stream');
      expect(retry).toEqual(first);
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('when a batch appended with any is retried after another append, then nothing is stored twice and the retry gets the first result', async () => {
      const ids = [randomUUID(), randomUUID()];
      const first = await store.append(
        stream,
        ids.map((id, n) => event('A', { n }, id)),
        'any',
      );
      await store.append(stream, [event('Other')], 'any');
      const retry = await store.append(
        stream,
        ids.map((id, n) => event('A', { n }, id)),
        'any',
      );
      expect(retry).toEqual(first);
      const stored = await store.readStream(stream);
      expect(stored.map((e) => e.type)).toEqual(['A', 'A', 'Other']);
      expect(verifyStreamEvents(stored).ok).toBe(true);
      expect(await store.append(stream, [event('A', { n: 0 }, ids[0])], 'stream_exists')).toEqual({ nextRevision: 0, position: stored[0]!.position });
    });

    it('treats a retried batch as one append', async () => {
      const ids = [randomUUID(), randomUUID()];
      const first = await store.append(
        stream,
        ids.map((id) => event('A', {}, id)),
        'no_stream',
      );
      const retry = await store.append(
        stream,
        ids.map((id) => event('A', {}, id)),
        'no_stream',
      );
      expect(retry).toEqual(first);
      expect((await store.readStream(stream)).map((e) => e.id)).toEqual(ids);
    });
  });

  describe('when an event id is reused in another stream', () => {
    // The port promises idempotency per stream only (EventStoreDB checks ids in the stream appended
    // to; SQLite also refuses an id stored anywhere in the log). The app never reuses an id.
    it('then the first stream and its retry are untouched, SQLite refuses the reuse and EventStoreDB stores it as an event of that stream', async () => {
      const id = randomUUID();
      const first = await store.append(stream, [event('A', { n: 1 }, id)], 'no_stream');
      const other = `${stream}-other`;
      const outcome = await store.append(other, [event('A', { n: 1 }, id)], 'no_stream').then(
        () => 'stored',
        (error: unknown) => (error instanceof DuplicateEventIdError ? 'refused' : error),
      );
      expect(outcome).toBe(store.kind === 'sqlite' ? 'refused' : 'stored');
      const reused = await store.readStream(other);
      expect(reused.map((e) => [e.id, e.revision])).toEqual(store.kind === 'sqlite' ? [] : [[id, 0]]);
      expect(verifyStreamEvents(reused).ok).toBe(true);
      expect(await store.append(stream, [event('A', { n: 1 }, id)], 'no_stream')).toEqual(first);
      const stored = await store.readStream(stream);
      expect(stored.map((e) => [e.id, e.position])).toEqual([[id, first.position]]);
      expect(verifyStreamEvents(stored).ok).toBe(true);
    });
  });

  describe('when reading a stream', () => {
    beforeEach(async () => {
      await store.append(
        stream,
        ['A', 'B', 'C', 'D'].map((type) => event(type)),
        'no_stream',
      );
    });

    it('reads forwards with revisions, data and metadata', async () => {
      const events = await store.readStream(stream);
      expect(events.map((e) => [e.type, e.revision])).toEqual([
        ['A', 0],
        ['B', 1],
        ['C', 2],
        ['D', 3],
      ]);
      expect(events[0]).toMatchObject({
        streamId: stream,
        data: {},
        metadata: { occurredAt: AT, schemaVersion: 1, actor: { userId: 'u1', role: 'admin', platform: 'web' } },
      });
    });

    it('reads forwards from a revision with a maximum count', async () => {
      const events = await store.readStream(stream, { fromRevision: 1, maxCount: 2 });
      expect(events.map((e) => e.type)).toEqual(['B', 'C']);
    });

    it('reads backwards from the end or from a revision', async () => {
      expect((await store.readStream(stream, { direction: 'backwards', maxCount: 2 })).map((e) => e.type)).toEqual(['D', 'C']);
      expect((await store.readStream(stream, { direction: 'backwards', fromRevision: 1 })).map((e) => e.type)).toEqual(['B', 'A']);
    });

    it('answers a missing stream with no events', async () => {
      expect(await store.readStream(`missing-${randomUUID()}`)).toEqual([]);
    });
  });

  describe('when reading the global log', () => {
    it('returns events of all streams in increasing position after a checkpoint', async () => {
      const other = `${stream}-other`;
      const start = await store.headPosition();
      await store.append(stream, [event('A')]);
      const middle = await store.append(other, [event('B')]);
      await store.append(stream, [event('C')]);
      const ours = (all: RecordedEvent[]) => all.filter((e) => e.streamId === stream || e.streamId === other);
      const all = ours(await store.readAll({ after: start, maxCount: 1000 }));
      expect(all.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      expect(all.map((e) => e.position)).toEqual([...all.map((e) => e.position)].sort((a, b) => a - b));
      const rest = ours(await store.readAll({ after: middle.position, maxCount: 1000 }));
      expect(rest.map((e) => e.type)).toEqual(['C']);
      expect(await store.headPosition()).toBe(all[2]?.position);
    });

    it('reads from the exact position of an event, that event included (how the event feed finds the event at a position)', async () => {
      await store.append(stream, [event('A')]);
      await store.append(`$contract-${randomUUID()}`, [event('H')]);
      await store.append(stream, [event('B'), event('C')]);
      const [a, b, c] = await store.readStream(stream);
      expect((await store.readAll({ from: b!.position, maxCount: 1 })).map((e) => e.id)).toEqual([b!.id]);
      expect((await store.readAll({ from: a!.position, maxCount: 1000 })).filter((e) => e.streamId === stream).map((e) => e.id)).toEqual([a!.id, b!.id, c!.id]);
      expect((await store.readAll({ from: c!.position, maxCount: 1000 })).filter((e) => e.streamId === stream).map((e) => e.id)).toEqual([c!.id]);
    });
  });

  describe("when the store's own records ($-streams) sit between the desk's events", () => {
    const system = () => `$contract-${randomUUID()}`;
    let start: number;
    let ours: RecordedEvent[];
    beforeEach(async () => {
      start = await store.headPosition();
      // Visible, hidden, hidden, visible, hidden, visible, hidden: every page boundary lands on hidden records.
      await store.append(stream, [event('V1')]);
      await store.append(system(), [event('H'), event('H')]);
      await store.append(stream, [event('V2')]);
      await store.append(system(), [event('H')]);
      await store.append(stream, [event('V3')]);
      await store.append(system(), [event('H'), event('H'), event('H')]);
      ours = await store.readStream(stream);
    });

    it('then readAll hides them and still fills a page', async () => {
      const page = (await store.readAll({ after: start, maxCount: 2 })).filter((e) => e.streamId === stream || e.streamId.startsWith('$'));
      expect(page.map((e) => e.type)).toEqual(['V1', 'V2']);
      const rest = await store.readAll({ after: page[1]!.position, maxCount: 2 });
      expect(rest.filter((e) => e.streamId === stream || e.streamId.startsWith('$')).map((e) => e.type)).toEqual(['V3']);
    });

    it('then paging by one event walks every desk event to the end and no record of the store', async () => {
      const seen: RecordedEvent[] = [];
      for await (const page of pagesOfAll(store, { after: start, pageSize: 1 })) seen.push(...page);
      expect(seen.filter((e) => e.streamId.startsWith('$'))).toEqual([]);
      expect(seen.filter((e) => e.streamId === stream).map((e) => e.type)).toEqual(['V1', 'V2', 'V3']);
    });

    it('then the head is the last desk event, not a record of the store after it', async () => {
      expect(await store.headPosition()).toBe(ours[2]!.position);
    });

    it('then a subscription delivers only the desk events', async () => {
      const seen: string[] = [];
      const subscription = store.subscribeToAll({ after: start, onEvent: (e) => void seen.push(`${e.streamId.startsWith('$') ? '$' : ''}${e.type}`) });
      await store.append(stream, [event('V4')]);
      await until(() => seen.includes('V4'));
      await subscription.stop();
      expect(seen).toEqual(['V1', 'V2', 'V3', 'V4']);
    });
  });

  describe('when subscribed to the global log', () => {
    it('catches up, then delivers live appends in order', async () => {
      const start = await store.headPosition();
      await store.append(stream, [event('A'), event('B')]);
      const seen: string[] = [];
      const subscription = store.subscribeToAll({
        after: start,
        onEvent: (e) => {
          if (e.streamId === stream) seen.push(e.type);
        },
      });
      await until(() => seen.length === 2);
      await store.append(stream, [event('C')]);
      await until(() => seen.length === 3);
      await subscription.stop();
      expect(seen).toEqual(['A', 'B', 'C']);
    });

    it('neither skips nor repeats an event when stopped and resumed from its checkpoint', async () => {
      const start = await store.headPosition();
      for (let i = 0; i < 50; i++) await store.append(stream, [event('N', { i })]);
      const seen: number[] = [];
      let checkpoint = start;
      const consume = (stopAt: number) =>
        new Promise<void>((resolve) => {
          const subscription = store.subscribeToAll({
            after: checkpoint,
            onEvent: async (e) => {
              if (seen.length >= stopAt) return;
              if (e.streamId === stream) seen.push(e.data.i as number);
              checkpoint = e.position;
              if (seen.length === stopAt) void subscription.stop().then(resolve);
            },
          });
        });
      await consume(20);
      await consume(50);
      expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it('waits for a slow handler before delivering the next event', async () => {
      const start = await store.headPosition();
      await store.append(stream, [event('A'), event('B')]);
      const log: string[] = [];
      const subscription = store.subscribeToAll({
        after: start,
        onEvent: async (e) => {
          if (e.streamId !== stream) return;
          log.push(`start ${e.type}`);
          await new Promise((resolve) => setTimeout(resolve, 30));
          log.push(`end ${e.type}`);
        },
      });
      await until(() => log.length === 4);
      await subscription.stop();
      expect(log).toEqual(['start A', 'end A', 'start B', 'end B']);
    });

    it('reports a handler failure once and stops', async () => {
      const start = await store.headPosition();
      await store.append(stream, [event('A'), event('B')]);
      const errors: unknown[] = [];
      let calls = 0;
      const subscription = store.subscribeToAll({
        after: start,
        onEvent: (e) => {
          if (e.streamId !== stream) return;
          calls++;
          throw new Error('handler broke');
        },
        onError: (error) => errors.push(error),
      });
      await until(() => errors.length === 1);
      await subscription.stop();
      expect(calls).toBe(1);
    });
  });

  describe('when many commands append at once', () => {
    it('gives each append to its own stream its own result, positions increasing in call order', async () => {
      const streams = Array.from({ length: 50 }, (_, i) => `${stream}-${i}`);
      const results = await Promise.all(streams.map((id, i) => store.append(id, [event('Opened', { i })], 'no_stream')));
      expect(results.every((result) => result.nextRevision === 0)).toBe(true);
      const positions = results.map((result) => result.position);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(new Set(positions).size).toBe(50);
      for (const [i, id] of streams.entries()) {
        const [stored] = await store.readStream(id);
        expect(stored).toMatchObject({ data: { i }, position: positions[i] });
      }
    });

    it('fails only the appends whose expected revision lost, and the others commit', async () => {
      await store.append(stream, [event('A')], 'no_stream');
      const other = `${stream}-other`;
      const results = await Promise.allSettled([
        store.append(stream, [event('B1')], 0),
        store.append(other, [event('X')], 'no_stream'),
        store.append(stream, [event('B2')], 0),
        store.append(stream, [event('C')], 5),
      ]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ streamId: stream, expected: 0, actual: 1 });
      expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['A', 'B1']);
      expect((await store.readStream(other)).map((e) => e.type)).toEqual(['X']);
      expect(verifyStreamEvents(await store.readStream(stream)).ok).toBe(true);
    });

    it('delivers every event of concurrent appends once, in position order, to a live subscription', async () => {
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ after: await store.headPosition(), onEvent: (recorded) => void seen.push(recorded) });
      const mine = Array.from({ length: 20 }, (_, i) => `${stream}-${i}`);
      await Promise.all(mine.flatMap((id) => [store.append(id, [event('A'), event('B')], 'no_stream'), store.append(id, [event('C')], 'any')]));
      await until(() => seen.filter((e) => e.streamId.startsWith(stream)).length >= 60);
      await subscription.stop();
      const ours = seen.filter((e) => e.streamId.startsWith(stream));
      expect(ours).toHaveLength(60);
      expect(new Set(ours.map((e) => e.id)).size).toBe(60);
      expect(ours.map((e) => e.position)).toEqual([...ours.map((e) => e.position)].sort((a, b) => a - b));
      for (const id of mine) expect(ours.filter((e) => e.streamId === id).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    });
  });

  describe('when events are stored, each carries its stream-chain link', () => {
    it('chains every event to the previous one of its stream, across appends', async () => {
      await store.append(stream, [event('A', { n: 1 }), event('B', { n: 2 })], 'no_stream');
      await store.append(stream, [event('C', { nested: { z: 1, a: [1, 2] } })], 1);
      const stored = await store.readStream(stream);
      expect(stored.map((e) => e.metadata)).toEqual(stored.map(() => event('X').metadata));
      let previous = GENESIS;
      for (const recorded of stored) {
        expect(recorded.chain?.hash).toBe(streamLink(previous, recorded));
        previous = recorded.chain!.hash;
      }
      expect(verifyStreamEvents(stored)).toMatchObject({ ok: true, events: 3, head: previous, firstBreak: null });
    });

    it('keeps the chain whole when appends with any race on one stream', async () => {
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.append(stream, [event(`E${i}`)], 'any')));
      const stored = await store.readStream(stream);
      expect(stored).toHaveLength(10);
      expect(verifyStreamEvents(stored).ok).toBe(true);
    });

    it('lets exactly one of concurrent appends with the same expected revision win, the others getting the conflict, and keeps the chain whole', async () => {
      await store.append(stream, [event('A')], 'no_stream');
      const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => store.append(stream, [event(`B${i}`)], 0)));
      const won = results.flatMap((result, i) => (result.status === 'fulfilled' ? [{ i, result: result.value }] : []));
      expect(won).toHaveLength(1);
      const reasons = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
      expect(reasons).toHaveLength(4);
      for (const reason of reasons) {
        expect(reason).toBeInstanceOf(WrongExpectedVersionError);
        expect(reason).toMatchObject({ streamId: stream, expected: 0, actual: 1 });
      }
      const stored = await store.readStream(stream);
      expect(stored.map((e) => e.type)).toEqual(['A', `B${won[0]!.i}`]);
      expect(won[0]!.result).toEqual({ nextRevision: 1, position: stored[1]!.position });
      expect(verifyStreamEvents(stored)).toMatchObject({ ok: true, events: 2 });
    });

    it('lets concurrent appends with any onto an existing stream all succeed, each answered with its own event, and keeps the chain whole', async () => {
      await store.append(stream, [event('A')], 'no_stream');
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => store.append(stream, [event(`B${i}`)], 'any')));
      const stored = await store.readStream(stream);
      expect(stored).toHaveLength(6);
      expect(results.map((result) => result.nextRevision).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
      for (const [i, result] of results.entries()) {
        expect(stored[result.nextRevision]).toMatchObject({ type: `B${i}`, position: result.position });
      }
      expect(verifyStreamEvents(stored)).toMatchObject({ ok: true, events: 6 });
    });

    it('when an append expecting revision 0 races the append with any that creates revision 0, then it follows that event or gets the conflict, never a broken chain', async () => {
      // Both orders, on many streams: the one expecting 0 may read the stream before or after the first event lands.
      const streams = Array.from({ length: 20 }, (_, i) => `${stream}-${i}`);
      const outcome = (settled: PromiseSettledResult<unknown>) =>
        settled.status === 'fulfilled' ? 'stored' : settled.reason instanceof WrongExpectedVersionError ? 'conflict' : settled.reason;
      const outcomes = await Promise.all(
        streams.map(async (id, i) => {
          const creating = () => store.append(id, [event('A')], 'any');
          const following = () => store.append(id, [event('B')], 0);
          const [created, followed] =
            i % 2 === 0 ? await Promise.allSettled([creating(), following()]) : (await Promise.allSettled([following(), creating()])).reverse();
          return { id, created: outcome(created!), followed: outcome(followed!) };
        }),
      );
      for (const { id, created, followed } of outcomes) {
        const stored = await store.readStream(id);
        expect([
          ['stored', 'stored', ['A', 'B']],
          ['stored', 'conflict', ['A']],
        ]).toContainEqual([created, followed, stored.map((e) => e.type)]);
        expect(verifyStreamEvents(stored).ok).toBe(true);
      }
    });

    it('gives a retried append the same links', async () => {
      const id = randomUUID();
      await store.append(stream, [event('A')], 'no_stream');
      await store.append(stream, [event('B', {}, id)], 0);
      await store.append(stream, [event('B', {}, id)], 0);
      const stored = await store.readStream(stream);
      expect(stored).toHaveLength(2);
      expect(verifyStreamEvents(stored).ok).toBe(true);
    });

    it('names the event whose content no longer matches its link', async () => {
      await store.append(stream, [event('A'), event('B', { amount: 10 }), event('C')], 'no_stream');
      const stored = await store.readStream(stream);
      const altered = stored.map((e) => (e.revision === 1 ? { ...e, data: { amount: 1000 } } : e));
      expect(verifyStreamEvents(altered).firstBreak).toMatchObject({ chain: 'stream', streamId: stream, revision: 1, type: 'B' });
      const missing = stored.filter((e) => e.revision !== 1);
      expect(verifyStreamEvents(missing).firstBreak).toMatchObject({ streamId: stream, revision: 2, reason: expect.stringContaining('revision 1') });
    });
  });
});
