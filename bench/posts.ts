/**
 * `npx tsx --conditions=source bench/posts.ts [--posts 2000] [--clients 20] [--stores sqlite,memory] [--rounds 1]`:
 * the write side of chat in-process, without autocannon's process between: a test server (port 0,
 * its own DATA_DIR) per read store, a customer and a ticket per client, then every client posts its
 * share of the messages one after another, all clients at once. Prints posts per second per store
 * (the stores alternate within each round, so both meet the same machine), the projection pages
 * applied meanwhile and the posts a page held (one commit serves them all). `--profile <path>` takes a CPU profile of the posts only;
 * `bench/profile.ts` reads it as milliseconds per post.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { addCategory, addMember } from '../test/support/desk';
import { startTestServer } from '../test/support/server';

async function load(
  store: string,
  posts: number,
  clients: number,
  profile: string | undefined,
): Promise<{ perSecond: number; pages: number; perPage: number }> {
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
    const started = process.hrtime.bigint();
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
    if (session) {
      const { profile: taken } = await session.post('Profiler.stop');
      writeFileSync(`${profile}.${store}.cpuprofile`, JSON.stringify(taken));
      session.disconnect();
    }
    const pages = server.deps.projections.pagesApplied - pagesBefore;
    return { perSecond: posts / seconds, pages, perPage: posts / Math.max(pages, 1) };
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
    },
  });
  const posts = Number(values.posts);
  const clients = Number(values.clients);
  for (let round = 1; round <= Number(values.rounds); round++)
    for (const store of values.stores.split(',')) {
      const { perSecond, pages, perPage } = await load(store, posts, clients, values.profile);
      process.stdout.write(
        `${JSON.stringify({ round, store, posts, clients, postsPerSecond: Math.round(perSecond), pages, postsPerPage: Number(perPage.toFixed(1)) })}\n`,
      );
    }
}

void main();
