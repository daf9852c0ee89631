import { EventStoreDbClientDouble } from '../../../test/support/eventStoreDbDouble';
import { eventually } from '../../../test/support/eventually';
import { EventStoreDbEventStore } from './eventstoredb';
import { countEventsAfter, pagesOfAll } from './paging';
import { type NewEvent, type RecordedEvent, WrongExpectedVersionError } from './port';
import { verifyLog, verifyStreamEvents } from './integrity';

/**
 * What only the EventStoreDB adapter does, against the client double (no server runs on this
 * machine; the contract suite runs the same adapter against a real one when EVENTSTORE_URL is set).
 */
const fact = (type: string, data: Record<string, unknown> = {}): NewEvent => ({
  type,
  data,
  metadata: { occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
});

describe('The EventStoreDB adapter', () => {
  let client: EventStoreDbClientDouble;
  let store: EventStoreDbEventStore;
  beforeEach(() => {
    client = new EventStoreDbClientDouble();
    store = new EventStoreDbEventStore(client.asClient());
  });
  afterEach(() => store.close());

  describe('when an append is larger than the server takes (1 MiB by default)', () => {
    it('then the double refuses it as the server does, and one just under the limit is stored', async () => {
      await expect(store.append('ticket-big', [fact('Big', { text: 'x'.repeat(1024 * 1024) })], 'no_stream')).rejects.toThrow();
      await expect(store.readStream('ticket-big')).resolves.toEqual([]);
      await store.append('ticket-big', [fact('Fits', { text: 'x'.repeat(1000 * 1024) })], 'no_stream');
      expect((await store.readStream('ticket-big')).map((event) => event.type)).toEqual(['Fits']);
    });

    it('then the limit is the whole append: two events that each fit but not together are refused, and neither is stored', async () => {
      const half = 'x'.repeat(600 * 1024);
      await expect(store.append('ticket-big', [fact('A', { text: half }), fact('B', { text: half })], 'no_stream')).rejects.toThrow();
      await expect(store.readStream('ticket-big')).resolves.toEqual([]);
      await store.append('ticket-big', [fact('A', { text: half })], 'no_stream');
      await store.append('ticket-big', [fact('B', { text: half })], 0);
      expect((await store.readStream('ticket-big')).map((event) => event.type)).toEqual(['A', 'B']);
    });

    it('then a server configured with MaxAppendEventSize refuses an append holding one event over it', async () => {
      const limited = new EventStoreDbEventStore(new EventStoreDbClientDouble({ maxAppendEventSize: 64 * 1024 }).asClient());
      await expect(limited.append('ticket-big', [fact('Small'), fact('Big', { text: 'x'.repeat(65 * 1024) })], 'no_stream')).rejects.toThrow(
        /exceeds Maximum Append Event Size of 65536/,
      );
      await expect(limited.readStream('ticket-big')).resolves.toEqual([]);
      await limited.close();
    });
  });

  describe('when appends of every expectation race on one stream', () => {
    it('then each reaches the server pinned to a revision it read (never any or stream_exists), and the chain is whole', async () => {
      const results = await Promise.allSettled([
        store.append('ticket-1', [fact('A')], 'any'),
        store.append('ticket-1', [fact('B')], 0),
        store.append('ticket-1', [fact('C')], 'stream_exists'),
        store.append('ticket-1', [fact('D')], 'no_stream'),
        store.append('ticket-1', [fact('E')], 'any'),
        store.append('ticket-1', [fact('F')], 1),
      ]);
      const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
      expect(failures.filter((reason) => !(reason instanceof WrongExpectedVersionError))).toEqual([]);
      expect(client.expectedRevisions.length).toBeGreaterThan(0);
      expect(client.expectedRevisions.filter((expected) => expected !== 'no_stream' && typeof expected !== 'bigint')).toEqual([]);
      const stored = await store.readStream('ticket-1');
      expect(stored.map((e) => e.type)).toEqual(expect.arrayContaining(['A', 'E']));
      expect(verifyStreamEvents(stored).ok).toBe(true);
    });

    it('then one expecting a revision the stream has not reached is the conflict at once, without an append', async () => {
      await expect(store.append('ticket-1', [fact('B')], 0)).rejects.toMatchObject({ streamId: 'ticket-1', expected: 0, actual: 'no_stream' });
      await store.append('ticket-1', [fact('A')], 'no_stream');
      await expect(store.append('ticket-1', [fact('C')], 3)).rejects.toMatchObject({ streamId: 'ticket-1', expected: 3, actual: 0 });
      expect(client.expectedRevisions).toEqual(['no_stream']);
    });
  });

  describe("when $all holds more of the server's records than a page between two desk events", () => {
    beforeEach(async () => {
      await store.append('ticket-1', [fact('A')], 'no_stream');
      for (let i = 0; i < 700; i++)
        client.addServerRecord(
          i % 2 === 0 ? { streamId: '$stats-127.0.0.1:2113', type: '$statsCollected' } : { streamId: 'ticket-1-files', type: 'Blob', isJson: false },
        );
      await store.append('ticket-1', [fact('B')], 0);
      for (let i = 0; i < 600; i++) client.addServerRecord({ streamId: '$$ticket-1', type: '$metadata' });
    });

    it('then a page of two still holds both events, and the page after them is empty', async () => {
      const page = await store.readAll({ maxCount: 2 });
      expect(page.map((e) => e.type)).toEqual(['A', 'B']);
      expect(await store.readAll({ after: page[1]!.position })).toEqual([]);
    });

    it('then paging one event at a time reaches the second event and ends', async () => {
      const seen: RecordedEvent[] = [];
      for await (const page of pagesOfAll(store, { pageSize: 1 })) seen.push(...page);
      expect(seen.map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('then the head is the second event and the lag behind the first is one event, not its bytes', async () => {
      const [first, second] = await store.readAll();
      expect(await store.headPosition()).toBe(second!.position);
      expect(second!.position - first!.position).toBeGreaterThan(1000);
      expect(await countEventsAfter(store, first!.position, 10_000)).toEqual({ count: 1, exact: true });
    });

    it('then a full page and the head leave no read open on the server', async () => {
      await store.readAll({ maxCount: 1 });
      await store.readAll({ maxCount: 2 });
      await store.headPosition();
      await store.append('ticket-2', [fact('C')], 'no_stream');
      await store.headPosition();
      expect(client.openReads).toBe(0);
    });
  });

  describe('when $all is read from a position inside a record (the server answers InvalidPosition)', () => {
    it('then the client double refuses it, as the server does, and accepts the exact position of a record', async () => {
      await store.append('ticket-1', [fact('A')], 'no_stream');
      await store.append('ticket-1', [fact('B')], 0);
      const [, second] = await store.readAll();
      const at = BigInt(second!.position);
      const drain = async (read: AsyncIterable<unknown>) => {
        for await (const _ of read);
      };
      await expect(drain(client.readAll({ direction: 'forwards', fromPosition: { commit: at - 1n, prepare: at - 1n }, maxCount: 1 }))).rejects.toThrow(
        'Trying to read from an invalid position.',
      );
      await expect(drain(client.readAll({ direction: 'forwards', fromPosition: { commit: at, prepare: at }, maxCount: 1 }))).resolves.toBeUndefined();
      const errors: unknown[] = [];
      store.subscribeToAll({ after: second!.position - 1, onEvent: () => undefined, onError: (error) => errors.push(error) });
      await eventually(() => errors.length === 1);
      expect(errors).toEqual([expect.objectContaining({ message: 'Trying to read from an invalid position.' })]);
    });
  });

  describe('when the log is verified keeping the last link of one stream only (bounded memory)', () => {
    beforeEach(async () => {
      for (let round = 0; round < 3; round++)
        for (const id of ['ticket-1', 'delivery-1', 'delivery-2']) await store.append(id, [fact(`${id}:${round}`)], 'any');
    });

    it('then every stream chain is checked, predecessors read back from their streams', async () => {
      expect(await verifyLog(store, { streamsKept: 1 })).toMatchObject({ ok: true, events: 9, streams: 3, logChain: false, firstBreak: null });
    });

    it('then an event removed from the middle of a stream is the break, though its stream was no longer kept', async () => {
      const records = client['records'];
      records.splice(
        records.findIndex((record) => record.streamId === 'delivery-1' && record.revision === 1n),
        1,
      );
      expect((await verifyLog(store, { streamsKept: 1 })).firstBreak).toMatchObject({
        chain: 'stream',
        streamId: 'delivery-1',
        revision: 2,
        reason: expect.stringContaining('revision 1 of delivery-1 is missing'),
      });
    });
  });

  describe('when subscribed to $all', () => {
    /** The adapter's own set of live subscriptions, which close() stops. */
    const live = () => store['subscriptions'].size;

    it('when a subscription fails or the server ends it, then it leaves the set close() stops', async () => {
      const errors: unknown[] = [];
      await store.append('ticket-1', [fact('A')], 'no_stream');
      store.subscribeToAll({
        onEvent: () => {
          throw new Error('handler broke');
        },
        onError: (error) => errors.push(error),
      });
      store.subscribeToAll({ onEvent: () => undefined, onError: (error) => errors.push(error) });
      expect(live()).toBe(2);
      await eventually(() => errors.length === 1);
      await eventually(() => live() === 1);
      client.closeSubscriptionsFromServer();
      await eventually(() => errors.length === 2);
      await eventually(() => live() === 0);
      const stopped = store.subscribeToAll({ onEvent: () => undefined });
      expect(live()).toBe(1);
      await stopped.stop();
      expect(live()).toBe(0);
    });

    it('when a handler throws, then the subscription is ended on the server before the failure is reported', async () => {
      await store.append('ticket-1', [fact('A')], 'no_stream');
      for (let round = 1; round <= 3; round++) {
        const errors: unknown[] = [];
        store.subscribeToAll({
          onEvent: () => {
            throw new Error('handler broke');
          },
          onError: (error) => errors.push(error),
        });
        await eventually(() => errors.length === 1);
        expect(client.openSubscriptions).toBe(0);
      }
    });

    it('when the server ends the stream without an error, then it is reported once and ended', async () => {
      const errors: Error[] = [];
      const seen: string[] = [];
      const subscription = store.subscribeToAll({ onEvent: (e) => void seen.push(e.type), onError: (error) => errors.push(error as Error) });
      await store.append('ticket-1', [fact('A')], 'no_stream');
      await eventually(() => seen.length === 1);
      expect(seen).toEqual(['A']);
      client.closeSubscriptionsFromServer();
      await eventually(() => errors.length > 0);
      expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('ended without an error')]);
      expect(client.openSubscriptions).toBe(0);
      await subscription.stop();
      expect(errors).toHaveLength(1);
    });

    it('when stopped, then the subscription is ended on the server and nothing is reported', async () => {
      const errors: unknown[] = [];
      const subscription = store.subscribeToAll({ onEvent: () => undefined, onError: (error) => errors.push(error) });
      expect(client.openSubscriptions).toBe(1);
      await subscription.stop();
      expect(client.openSubscriptions).toBe(0);
      expect(errors).toEqual([]);
    });
  });
});
