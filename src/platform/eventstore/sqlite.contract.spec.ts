import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { logLink, streamLink, verifyLog, verifyStreamEvents } from './integrity';
import { DuplicateEventIdError, type ReadStreamOptions, WrongExpectedVersionError } from './port';
import { SqliteEventStore } from './sqlite';

const META = { occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };

describe('SqliteEventStore shared by two processes (one file, two connections)', () => {
  let dir: string;
  let writer: SqliteEventStore;
  let reader: SqliteEventStore;
  const fact = (type: string) => ({ type, data: { type }, metadata: META });
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'es-shared-'));
    writer = new SqliteEventStore({ filename: path.join(dir, 'events.db') });
    reader = new SqliteEventStore({ filename: path.join(dir, 'events.db'), pollIntervalMs: 10 });
  });
  afterEach(async () => {
    await writer.close();
    await reader.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the other connection appends, then a live subscription here sees it', async () => {
    const seen: string[] = [];
    const subscription = reader.subscribeToAll({ onEvent: (event) => void seen.push(event.type) });
    await writer.append('ticket-1', [{ type: 'TicketOpened', data: {}, metadata: META }], 'no_stream');
    const deadline = Date.now() + 3000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.stop();
    expect(seen).toEqual(['TicketOpened']);
  });

  it('when the other connection appends after this one read a stream to its end, then reading on from there finds it', async () => {
    await writer.append('ticket-1', [{ type: 'TicketOpened', data: {}, metadata: META }], 'no_stream');
    expect(await reader.readStream('ticket-1')).toHaveLength(1);
    expect(await reader.readStream('ticket-1', { fromRevision: 1 })).toEqual([]);
    await writer.append('ticket-1', [{ type: 'A', data: {}, metadata: META }], 0);
    expect((await reader.readStream('ticket-1', { fromRevision: 1 })).map((event) => event.type)).toEqual(['A']);
    await reader.append('ticket-1', [{ type: 'B', data: {}, metadata: META }], 1);
    expect(await reader.readStream('ticket-1', { fromRevision: 3 })).toEqual([]);
    await writer.append('ticket-1', [{ type: 'C', data: {}, metadata: META }], 2);
    expect((await reader.readStream('ticket-1', { fromRevision: 3 })).map((event) => event.type)).toEqual(['C']);
  });

  it("when both connections append in turn to the same streams, then every link continues the other side's and both chains verify", async () => {
    // Each side remembers the links it wrote last; the other side's commits must make it read them again.
    await writer.append('ticket-1', [fact('W1')], 'no_stream');
    await reader.append('ticket-2', [fact('R1')], 'no_stream');
    await writer.append('ticket-1', [fact('W2')], 0);
    await reader.append('ticket-1', [fact('R2')], 1);
    await writer.append('ticket-2', [fact('W3')], 0);
    await Promise.all([writer.append('ticket-1', [fact('W4')], 2), writer.append('ticket-3', [fact('W5')], 'no_stream')]);
    await reader.append('ticket-1', [fact('R3')], 3);
    const report = await verifyLog(reader);
    expect(report).toMatchObject({ ok: true, events: 8, streams: 3, logChain: true, firstBreak: null });
    expect((await writer.readStream('ticket-1')).map((event) => event.type)).toEqual(['W1', 'W2', 'R2', 'W4', 'R3']);
  });

  it('when the other connection commits just before a group of appends here, then the whole group continues from its events', async () => {
    await writer.append('ticket-1', [fact('W1')], 'no_stream');
    await writer.append('ticket-2', [fact('W2')], 'no_stream');
    await reader.append('ticket-1', [fact('R1')], 0);
    await reader.append('ticket-2', [fact('R2')], 0);
    // Appends made in one turn share one transaction: the first of them sees the other side's commits, and so must the rest.
    const results = await Promise.all([
      writer.append('ticket-3', [fact('W3')], 'no_stream'),
      writer.append('ticket-2', [fact('W4')], 1),
      writer.append('ticket-1', [fact('W5')], 1),
    ]);
    expect(results.map((result) => result.nextRevision)).toEqual([0, 2, 2]);
    expect(await verifyLog(writer)).toMatchObject({ ok: true, events: 7, logChain: true });
  });

  it('when both connections append with the same expected revision, then exactly one wins', async () => {
    await writer.append('ticket-1', [{ type: 'TicketOpened', data: {}, metadata: META }], 'no_stream');
    await writer.append('ticket-1', [{ type: 'A', data: {}, metadata: META }], 0);
    await expect(reader.append('ticket-1', [{ type: 'B', data: {}, metadata: META }], 0)).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect((await reader.readStream('ticket-1')).map((event) => event.type)).toEqual(['TicketOpened', 'A']);
  });
});

describe('The SQLite event log, altered behind its back', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;
  const fact = (type: string, data: Record<string, unknown> = {}) => ({ type, data, metadata: META });

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'es-tamper-'));
    file = path.join(dir, 'events.db');
    store = new SqliteEventStore({ filename: file });
    await store.append('ticket-a', [fact('TicketOpened', { title: 'Printer' }), fact('MessagePosted', { content: 'It jams' })], 'no_stream');
    await store.append('ticket-b', [fact('TicketOpened', { title: 'Login' })], 'no_stream');
    await store.append(
      'ticket-a',
      [fact('TicketOutcomeRecorded', { outcomeMessage: 'Refund 10 EUR' }), fact('TicketStatusChanged', { from: 'open', to: 'resolved' })],
      1,
    );
    await store.append('ticket-b', [fact('MessagePosted', { content: 'Cannot sign in' })], 0);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Another program with write access to the file: what an attacker or a careless operator would use. */
  const tamper = (sql: string, ...params: unknown[]) => {
    const db = new Database(file);
    db.prepare(sql).run(...params);
    db.close();
  };

  it('when nothing was changed, then both chains verify and the report names the head', async () => {
    const report = await verifyLog(store);
    const last = (await store.readAll()).at(-1)!;
    expect(report).toMatchObject({
      ok: true,
      events: 6,
      streams: 2,
      logChain: true,
      firstBreak: null,
      head: { position: last.position, hash: last.chain!.hash, log: last.chain!.log },
    });
  });

  it("when an event's data is edited in the file, then the break names its stream and revision", async () => {
    tamper("UPDATE events SET data = ? WHERE stream_id = 'ticket-a' AND revision = 2", JSON.stringify({ outcomeMessage: 'Refund 1000 EUR' }));
    const report = await verifyLog(store);
    expect(report.ok).toBe(false);
    expect(report.firstBreak).toMatchObject({ chain: 'stream', streamId: 'ticket-a', revision: 2, type: 'TicketOutcomeRecorded' });
    expect(report.firstBreak!.stored).not.toBe(report.firstBreak!.expected);
  });

  it("when the edited event's own hash is recomputed too, then the log chain breaks at that event", async () => {
    const [opened, posted] = await store.readStream('ticket-a');
    const forged = { ...posted!, data: { content: 'It works fine' } };
    tamper(
      "UPDATE events SET data = ?, hash = ? WHERE stream_id = 'ticket-a' AND revision = 1",
      JSON.stringify(forged.data),
      streamLink(opened!.chain!.hash, forged),
    );
    expect((await verifyLog(store)).firstBreak).toMatchObject({ chain: 'log', streamId: 'ticket-a', revision: 1 });
  });

  it('when an event is deleted from the file, then the next event of its stream reports the gap', async () => {
    tamper("DELETE FROM events WHERE stream_id = 'ticket-a' AND revision = 2");
    expect((await verifyLog(store)).firstBreak).toMatchObject({
      streamId: 'ticket-a',
      revision: 3,
      reason: expect.stringContaining('revision 2 of ticket-a is missing'),
    });
  });

  it("when a stream's last event is deleted, then the log chain reports the next event of the log", async () => {
    tamper("DELETE FROM events WHERE stream_id = 'ticket-a' AND revision = 3");
    expect((await verifyLog(store)).firstBreak).toMatchObject({ chain: 'log', streamId: 'ticket-b', revision: 1 });
  });

  it.each([
    ['nothing changed', null],
    ['an edited event', "UPDATE events SET data = '{}' WHERE stream_id = 'ticket-a' AND revision = 2"],
    ['a deleted event', "DELETE FROM events WHERE stream_id = 'ticket-a' AND revision = 2"],
  ])('when the walk keeps the last link of one stream only (bounded memory), then %s is reported as when it keeps every stream', async (_case, sql) => {
    if (sql) tamper(sql);
    const report = ({ checkedAt: _at, durationMs: _ms, ...rest }: Awaited<ReturnType<typeof verifyLog>>) => rest;
    const readBack: Array<[string, number | undefined]> = [];
    const counted = {
      readAll: store.readAll.bind(store),
      readStream: (streamId: string, options?: ReadStreamOptions) => (readBack.push([streamId, options?.fromRevision]), store.readStream(streamId, options)),
    };
    const bounded = report(await verifyLog(counted, { streamsKept: 1 }));
    expect(bounded).toEqual(report(await verifyLog(store)));
    expect(bounded.streams).toBe(2);
    expect(bounded.ok).toBe(sql === null);
    // Log order a0 a1 b0 a2 a3 b1: ticket-a's next event after b0, and b1, read their predecessor back from their streams.
    expect(readBack[0]).toEqual(['ticket-a', sql?.startsWith('DELETE') ? 2 : 1]);
    if (sql === null)
      expect(readBack).toEqual([
        ['ticket-a', 1],
        ['ticket-b', 0],
      ]);
  });

  it('when a file from before the chains is opened, then its events are sealed in log order and verify', async () => {
    await store.close();
    // A file of that time had neither the link columns nor the index of unsealed events.
    tamper('DROP INDEX events_unsealed');
    tamper('ALTER TABLE events DROP COLUMN hash');
    tamper('ALTER TABLE events DROP COLUMN log_hash');
    store = new SqliteEventStore({ filename: file });
    const events = await store.readAll();
    expect(events.every((event) => event.chain?.hash)).toBe(true);
    expect(events[1]!.chain!.log).toBe(logLink(events[0]!.chain!.log!, events[1]!.chain!.hash));
    expect((await verifyLog(store)).ok).toBe(true);
    await store.append('ticket-b', [fact('MessagePosted', { content: 'Thanks' })], 1);
    expect((await verifyLog(store)).ok).toBe(true);
  });
});

describe.each([true, false])('SQLite appends arriving at once (group commit %s)', (groupCommit) => {
  let store: SqliteEventStore;
  const fact = (type: string, id?: string) => ({ ...(id ? { id } : {}), type, data: { type }, metadata: META });
  beforeEach(() => {
    store = new SqliteEventStore({ filename: ':memory:', groupCommit });
  });
  afterEach(() => store.close());

  it('when winners and losers mix, then positions are gap-free in call order and both chains verify', async () => {
    await Promise.all(Array.from({ length: 10 }, (_, t) => store.append(`ticket-${t}`, [fact('TicketOpened')], 'no_stream')));
    // Per ticket: two posts expecting revision 0 (one loses), one retried no_stream (loses), one 'any'.
    const calls = Array.from({ length: 10 }, (_, t) => [
      store.append(`ticket-${t}`, [fact('MessagePosted'), fact('MessagePosted')], 0),
      store.append(`ticket-${t}`, [fact('MessagePosted')], 0),
      store.append(`ticket-${t}`, [fact('TicketOpened')], 'no_stream'),
      store.append(`ticket-${t}`, [fact('MessageEdited')], 'any'),
    ]).flat();
    const results = await Promise.allSettled(calls);
    expect(results.map((result) => result.status)).toEqual(Array.from({ length: 10 }, () => ['fulfilled', 'rejected', 'rejected', 'fulfilled']).flat());
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(WrongExpectedVersionError);
    const winners = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.position] : []));
    expect([...winners].sort((a, b) => a - b)).toEqual(winners);
    const all = await store.readAll({ maxCount: 1000 });
    expect(all.map((event) => event.position)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (let t = 0; t < 10; t++) {
      const stream = await store.readStream(`ticket-${t}`);
      expect(stream.map((event) => event.type)).toEqual(['TicketOpened', 'MessagePosted', 'MessagePosted', 'MessageEdited']);
      expect(verifyStreamEvents(stream).ok).toBe(true);
    }
    expect(await verifyLog(store)).toMatchObject({ ok: true, events: 40, logChain: true });
  });

  it('when one append reuses an event id of another stream, then only it fails', async () => {
    await store.append('ticket-a', [fact('TicketOpened', 'reused-id')], 'no_stream');
    const results = await Promise.allSettled([
      store.append('ticket-b', [fact('TicketOpened')], 'no_stream'),
      store.append('ticket-b', [fact('MessagePosted', 'reused-id')], 0),
      store.append('ticket-a', [fact('MessagePosted')], 0),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
    expect((await store.readStream('ticket-b')).map((event) => event.type)).toEqual(['TicketOpened']);
    expect((await verifyLog(store)).ok).toBe(true);
  });

  it('when an append fails after writing part of its events, then only it fails, nothing of it stays, and positions have no gap', async () => {
    await store.append('ticket-a', [fact('TicketOpened', 'taken-id')], 'no_stream');
    const results = await Promise.allSettled([
      store.append('ticket-b', [fact('TicketOpened')], 'no_stream'),
      // Its first event is written, then its second collides with a stored id.
      store.append('ticket-c', [fact('TicketOpened'), fact('MessagePosted', 'taken-id')], 'no_stream'),
      store.append('ticket-a', [fact('MessagePosted')], 0),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
    expect(await store.readStream('ticket-c')).toEqual([]);
    const all = await store.readAll({ maxCount: 100 });
    expect(all.map((event) => [event.position, event.streamId])).toEqual([
      [1, 'ticket-a'],
      [2, 'ticket-b'],
      [3, 'ticket-a'],
    ]);
    // The links remembered from the group's first try were dropped with it.
    await store.append('ticket-b', [fact('MessagePosted')], 0);
    expect(await verifyLog(store)).toMatchObject({ ok: true, events: 4, logChain: true });
  });

  it('when an append is retried after later ones, then reading on from its answer still finds the later events', async () => {
    await store.append('ticket-a', [fact('TicketOpened', 'first-id')], 'no_stream');
    await store.append('ticket-a', [fact('MessagePosted')], 0);
    const retried = await store.append('ticket-a', [fact('TicketOpened', 'first-id')], 'no_stream');
    expect(retried.nextRevision).toBe(0);
    expect((await store.readStream('ticket-a', { fromRevision: retried.nextRevision + 1 })).map((event) => event.type)).toEqual(['MessagePosted']);
  });

  it('when the store closes with appends queued, then they are written first', async () => {
    const pending = store.append('ticket-a', [fact('TicketOpened')], 'no_stream');
    await store.close();
    await expect(pending).resolves.toMatchObject({ nextRevision: 0 });
    store = new SqliteEventStore({ filename: ':memory:', groupCommit });
  });
});

describe('SQLite write-ahead log checkpoints', () => {
  let dir: string;
  const PAGE = 4096;
  // About 1 KB of data per event, so a few thousand events fill hundreds of pages.
  const bulky = (count: number, from: number) =>
    Array.from({ length: count }, (_, i) => ({ type: 'MessagePosted', data: { content: `message ${from + i} `.padEnd(1000, 'x') }, metadata: META }));
  const sizeOf = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'es-wal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [true, 'a worker copies them into the database file while the store stays open'],
    [false, 'they stay in the log until a commit passes the mark'],
  ])('when events are appended (background checkpoints %s), then %s', async (backgroundCheckpoints) => {
    const file = path.join(dir, 'events.db');
    const store = new SqliteEventStore({ filename: file, backgroundCheckpoints });
    try {
      const before = sizeOf(file);
      // About 400 pages: under both marks (1,000 pages without the worker), so only a background checkpoint moves them now.
      for (let batch = 0; batch < 10; batch++) await store.append(`ticket-${batch}`, bulky(100, batch * 100), 'no_stream');
      expect(sizeOf(`${file}-wal`)).toBeGreaterThan(250 * PAGE);
      const deadline = Date.now() + (backgroundCheckpoints ? 5000 : 500);
      while (sizeOf(file) < before + 250 * PAGE && Date.now() < deadline) await sleep(20);
      if (backgroundCheckpoints) expect(sizeOf(file)).toBeGreaterThan(before + 250 * PAGE);
      else expect(sizeOf(file)).toBe(before);
    } finally {
      await store.close();
    }
    const reopened = new SqliteEventStore({ filename: file, backgroundCheckpoints: false });
    expect(await reopened.headPosition()).toBe(1000);
    expect((await verifyLog(reopened)).ok).toBe(true);
    await reopened.close();
  });

  it('when appends keep coming faster than the worker copies, then the log still stays near its mark', async () => {
    const file = path.join(dir, 'events.db');
    const store = new SqliteEventStore({ filename: file });
    let largest = 0;
    try {
      // About 125 MB of events, one append after another with no pause for the worker.
      for (let batch = 0; batch < 1000; batch++) {
        await store.append(`ticket-${batch % 50}`, bulky(100, batch * 100), 'any');
        largest = Math.max(largest, sizeOf(`${file}-wal`));
      }
      expect(await store.headPosition()).toBe(100_000);
    } finally {
      await store.close();
    }
    expect(sizeOf(file)).toBeGreaterThan(100_000 * 1000);
    // The mark is 4,000 pages (16 MB); a commit past it that meets the worker mid-copy leaves the
    // rewind to a later one, so the log runs somewhat past it (5,300 pages at most in 8 runs), never
    // towards the 125 MB written.
    expect(largest).toBeLessThan(10_000 * PAGE);
    // 125 MB through SQLite: seconds on a quiet machine, more on a busy one.
  }, 60_000);

  it('when the store closes, then its checkpoint worker has closed its connection first, SQLite removes the log, and the file opens again', async () => {
    const file = path.join(dir, 'events.db');
    const store = new SqliteEventStore({ filename: file });
    await store.append('ticket-1', bulky(10, 0), 'no_stream');
    await store.close();
    // Closed cleanly by the last connection, SQLite removes the log.
    expect(sizeOf(`${file}-wal`)).toBe(0);
    const again = new SqliteEventStore({ filename: file });
    expect(await again.readStream('ticket-1')).toHaveLength(10);
    await again.close();
  });
});
