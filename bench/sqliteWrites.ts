/**
 * `npx tsx --conditions=source bench/sqliteWrites.ts [documents] [page] [words]`: the SQLite read store's cost per
 * insert and per update of ticket-like documents (20 words each, the tickets' indexes) through the port,
 * one call per transaction and `page` calls per transaction (the projections' pages), on a fresh file.
 * Prints JSON of µs per operation (run it with --cpu-prof to see where they go).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '../src/platform/readstore/sqlite';
import { TICKETS, ticketsProjection } from '../src/projections/tickets';

const WORDS = Array.from({ length: 2000 }, (_, i) => `word${i.toString(36)}`);

function ticket(i: number) {
  const words = Array.from({ length: 20 }, (_, w) => WORDS[(i * 31 + w * 97) % WORDS.length]!);
  return {
    _id: `t-${i}`,
    ticketId: i,
    title: `Ticket ${i}`,
    status: ['open', 'in_progress', 'resolved'][i % 3],
    priorityWeight: i % 4,
    statusRank: i % 3,
    customer: { _id: `u-${i % 5000}` },
    assignedAgent: i % 3 === 0 ? null : { _id: `agent-${i % 20}` },
    createdAt: new Date(1_767_225_600_000 + i * 60_000).toISOString(),
    updatedAt: new Date(1_767_225_600_000 + i * 60_000).toISOString(),
    search: words,
    _revision: 1,
  };
}

async function main() {
  const count = Number(process.argv[2] ?? 10_000);
  const page = Number(process.argv[3] ?? 500);
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-writes-'));
  const store = new SqliteReadStore({ filename: join(dir, 'readstore.db') });
  await ticketsProjection.setup?.(store);
  const tickets = store.collection(TICKETS);
  // `words`: the words filed in a key table too, as the search model's word list once was (20 entries a document).
  if (process.argv[4] === 'words') await tickets.createIndex({ keys: { search: 1 } });
  const timed = async (label: string, n: number, work: (i: number) => Promise<unknown>, inPages: boolean) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i += inPages ? page : 1) {
      const run = async () => {
        for (let j = i; j < Math.min(n, i + (inPages ? page : 1)); j++) await work(j);
      };
      await (inPages ? store.transaction(run) : run());
    }
    return [label, Number((Number(process.hrtime.bigint() - started) / 1e3 / n).toFixed(1))] as const;
  };
  const half = Math.floor(count / 2);
  const results = [
    await timed('insertOwnTransaction', half, (i) => tickets.insertOne(ticket(i) as never), false),
    await timed('insertInPages', half, (i) => tickets.insertOne(ticket(half + i) as never), true),
    await timed('updateOwnTransaction', half, (i) => tickets.updateOne({ _id: `t-${i}` }, { $set: { status: 'closed' }, $inc: { _revision: 1 } }), false),
    await timed('updateInPages', half, (i) => tickets.updateOne({ _id: `t-${half + i}` }, { $set: { status: 'closed' }, $inc: { _revision: 1 } }), true),
  ];
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ documents: count, page, microsecondsPerOp: Object.fromEntries(results) })}\n`);
}

void main();
