import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { ticketsProjection } from '../../projections/tickets';

/**
 * Merges fired at the same moment, many times over (docs/tickets.md, merges under races): two agents
 * merging two tickets into each other, and a ticket merged into one that is itself being merged on.
 * After every round: following `mergedInto` from any ticket ends at a live ticket that is not merged,
 * every customer message is in the ticket its conversation continues in, the customer can post to
 * their one open ticket (or open one), the statistics equal a rebuild, and every merge that landed
 * can be undone.
 */
const ROUNDS = 25;
const OPEN_STATUSES = 'open,in_progress,pending_customer';

interface Ticket {
  _id: string;
  ticketId: number;
  status: string;
  mergedInto: { _id: string | null; ticketId: number } | null;
}

describe('Merges under racing requests', () => {
  let server: TestServer;
  let admin: string;
  let agents: [Member, Member];
  let category: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    agents = [await addMember(server, admin, 'agent', 'Ann'), await addMember(server, admin, 'agent', 'Bob')];
    category = await addCategory(server, admin);
  });
  afterAll(() => server.stop());

  const get = (token: string, url: string) => server.request('GET', `/api${url}`, { token });
  const post = (token: string, url: string, body?: unknown) => server.request('POST', `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  const ticketOf = async (id: string): Promise<Ticket> => (await get(agents[0].token, `/tickets/${id}`)).body.ticket;

  /**
   * `count` tickets of a new customer, each with a message of the customer's own; only the one at
   * `openAt` stays open (a customer has one open ticket), the others are resolved.
   */
  async function customerWith(count: number, openAt: number, round: number) {
    const customer = await addMember(server, admin, 'customer');
    const tickets: Array<{ _id: string; words: string }> = [];
    const order = [...Array(count).keys()].filter((index) => index !== openAt).concat(openAt);
    for (const index of order) {
      const ticket = await openTicket(server, customer, category, { title: `Ticket ${index} of round ${round}` });
      const words = `round ${round}: the words of ticket ${index}`;
      expect((await post(customer.token, `/tickets/${ticket._id}/messages`, { content: words })).status).toBe(201);
      if (index !== openAt)
        expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agents[0].token, body: { status: 'resolved' } })).status).toBe(200);
      tickets[index] = { _id: ticket._id, words };
    }
    return { customer, tickets };
  }

  /** Where a ticket's conversation continues: `mergedInto` followed to its end, failing on a cycle or a dead end. */
  async function continuesIn(id: string, involved: number): Promise<Ticket> {
    const seen = new Set<string>();
    let ticket = await ticketOf(id);
    while (ticket.mergedInto) {
      seen.add(ticket._id);
      const next = ticket.mergedInto._id!;
      if (seen.has(next) || seen.size > involved) throw new Error(`mergedInto links from ${id} go round in a cycle: ${[...seen, next].join(' -> ')}`);
      ticket = await ticketOf(next);
      expect(ticket).toBeDefined();
    }
    return ticket;
  }

  async function expectWholeDesk(customer: Member, tickets: Array<{ _id: string; words: string }>) {
    for (const { _id, words } of tickets) {
      const home = await continuesIn(_id, tickets.length);
      const seen = (await get(customer.token, `/tickets/${home._id}`)).body.messages.map((message: { content: string }) => message.content);
      expect({ ticket: _id, continuesIn: home._id, has: seen.includes(words) }).toEqual({ ticket: _id, continuesIn: home._id, has: true });
    }
    const open: Ticket[] = (await get(customer.token, `/tickets?status=${OPEN_STATUSES}&limit=100`)).body.tickets;
    expect(open.length).toBeLessThanOrEqual(1);
    const another = await post(customer.token, '/tickets', { title: 'Another problem', description: 'Something else', category });
    if (open[0]) {
      expect(open[0].mergedInto).toBeNull();
      expect((await post(customer.token, `/tickets/${open[0]._id}/messages`, { content: 'Any news?' })).status).toBe(201);
      expect(another).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS', existingTicket: { _id: open[0]._id } } });
    } else {
      expect(another.status).toBe(201);
      await server.request('PUT', `/api/tickets/${another.body.ticket._id}`, { token: agents[0].token, body: { status: 'resolved' } });
    }
    const check = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection], server.deps.readStore, {
      livePosition: () => server.deps.projections.position,
    });
    expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
  }

  /** Undoes every merge that landed, the end of a chain first; the customer's words are then each in their own ticket again. */
  async function unmergeAll(customer: Member, tickets: Array<{ _id: string; words: string }>) {
    for (let pass = 0; pass < tickets.length; pass++) {
      for (const { _id } of tickets) {
        const ticket = await ticketOf(_id);
        if (!ticket.mergedInto || (await ticketOf(ticket.mergedInto._id!)).mergedInto) continue;
        const undone = await post(agents[1].token, `/tickets/${_id}/unmerge`);
        expect({ ticket: _id, status: undone.status, body: undone.body }).toMatchObject({ ticket: _id, status: 200 });
      }
    }
    for (const { _id, words } of tickets) {
      expect((await ticketOf(_id)).mergedInto).toBeNull();
      expect((await get(customer.token, `/tickets/${_id}`)).body.messages.map((message: { content: string }) => message.content)).toContain(words);
    }
  }

  const merge = (agent: Member, source: string, target: string) => post(agent.token, `/tickets/${source}/merge`, { target });
  /**
   * A merge lands (200) or is refused with a reason (409 and its code), never anything else; answers
   * whether it lost a race (the target went away between its two appends).
   */
  function lostRace(answer: { status: number; body: { code?: string } }) {
    expect(answer.status === 200 || (answer.status === 409 && typeof answer.body.code === 'string') ? 'answered' : answer).toBe('answered');
    return answer.body.code === 'MERGE_CONFLICT';
  }

  it('when two agents merge two tickets into each other at once, then no cycle forms and the customer keeps a ticket to write in', async () => {
    let raced = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { customer, tickets } = await customerWith(2, round % 2, round);
      const [a, b] = tickets as [{ _id: string; words: string }, { _id: string; words: string }];
      const answers = await Promise.all([merge(agents[0], a._id, b._id), merge(agents[1], b._id, a._id)]);
      raced += answers.filter(lostRace).length;
      await expectWholeDesk(customer, tickets);
      await unmergeAll(customer, tickets);
    }
    // The requests did meet between each other's appends, not one after the other (nearly every round here).
    expect(raced).toBeGreaterThan(0);
  }, 240_000);

  it('when a ticket is merged into one that is at once merged into a third, then no words are left behind', async () => {
    let raced = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { customer, tickets } = await customerWith(3, round % 3, round);
      const [a, b, c] = tickets as Array<{ _id: string; words: string }>;
      const answers = await Promise.all([merge(agents[0], a!._id, b!._id), merge(agents[1], b!._id, c!._id)]);
      raced += answers.filter(lostRace).length;
      await expectWholeDesk(customer, tickets);
      await unmergeAll(customer, tickets);
    }
    // The requests did meet between each other's appends, not one after the other (nearly every round here).
    expect(raced).toBeGreaterThan(0);
  }, 240_000);
});
