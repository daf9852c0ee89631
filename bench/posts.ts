/**
 * `npx tsx --conditions=source bench/posts.ts [--posts 2000] [--clients 20] [--stores sqlite,memory] [--rounds 1]`:
 * the write side of chat in-process, without autocannon's process between: a test server (port 0,
 * its own DATA_DIR) per read store, a customer and a ticket per client, then every client posts its
 * share of the messages one after another, all clients at once. Prints posts per second per store
 * and the process's CPU per post, worker threads included (steadier than the rate on a shared
 * machine); the stores alternate, first in one round and last in the next, after a warm-up load that
 * is not counted, so both meet the same machine; and the projection pages
 * applied meanwhile and the posts a page held (one commit serves them all). `--profile <path>` takes a CPU profile of the posts only;
 * `bench/profile.ts` reads it as milliseconds per post. `--statements` adds, per store, every SQLite statement's count
 * and native time per post (bench/statementTimes.ts), main thread only (the test server applies the log on it).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { addCategory, addMember } from '../test/support/desk';
import { startTestServer } from '../test/support/server';
import { timeStatements } from './statementTimes';

async function load(
  store: string,
  posts: number,
  clients: number,
  profile: string | undefined,
  statements: ReturnType<typeof timeStatements> | null = null,
): Promise<{ perSecond: number; cpuMs: number; pages: number; perPage: number }> {
  const server = await startTestServer({ env: { READSTORE: store } });
  try {
    const admin = await server.login();
    const category = await addCategory(server, admin);
    const members = await Promise.all(Array.from({ length: clients }, () => addMember(server, admin, 'customer')));
    const tickets = await Promise.all(
      members.map(async (member) => {
        const opened = await server.request('POST', '/api/tickets', {
          token: member.token,
          body: { title: 'Cannot sign in', description: 'The page keeps reloading', category },
        });
        if (opened.status !== 201) throw new Error(`could not open a ticket: ${opened.status}`);
        return { token: member.token, id: opened.body.ticket._id as string };
      }),
    );
    const pagesBefore = server.deps.projections.pagesApplied;
    const session = profile ? new Session() : null;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    statements?.reset();
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    await Promise.all(
      tickets.map(async (ticket, client) => {
        for (let sent = 0; sent < posts / clients; sent++) {
          const posted = await server.request('POST', `/api/tickets/${ticket.id}/messages`, {
            token: ticket.token,
            body: { content: `in-process load message ${sent} from client ${client}` },
          });
          if (posted.status !== 201) throw new Error(`a post answered ${posted.status}: ${JSON.stringify(posted.body)}`);
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    if (statements) process.stdout.write(`${store}, ${statements.table(posts)}\n`);
    if (session) {
      const { profile: taken } = await session.post('Profiler.stop');
      writeFileSync(`${profile}.${store}.cpuprofile`, JSON.stringify(taken));
      session.disconnect();
    }
    const pages = server.deps.projections.pagesApplied - pagesBefore;
    return { perSecond: posts / seconds, cpuMs: (used.user + used.system) / 1000 / posts, pages, perPage: posts / Math.max(pages, 1) };
  } finally {
    await server.stop();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string', default: '2000' },
      clients: { type: 'string', default: '20' },
      stores: { type: 'string', default: 'sqlite,memory' },
      rounds: { type: 'string', default: '1' },
      /** Writes the CPU profile of each store's load (the posts only, not the desk's setup) to <profile>.<store>.cpuprofile. */
      profile: { type: 'string' },
      /** Prints each store's SQLite statements per post: count and native time (bench/statementTimes.ts). */
      statements: { type: 'boolean', default: false },
    },
  });
  const posts = Number(values.posts);
  const clients = Number(values.clients);
  const stores = values.stores.split(',');
  const statements = values.statements ? timeStatements() : null;
  // Not counted: the first load in a process also compiles the code every store shares.
  await load(stores[0]!, Math.min(posts, 200), clients, undefined);
  for (let round = 1; round <= Number(values.rounds); round++)
    for (const store of round % 2 === 1 ? stores : [...stores].reverse()) {
      const { perSecond, cpuMs, pages, perPage } = await load(store, posts, clients, values.profile, statements);
      const figures = { postsPerSecond: Math.round(perSecond), cpuMsPerPost: Number(cpuMs.toFixed(2)), pages, postsPerPage: Number(perPage.toFixed(1)) };
      process.stdout.write(`${JSON.stringify({ round, store, posts, clients, ...figures })}\n`);
    }
}

void main();
