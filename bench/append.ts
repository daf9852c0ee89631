import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../src/platform/eventstore/sqlite';

/**
 * Figure 1: append throughput of the embedded event store (hash chains, idempotency, expected
 * revisions included) beside raw better-sqlite3 inserts of the same rows with the same pragmas,
 * one event per transaction and in batches.
 */
const META = JSON.stringify({ occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1, actor: { userId: 'u', role: 'agent', platform: 'web' } });
const DATA = (i: number) => ({ ticketId: `t${i % 500}`, content: `message number ${i} with some ordinary chat text in it`, isInternal: false });
const rate = (count: number, started: bigint) => Math.round(count / (Number(process.hrtime.bigint() - started) / 1e9));

function raw(dir: string, total: number, batch: number): number {
  const db = new Database(path.join(dir, `raw-${batch}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream_id, revision))',
  );
  const insert = db.prepare('INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  const revisions = new Map<string, number>();
  const write = db.transaction((from: number) => {
    for (let i = from; i < from + batch; i++) {
      const stream = `ticket-${i % 500}`;
      const revision = (revisions.get(stream) ?? -1) + 1;
      revisions.set(stream, revision);
      insert.run(randomUUID(), stream, revision, 'MessagePosted', JSON.stringify(DATA(i)), META);
    }
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < total; i += batch) write(i);
  const result = rate(total, started);
  db.close();
  return result;
}

/**
 * Appends through the port: `batch` events per append, `concurrency` appends in flight at a time
 * (each writer its own tickets, as concurrent commands are), group commit on or off.
 */
async function adapter(dir: string, total: number, batch: number, { concurrency = 1, groupCommit = true } = {}): Promise<number> {
  const store = new SqliteEventStore({ filename: path.join(dir, `adapter-${batch}-${concurrency}-${groupCommit}.db`), groupCommit });
  const started = process.hrtime.bigint();
  const appends = total / batch;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, writer) => {
      for (let a = writer; a < appends; a += concurrency) {
        const i = a * batch;
        // One stream per append, like a command: the batch is many events of one ticket.
        const stream = `ticket-${a % 500}`;
        const events = Array.from({ length: batch }, (_, k) => ({
          type: 'MessagePosted',
          data: DATA(i + k),
          metadata: JSON.parse(META) as { occurredAt: string; schemaVersion: number },
        }));
        await store.append(stream, events, 'any');
      }
    }),
  );
  const result = rate(total, started);
  await store.close();
  return result;
}

export interface AppendFigures {
  /** `portUngrouped`: the port with group commit off. */
  single: { raw: number; port: number; portUngrouped: number };
  batched: { raw: number; port: number; batch: number };
  /** Single-event appends, `writers` of them in flight at once (concurrent commands). */
  concurrent: { raw: number; port: number; portUngrouped: number; writers: number };
}

export async function appendFigures(events: number, batch: number): Promise<AppendFigures> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-append-'));
  try {
    const rawSingle = raw(dir, events, 1);
    const single = { raw: rawSingle, port: await adapter(dir, events, 1), portUngrouped: await adapter(dir, events, 1, { groupCommit: false }) };
    const batched = { raw: raw(dir, events, batch), port: await adapter(dir, events, batch), batch };
    const writers = 50;
    const concurrent = {
      raw: rawSingle,
      port: await adapter(dir, events, 1, { concurrency: writers }),
      portUngrouped: await adapter(dir, events, 1, { concurrency: writers, groupCommit: false }),
      writers,
    };
    return { single, batched, concurrent };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
