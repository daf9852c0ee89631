/**
 * `npx tsx --conditions=source bench/readstore.ts [tickets] [query]`: the embedded read store's answers to the queries of the
 * dashboard and of Live Tickets at a given number of tickets, in-process (no HTTP), to find where
 * their time goes (run it with --cpu-prof; a query name runs that one only). Prints JSON of median
 * and p99 per query, and the first run of each (which builds the indexes it uses).
 */
import { MemoryReadStore } from '../src/platform/readstore/memory';
import { ticketsProjection, TICKETS } from '../src/projections/tickets';

const STATUSES = ['open', 'in_progress', 'pending_customer', 'resolved', 'closed'];
const PRIORITIES = ['low', 'medium', 'high', 'urgent'];

async function main() {
  const count = Number(process.argv[2] ?? 100_000);
  const store = new MemoryReadStore();
  await ticketsProjection.setup?.(store);
  const tickets = store.collection(TICKETS);
  const agents = Array.from({ length: 20 }, (_, i) => ({ _id: `agent-${i}`, username: `agent${i}`, firstName: 'A', lastName: 'B' }));
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 1; i <= count; i++) {
    const status = STATUSES[i % 5]!;
    const priority = PRIORITIES[(i * 7) % 4]!;
    const createdAt = new Date(start + i * 60_000).toISOString();
    await tickets.insertOne({
      _id: `t-${i}`,
      ticketId: i,
      title: `Ticket ${i}`,
      description: 'Something is wrong with the thing',
      category: { _id: `c-${i % 8}`, name: 'Cat', color: '#fff' },
      priority,
      status,
      customer: { _id: `u-${i % 5000}`, username: 'c', firstName: 'C', lastName: 'D' },
      assignedAgent: i % 3 === 0 ? null : agents[i % 20]!,
      createdAt,
      updatedAt: new Date(start + i * 60_000 + (i % 97) * 3_600_000).toISOString(),
      priorityWeight: PRIORITIES.indexOf(priority),
      statusRank: STATUSES.indexOf(status),
      search: `ticket ${i} something is wrong`,
      _revision: 1,
    } as never);
  }
  const only = process.argv[3];
  const queries: Record<string, () => Promise<unknown>> = {
    newest10: () => tickets.find({}, { sort: { createdAt: -1, ticketId: -1 }, limit: 10 }),
    openLatest50: () =>
      Promise.all([
        tickets.find({ status: { $in: ['open'] } }, { sort: { createdAt: -1, ticketId: -1 }, limit: 50 }),
        tickets.count({ status: { $in: ['open'] } }),
      ]),
    unassignedPriority50: () =>
      Promise.all([
        tickets.find({ 'assignedAgent._id': null }, { sort: { priorityWeight: -1, createdAt: -1 }, limit: 50 }),
        tickets.count({ 'assignedAgent._id': null }),
      ]),
    mineStatus50: () =>
      Promise.all([
        tickets.find({ 'assignedAgent._id': 'agent-1' }, { sort: { statusRank: 1, createdAt: -1 }, limit: 50 }),
        tickets.count({ 'assignedAgent._id': 'agent-1' }),
      ]),
    search50: () =>
      Promise.all([
        tickets.find({ search: { $regex: 'ticket 4242' } }, { sort: { createdAt: -1, ticketId: -1 }, limit: 50 }),
        tickets.count({ search: { $regex: 'ticket 4242' } }),
      ]),
  };
  const result: Record<string, { p50: number; p99: number }> = {};
  for (const [name, query] of Object.entries(queries).filter(([name]) => !only || name === only)) {
    const times: number[] = [];
    const first = process.hrtime.bigint();
    await query();
    result[`${name}First`] = { p50: Number((Number(process.hrtime.bigint() - first) / 1e6).toFixed(1)), p99: Number.NaN };
    for (let i = 0; i < 60; i++) {
      const started = process.hrtime.bigint();
      await query();
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    result[name] = { p50: Number(times[30]!.toFixed(2)), p99: Number(times[59]!.toFixed(2)) };
  }
  process.stdout.write(`${JSON.stringify({ tickets: count, ...result, rssMb: Math.round(process.memoryUsage().rss / 1048576) })}\n`);
}

void main();
