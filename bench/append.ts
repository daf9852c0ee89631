import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../src/platform/eventstore/sqlite';
import { MemoryReadStore } from '../src/platform/readstore/memory';
import { allProjections } from '../src/projections/all';
import { ProjectionRunner } from '../src/projections/runner';

/**
 * Append and replay throughput of the embedded event store, each beside its baseline from the same
 * run: raw better-sqlite3 inserts of the same rows with the same pragmas.
 *   npx tsx bench/append.ts [events=20000] [batch=100]
 */
const EVENTS = Number(process.argv[2] ?? 20_000);
const BATCH = Number(process.argv[3] ?? 100);
const META = JSON.stringify({ occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1, actor: { userId: 'u', role: 'agent', platform: 'web' } });
const DATA = (i: number) => ({ ticketId: `t${i % 500}`, content: `message number ${i} with some ordinary chat text in it`, isInternal: false });

const dir = mkdtempSync(path.join(tmpdir(), 'bench-'));
const rate = (count: number, started: bigint) => Math.round(count / (Number(process.hrtime.bigint() - started) / 1e9));

function raw(batch: number): number {
  const db = new Database(path.join(dir, `raw-${batch}.db`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream_id, revision))');
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
  for (let i = 0; i < EVENTS; i += batch) write(i);
  const result = rate(EVENTS, started);
  db.close();
  return result;
}

async function adapter(batch: number): Promise<number> {
  const store = new SqliteEventStore({ filename: path.join(dir, `adapter-${batch}.db`) });
  const started = process.hrtime.bigint();
  for (let i = 0; i < EVENTS; i += batch) {
    // One stream per append, like a command: the batch is many events of one ticket.
    const stream = `ticket-${(i / batch) % 500}`;
    const events = Array.from({ length: batch }, (_, k) => ({
      type: 'MessagePosted',
      data: DATA(i + k),
      metadata: JSON.parse(META) as { occurredAt: string; schemaVersion: number },
    }));
    await store.append(stream, events, 'any');
  }
  const result = rate(EVENTS, started);
  await store.close();
  return result;
}

/** A log the read models really work on: categories created, then updated many times each. */
async function replay(): Promise<{ rate: number; events: number }> {
  const store = new SqliteEventStore({ filename: path.join(dir, 'replay.db') });
  const meta = JSON.parse(META) as { occurredAt: string; schemaVersion: number };
  const perCategory = 20;
  for (let c = 0; c < EVENTS / perCategory; c++) {
    const categoryId = `c${c}`;
    const created = { categoryId, name: `Category ${c}`, description: '', color: '#007bff', order: 0, isActive: true, customFields: [] };
    const updates = Array.from({ length: perCategory - 1 }, (_, k) => ({ type: 'CategoryUpdated', data: { categoryId, changes: { order: k + 1 } }, metadata: meta }));
    await store.append(`category-${categoryId}`, [{ type: 'CategoryCreated', data: created, metadata: meta }, ...updates], 'no_stream');
  }
  const runner = new ProjectionRunner(store, new MemoryReadStore(), allProjections);
  const started = process.hrtime.bigint();
  await runner.start();
  const result = { rate: rate(runner.eventsProcessed, started), events: runner.eventsProcessed };
  await runner.stop();
  await store.close();
  return result;
}

async function main() {
  const rows = [
    ['raw better-sqlite3, 1 row per transaction', raw(1)],
    ['SqliteEventStore.append, 1 event per append', await adapter(1)],
    [`raw better-sqlite3, ${BATCH} rows per transaction`, raw(BATCH)],
    [`SqliteEventStore.append, ${BATCH} events per append`, await adapter(BATCH)],
  ] as const;
  const replayed = await replay();
  console.log(`| ${EVENTS} events | events/s |\n|---|---:|`);
  for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
  console.log(`| projection runner replay into the embedded read store (${replayed.events} category events) | ${replayed.rate} |`);
  rmSync(dir, { recursive: true, force: true });
}

void main();
