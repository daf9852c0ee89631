import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../../test/support/eventually';
import { PROBE, PROBE_EVENT, type ProbeDoc } from '../../test/support/probe';
import { dropDatabase } from '../../test/support/mongo';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { MongoReadStore } from '../platform/readstore/mongodb';
import { projectRoot } from '../platform/paths';

const LEASE_TTL_MS = 1000;

/** A projection process (test/support/fencedWriter.ts) and the lines it has said so far. */
interface Writer {
  child: ChildProcess;
  said: string[];
}

/**
 * Fenced writes (docs/read-models.md "Fenced writes"), with real processes: the leader is stopped
 * (SIGSTOP) in the middle of applying an event, past its lease's ttl; another process takes the
 * lease over and applies that event and later ones; the old leader is let go on (SIGCONT) and
 * finishes its write. Nothing it writes then may land. The read store is MongoDB (the mongo tier's).
 */
describe('A leader stopped past its lease and let go on again', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'desk-fencing-'));
  const eventsFile = path.join(dir, 'events.db');
  const url = new URL(process.env.MONGO_URL!);
  url.pathname = `/desk_fencing_${randomUUID().slice(0, 8)}`;
  const mongoUrl = url.toString();
  const writers: Writer[] = [];
  let events: SqliteEventStore;
  let store: MongoReadStore;

  const spawnWriter = (name: string, extra: Record<string, string> = {}): Writer => {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'test/support/fencedWriter.ts'], {
      cwd: projectRoot(),
      env: { ...process.env, NAME: name, EVENTS_FILE: eventsFile, MONGO_URL: mongoUrl, LEASE_TTL_MS: String(LEASE_TTL_MS), ...extra },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const writer = { child, said: [] as string[] };
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      writer.said.push(...lines);
    });
    writers.push(writer);
    return writer;
  };
  const write = async (n: number) =>
    (await events.append('probe-1', [{ type: PROBE_EVENT, data: { n }, metadata: { occurredAt: new Date().toISOString(), schemaVersion: 1 } }])).position;
  const probe = (id: string) => store.collection<ProbeDoc>(PROBE).findOne({ _id: id });

  beforeAll(async () => {
    events = new SqliteEventStore({ filename: eventsFile });
    store = await MongoReadStore.connect(mongoUrl);
  });
  afterAll(async () => {
    for (const { child } of writers) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    await store.close();
    await events.close();
    await dropDatabase(mongoUrl);
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the old leader finishes its page after another process took over, then none of its writes land', async () => {
    const first = spawnWriter('first', { PAUSE_AT: '5' });
    await eventually(() => first.said.includes('started'), { timeoutMs: 30_000, describe: 'the first process started' });
    expect(first.said).toContain('lead 1');
    for (let n = 1; n <= 4; n++) await write(n);
    await eventually(async () => (await probe('last'))?.n === 4, { describe: 'the first process applied events 1-4' });
    const second = spawnWriter('second');
    await eventually(() => second.said.includes('started'), { timeoutMs: 30_000, describe: 'the second process started' });
    expect(second.said).not.toContain('lead 2');

    // The first process is stopped while it holds the lease, in the middle of applying event 5.
    await write(5);
    await eventually(() => first.said.includes('pausing'), { describe: 'the first process began applying event 5' });
    first.child.kill('SIGSTOP');
    await eventually(() => second.said.includes('lead 2'), { describe: 'the second process took the lease over' });
    await write(6);
    await write(7);
    await eventually(async () => (await probe('last'))?.n === 7, { describe: 'the second process applied events 5-7' });

    // Let go on, the first process finishes applying event 5 (its writes computed before it stopped), then learns it lost the lease.
    first.child.kill('SIGCONT');
    await eventually(() => first.said.includes('follow'), { describe: 'the first process stood down' });
    // Its write would have landed by now: the pause ended as it went on, and it stood down after.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await probe('last')).toEqual({ _id: 'last', n: 7, by: 'second' });
    for (const n of [5, 6, 7]) expect(await probe(`n${n}`)).toEqual({ _id: `n${n}`, n, by: 'second' });
    expect(await probe('n4')).toEqual({ _id: 'n4', n: 4, by: 'first' });
  }, 60_000);
});
