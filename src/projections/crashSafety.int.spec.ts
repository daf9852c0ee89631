import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Member, addCategory, addMember, openTicket } from '../../test/support/desk';
import { dropDatabase, readModelsUrl } from '../../test/support/mongo';
import { type TestServer, startTestServer } from '../../test/support/server';
import type { RecordedEvent } from '../platform/eventstore/port';
import { MemoryReadStore } from '../platform/readstore/memory';
import { MongoReadStore } from '../platform/readstore/mongodb';
import { type BulkOp, type Collection, type Doc, type ReadStore, TransientStoreError } from '../platform/readstore/port';
import { SqliteReadStore } from '../platform/readstore/sqlite';
import { allProjections } from './all';
import { checkProjections, describeCheck, replayInto } from './check';
import { applyToProjections } from './apply';
import { CHECKPOINTS, ProjectionRunner, type RunnerOptions } from './runner';

/**
 * A crash (or a failed write) anywhere in a page of projection writes must leave read models that
 * the next apply repairs without a rebuild. The log is a desk's day; its last part is one page,
 * whose writes are numbered. For every N, the models are built up to the page, the page is applied
 * through a store that fails at its N-th write (inside a bulk write too: the writes before it in
 * the bulk are done), and then a runner starts as a restarted process does, from the checkpoints
 * stored before the page. The models must then equal a rebuild from the log.
 */

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), Buffer.alloc(64, 1)]);

/**
 * The store whose `failAt`-th write (counting each write of a bulk, numbered when it is sent: bulk writes sent at once take numbers of
 * their own) fails as an unreachable store's does, while the writes sent beside it run to their end; it counts writes meanwhile.
 * `before` runs just before each write (a crash there is what another connection to the file sees then).
 */
function failingAt(inner: ReadStore, failAt: number, before: (write: number) => Promise<void> = async () => undefined) {
  const state = { writes: 0 };
  const write = async (name: string, perform: () => Promise<unknown>) => {
    state.writes += 1;
    if (state.writes === failAt) throw new TransientStoreError(name, new Error(`write ${failAt} failed`));
    await before(state.writes);
    await perform();
  };
  const store: ReadStore = {
    kind: inner.kind,
    ...(inner.transaction ? { transaction: inner.transaction.bind(inner) } : {}),
    // The search projection's FTS5 rows go to the same connection, in the page's transaction, as they do on the store itself.
    ...(inner instanceof SqliteReadStore ? { database: inner.database } : {}),
    close: () => inner.close(),
    collection<T extends Doc>(name: string): Collection<T> {
      const collection = inner.collection<T>(name);
      return {
        name,
        findOne: (filter) => collection.findOne(filter),
        find: (filter, options) => collection.find(filter, options),
        count: (filter) => collection.count(filter),
        aggregate: (pipeline) => collection.aggregate(pipeline),
        createIndex: (spec) => collection.createIndex(spec),
        drop: () => collection.drop(),
        insertOne: (doc) => write(name, () => collection.insertOne(doc)),
        updateOne: async (filter, update, options) => {
          let result = { matched: 0, modified: 0, upsertedId: null as string | null };
          await write(name, async () => (result = await collection.updateOne(filter, update, options)));
          return result;
        },
        updateMany: async (filter, update) => {
          let result = { matched: 0, modified: 0, upsertedId: null as string | null };
          await write(name, async () => (result = await collection.updateMany(filter, update)));
          return result;
        },
        replaceOne: async (filter, doc, options) => {
          let result = { matched: 0, modified: 0, upsertedId: null as string | null };
          await write(name, async () => (result = await collection.replaceOne(filter, doc, options)));
          return result;
        },
        deleteOne: async (filter) => {
          let deleted = 0;
          await write(name, async () => (deleted = await collection.deleteOne(filter)));
          return deleted;
        },
        deleteMany: async (filter) => {
          let deleted = 0;
          await write(name, async () => (deleted = await collection.deleteMany(filter)));
          return deleted;
        },
        async bulkWrite(ops: BulkOp<T>[]) {
          // Numbered when sent, so that bulk writes sent at once take numbers of their own; the writes before the failing one are done, as an ordered bulk write leaves them.
          const first = state.writes + 1;
          state.writes += ops.length;
          for (let at = 0; at < ops.length; at++) await before(first + at);
          const failing = failAt - first;
          if (failing >= 0 && failing < ops.length) {
            if (failing > 0) await collection.bulkWrite(ops.slice(0, failing));
            throw new TransientStoreError(name, new Error(`write ${failAt} failed`));
          }
          return collection.bulkWrite(ops);
        },
      };
    },
  };
  return { store, state };
}

type Stores = { open(): Promise<ReadStore>; dispose(store: ReadStore): Promise<void> };
/** A SQLite read store in a file of its own (a second connection to it sees what a crash would leave). */
const sqliteFiles = new Map<ReadStore, string>();
const openSqlite = async () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'crash-safety-'));
  const store = new SqliteReadStore({ filename: path.join(directory, 'readstore.db') });
  sqliteFiles.set(store, directory);
  return store;
};
const disposeSqlite = async (store: ReadStore) => {
  await store.close();
  rmSync(sqliteFiles.get(store)!, { recursive: true, force: true });
  sqliteFiles.delete(store);
};
/** A MongoDB read store in a database of its own for each try (readModelsUrl names one after any string), dropped after. */
const mongoDatabases = new Map<ReadStore, string>();
const openMongo = async () => {
  const url = readModelsUrl(randomUUID())!;
  const store = await MongoReadStore.connect(url);
  mongoDatabases.set(store, url);
  return store;
};
const disposeMongo = async (store: ReadStore) => {
  await store.close();
  await dropDatabase(mongoDatabases.get(store)!);
  mongoDatabases.delete(store);
};
/** The int tier cuts the embedded stores' pages; the mongo tier (MONGO_URL set) runs this suite again for MongoDB's alone. */
const stores: Array<[string, Stores]> = process.env.MONGO_URL
  ? [['mongodb', { open: openMongo, dispose: disposeMongo }]]
  : [
      ['memory', { open: async () => new MemoryReadStore(), dispose: (store) => store.close() }],
      ['sqlite', { open: openSqlite, dispose: disposeSqlite }],
    ];

/**
 * Runs `task` for each write number from 1 to `count`, `at` of them at a time (each try has a store of its own). On
 * MongoDB a try mostly waits on the server's round trips, and FerretDB keeps each database in a file of its own.
 */
async function eachWrite(count: number, at: number, task: (failAt: number) => Promise<void>): Promise<void> {
  let next = 1;
  const worker = async () => {
    for (let failAt = next++; failAt <= count; failAt = next++) await task(failAt);
  };
  await Promise.all(Array.from({ length: Math.min(at, count) }, worker));
}

describe.each(stores)('A page of projection writes cut anywhere (%s)', (kind, { open, dispose }) => {
  /** Tries at once: only the server store waits on anything but this process. */
  const atOnce = kind === 'mongodb' ? 4 : 1;
  let server: TestServer;
  let pageFrom: number;
  let page: RecordedEvent[];

  beforeAll(async () => {
    server = await startTestServer();
    const admin = await server.login();
    const agent = await addMember(server, admin, 'agent');
    const category = await addCategory(server, admin);
    const customers: Member[] = [];
    const tickets: string[] = [];
    for (let i = 0; i < 3; i++) {
      customers.push(await addMember(server, admin, 'customer'));
      if (i < 2) tickets.push((await openTicket(server, customers[i]!, category))._id);
    }
    const post = async (member: Member, ticket: string, content: string, files: number = 0, isInternal = false) => {
      const form = new FormData();
      form.append('content', content);
      if (isInternal) form.append('isInternal', 'true');
      for (let f = 0; f < files; f++) form.append('attachments', new Blob([new Uint8Array(PNG)]), `shot${f}.png`);
      const response = await fetch(`${server.url}/api/tickets/${ticket}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${member.token}` },
        body: form,
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { message: { _id: string } }).message._id;
    };
    const ok = async (method: string, url: string, token: string, body?: unknown) => {
      const answer = await server.request(method, url, { token, ...(body !== undefined ? { body } : {}) });
      expect(answer.status).toBeLessThan(300);
    };
    await post(customers[0]!, tickets[0]!, 'Before the page');
    await post(customers[1]!, tickets[1]!, 'Before the page too', 1);
    pageFrom = await server.deps.events.headPosition();

    // The page: every kind of write the ticket models make, a rename in the middle, a deletion.
    const opened = (await openTicket(server, customers[2]!, category))._id;
    const [first, second] = tickets as [string, string];
    const sent = await post(customers[0]!, first, 'It still fails', 2);
    await ok('POST', `/api/tickets/${first}/assign`, agent.token, { agentId: agent.id });
    await post(agent, first, 'Checking the logs', 0, true);
    await ok('PUT', `/api/messages/${sent}`, customers[0]!.token, { content: 'It still fails, see the shots' });
    await ok('POST', `/api/tickets/${first}/messages/read`, agent.token);
    await ok('PUT', `/api/tickets/${first}/outcome`, agent.token, { outcomeMessage: 'Cache cleared' });
    await ok('PUT', `/api/users/${customers[0]!.id}`, admin, { firstName: 'Renamed' });
    await post(customers[0]!, first, 'Thanks', 1);
    await ok('PUT', `/api/tickets/${first}`, agent.token, { status: 'resolved' });
    await post(customers[1]!, second, 'One more file', 1);
    await ok('DELETE', `/api/tickets/${second}`, admin);
    await ok('PUT', `/api/categories/${category}`, admin, { name: 'Renamed category' });
    await post(customers[2]!, opened, 'Hello');
    page = await server.deps.events.readAll({ after: pageFrom, maxCount: 10_000 });
  }, 60_000);
  afterAll(() => server.stop());

  /** The models as a process that stored its checkpoints just before the page holds them. */
  const beforeThePage = async () => {
    const store = await open();
    await replayInto(server.deps.events, allProjections, store, pageFrom);
    for (const { name, version } of allProjections)
      await store
        .collection<Doc & { version: number; position: number }>(CHECKPOINTS)
        .replaceOne({ _id: name }, { _id: name, version, position: pageFrom }, { upsert: true });
    return store;
  };
  const positionsBefore = () => new Map(allProjections.map(({ name }) => [name, pageFrom]));
  /** Starts a runner on `store` from its checkpoints, as a restarted process does: what differs then from a rebuild from the log, if anything. */
  const restartedDiffers = async (store: ReadStore, options: RunnerOptions = {}) => {
    const restarted = new ProjectionRunner(server.deps.events, store, allProjections, options);
    await restarted.start();
    await restarted.stop();
    const check = await checkProjections(server.deps.events, allProjections, store, { livePosition: () => restarted.position });
    return check.ok
      ? null
      : describeCheck(check)
          .filter((line) => line.includes('DIFFERS'))
          .join('\n');
  };

  it('when the page fails at any of its writes and the process starts again, then the models equal a rebuild from the log', async () => {
    const counted = await beforeThePage();
    const counting = failingAt(counted, 0);
    await applyToProjections(allProjections, page, counting.store, positionsBefore());
    const writes = counting.state.writes;
    await dispose(counted);
    expect(page.length).toBeGreaterThan(15);
    expect(writes).toBeGreaterThan(page.length);

    const broken = new Map<number, string>();
    await eachWrite(writes, atOnce, async (failAt) => {
      const store = await beforeThePage();
      const failing = failingAt(store, failAt);
      await expect(applyToProjections(allProjections, page, failing.store, positionsBefore())).rejects.toThrow(`write ${failAt} failed`);
      const differs = await restartedDiffers(store);
      if (differs) broken.set(failAt, `failing at write ${failAt} of ${writes}:\n${differs}`);
      await dispose(store);
    });
    expect([...broken].sort(([a], [b]) => a - b).map(([, text]) => text)).toEqual([]);
  }, 600_000);

  // On SQLite a replay goes page by page (the search projection's rows there are FTS5's, not the heap store's).
  if (kind !== 'sqlite')
    it('when a replay in batches fails at any of its writes and the process starts again, then the models equal a rebuild from the log', async () => {
      // Batches of a few events (pages of 3, written every 7 events or more): the log's day makes several, each written at once, and the failing write may be in any of them.
      // No checkpoint on a timer: a batch's writes go while the next is applied, so a timer's save would land at a write number that varies from run to run; the batches' own saves are counted.
      const inBatches = { pageSize: 3, batchEvents: 7, checkpointEveryMs: 600_000 };
      const replay = async (store: ReadStore) => {
        let failed: (error: unknown) => void = () => undefined;
        const failure = new Promise<unknown>((resolve) => (failed = resolve));
        const runner = new ProjectionRunner(server.deps.events, store, allProjections, {
          ...inBatches,
          retryPauseMs: 600_000,
          onError: (error) => failed(error),
        });
        const outcome = await Promise.race([
          runner.start().then(
            () => null,
            (error: unknown) => error,
          ),
          failure,
        ]);
        await runner.stop();
        return outcome;
      };
      const counted = await open();
      const counting = failingAt(counted, 0);
      expect(await replay(counting.store)).toBeNull();
      const writes = counting.state.writes;
      await dispose(counted);
      expect(writes).toBeGreaterThan(0);

      const broken = new Map<number, string>();
      await eachWrite(writes, atOnce, async (failAt) => {
        const store = await open();
        expect(String(await replay(failingAt(store, failAt).store))).toContain(`write ${failAt} failed`);
        // Started again as a process does, in batches too: a replay that failed before its first batch was written starts from nothing again.
        const differs = await restartedDiffers(store, inBatches);
        if (differs) broken.set(failAt, `failing at write ${failAt} of ${writes}:\n${differs}`);
        await dispose(store);
      });
      expect([...broken].sort(([a], [b]) => a - b).map(([, text]) => text)).toEqual([]);
    }, 600_000);

  if (kind !== 'sqlite') return;
  it('when a runner applies the page, then at every write what is on disk is the models of the checkpoints stored with them', async () => {
    const store = await beforeThePage();
    const file = path.join(sqliteFiles.get(store)!, 'readstore.db');
    const broken: string[] = [];
    // At each write (the page's and its checkpoints'), what a crash would leave: the files as they are on disk, opened elsewhere (SQLite recovers from the WAL).
    const onDisk = async (write: number) => {
      const copy = mkdtempSync(path.join(tmpdir(), 'crashed-'));
      for (const suffix of ['', '-wal']) if (existsSync(file + suffix)) copyFileSync(file + suffix, path.join(copy, `readstore.db${suffix}`));
      const crashed = new SqliteReadStore({ filename: path.join(copy, 'readstore.db') });
      try {
        const checkpoints = await crashed.collection<Doc & { position: number }>(CHECKPOINTS).find({});
        const positions = new Set(checkpoints.map((checkpoint) => checkpoint.position));
        const check = await checkProjections(server.deps.events, allProjections, crashed, { livePosition: () => Math.min(...positions) });
        if (positions.size !== 1 || !check.ok)
          broken.push(`before write ${write}: checkpoints at ${[...positions].join(', ')}, ${check.ok ? 'models match' : 'models DIFFER'}`);
      } finally {
        await crashed.close();
        rmSync(copy, { recursive: true, force: true });
      }
    };
    const observed = failingAt(store, 0, onDisk);
    const runner = new ProjectionRunner(server.deps.events, observed.store, allProjections);
    await runner.start();
    await runner.stop();
    await onDisk(observed.state.writes + 1);
    expect(observed.state.writes).toBeGreaterThan(page.length);
    expect(broken).toEqual([]);
    await disposeSqlite(store);
  }, 600_000);
});
