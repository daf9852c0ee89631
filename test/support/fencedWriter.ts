/**
 * One projection process of a deployment, for src/projections/fencing.mongo.spec.ts: a runner over
 * the shared SQLite log (EVENTS_FILE) and the shared MongoDB read store (MONGO_URL) behind the
 * read-store lease (ttl LEASE_TTL_MS), applying one probe projection whose writes are unguarded on
 * purpose (it stands for any write a leader finishes after it lost the lease). With PAUSE_AT=n it
 * says `pausing` and waits 1.5 s before writing event n, so the test can SIGSTOP it there. It says
 * `lead <epoch>` and `follow` as its lease changes.
 */
import pino from 'pino';
import type { RecordedEvent } from '../../src/platform/eventstore/port';
import { SqliteEventStore } from '../../src/platform/eventstore/sqlite';
import { StoreLease } from '../../src/platform/lease';
import { MongoReadStore } from '../../src/platform/readstore/mongodb';
import type { ReadStore } from '../../src/platform/readstore/port';
import { PROJECTIONS_LEASE, type Projection, ProjectionRunner } from '../../src/projections/runner';
import { PROBE, PROBE_EVENT, type ProbeDoc } from './probe';

const name = process.env.NAME ?? 'writer';
const pauseAt = Number(process.env.PAUSE_AT ?? 0);

const probe: Projection = {
  name: 'probe',
  version: 1,
  collections: [PROBE],
  async apply(event: RecordedEvent, store: ReadStore) {
    if (event.type !== PROBE_EVENT) return;
    const n = (event.data as { n: number }).n;
    if (n === pauseAt) {
      process.stdout.write('pausing\n');
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    const docs = store.collection<ProbeDoc>(PROBE);
    await docs.replaceOne({ _id: `n${n}` }, { _id: `n${n}`, n, by: name }, { upsert: true });
    await docs.replaceOne({ _id: 'last' }, { _id: 'last', n, by: name }, { upsert: true });
  },
};

async function main(): Promise<void> {
  const events = new SqliteEventStore({ filename: process.env.EVENTS_FILE! });
  const store = await MongoReadStore.connect(process.env.MONGO_URL!);
  const logger = pino({ level: 'silent' });
  const lease = new StoreLease({ store, key: PROJECTIONS_LEASE, ttlMs: Number(process.env.LEASE_TTL_MS ?? 1000), logger });
  lease.onChange((held) => {
    process.stdout.write(held ? `lead ${lease.epoch}\n` : 'follow\n');
  });
  const runner = new ProjectionRunner(events, store, [probe], { lease, checkpointEveryMs: 20, followEveryMs: 20 });
  await runner.start();
  process.stdout.write('started\n');
  process.once('SIGTERM', () => {
    void runner
      .stop()
      .then(() => Promise.all([store.close(), events.close()]))
      .finally(() => process.exit(0));
  });
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
