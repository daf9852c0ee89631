import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { checkProjections } from '../../projections/check';
import { directoryProjection } from '../../projections/directory';
import { ticketActivityProjection } from '../../projections/ticketActivity';
import { ticketsProjection } from '../../projections/tickets';

const DAY_MS = 86_400_000;

describe('Merging tickets (docs/tickets.md, merging)', () => {
  let server: TestServer;
  let admin: string;
  let agent: Member;
  let category: string;
  const clock = { now: new Date('2026-11-20T08:00:00.000Z') };
  const tick = (minutes = 1) => (clock.now = new Date(clock.now.getTime() + minutes * 60_000));

  beforeAll(async () => {
    server = await startTestServer({ clock: () => clock.now });
    admin = await server.login();
    agent = await addMember(server, admin, 'agent', 'Alice');
    category = await addCategory(server, admin);
  });
  afterAll(() => server.stop());

  const get = (token: string, url: string) => server.request('GET', `/api${url}`, { token });
  const post = (token: string, url: string, body?: unknown) => server.request('POST', `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  const say = async (member: { token: string }, ticketId: string, content: string, isInternal = false) => {
    tick();
    const sent = await post(member.token, `/tickets/${ticketId}/messages`, { content, isInternal });
    expect(sent.status).toBe(201);
    return sent.body.message._id as string;
  };
  const setStatus = async (ticketId: string, status: string) => {
    tick();
    expect((await server.request('PUT', `/api/tickets/${ticketId}`, { token: agent.token, body: { status } })).status).toBe(200);
  };
  const contents = (messages: Array<{ content: string; messageType: string }>) => messages.filter((m) => m.messageType !== 'system').map((m) => m.content);

  /** A customer's closed ticket (the target) and, opened after it, their open duplicate (the source). */
  async function duplicatePair(customer: Member) {
    tick();
    const target = await openTicket(server, customer, category, { title: 'Printer jams' });
    await say(customer, target._id, 'It jams on page two');
    await say(agent, target._id, 'Try the rear tray');
    await setStatus(target._id, 'closed');
    tick();
    const source = await openTicket(server, customer, category, { title: 'Printer jams again' });
    await say(customer, source._id, 'Jammed again today on Friday');
    await say(agent, source._id, `Same printer as #${target.ticketId}`, true);
    return { target, source };
  }

  describe('when an agent merges a customer’s duplicate into their closed ticket', () => {
    let customer: Member;
    let pair: Awaited<ReturnType<typeof duplicatePair>>;
    let beforeMerge: string;
    let statsBefore: Record<string, unknown>;

    beforeAll(async () => {
      customer = await addMember(server, admin, 'customer', 'Cara');
      pair = await duplicatePair(customer);
      await post(customer.token, `/tickets/${pair.target._id}/messages/read`);
      await post(customer.token, `/tickets/${pair.source._id}/messages/read`);
      statsBefore = (await get(agent.token, '/tickets/stats')).body;
      beforeMerge = tick().toISOString();
      tick();
      const merged = await post(agent.token, `/tickets/${pair.source._id}/merge`, { target: `#${pair.target.ticketId}` });
      expect(merged.status).toBe(200);
      expect(merged.body.ticket).toMatchObject({
        _id: pair.target._id,
        status: 'open',
        mergedFrom: [{ _id: pair.source._id, ticketId: pair.source.ticketId }],
      });
    });

    it('then the target shows both conversations in time order, each merged message marked with its origin, and the note stays a note', async () => {
      const staff = await get(agent.token, `/tickets/${pair.target._id}`);
      expect(contents(staff.body.messages)).toEqual([
        'It jams on page two',
        'Try the rear tray',
        'Jammed again today on Friday',
        `Same printer as #${pair.target.ticketId}`,
      ]);
      const merged = staff.body.messages.filter((m: { mergedFrom?: unknown }) => m.mergedFrom);
      expect(merged).toMatchObject([
        { isInternal: false, mergedFrom: { _id: pair.source._id, ticketId: pair.source.ticketId }, ticket: pair.target._id },
        { isInternal: true, mergedFrom: { _id: pair.source._id, ticketId: pair.source.ticketId } },
      ]);
      const theirs = await get(customer.token, `/tickets/${pair.target._id}`);
      expect(contents(theirs.body.messages)).toEqual(['It jams on page two', 'Try the rear tray', 'Jammed again today on Friday']);
      expect(theirs.body.ticket.messageCount).toBe(3);
      // Found by the merged words in the ticket they are now in.
      const found = await get(customer.token, '/tickets?q=friday%20jammed');
      expect(found.body.tickets.map((t: { _id: string }) => t._id)).toContain(pair.target._id);
      const page = await get(customer.token, `/tickets/${pair.target._id}/messages`);
      expect(page.body.messages.map((m: { isInternal: boolean }) => m.isInternal)).toEqual([false, false, false]);
    });

    it('then the source is closed and redirects, for its customer too, and takes no more messages', async () => {
      for (const token of [agent.token, customer.token]) {
        const source = await get(token, `/tickets/${pair.source._id}`);
        expect(source.body.ticket).toMatchObject({ status: 'closed', mergedInto: { _id: pair.target._id, ticketId: pair.target.ticketId } });
        // The source keeps its own conversation, as it was written.
        expect(contents(source.body.messages)).toContain('Jammed again today on Friday');
      }
      const refused = await post(agent.token, `/tickets/${pair.source._id}/messages`, { content: 'still here?', isInternal: false });
      expect(refused).toMatchObject({ status: 409, body: { code: 'TICKET_MERGED' } });
    });

    it('then nothing the customer had read is unread, and the one-open-ticket rule names the target', async () => {
      expect((await get(customer.token, `/tickets/${pair.target._id}`)).body.unreadCount).toBe(0);
      const listed = await get(customer.token, '/tickets');
      expect(listed.body.tickets.map((t: { _id: string; unreadCount: number }) => [t._id, t.unreadCount])).toEqual(
        expect.arrayContaining([[pair.target._id, 0]]),
      );
      const another = await server.request('POST', '/api/tickets', { token: customer.token, body: { title: 'x', description: 'y', category } });
      expect(another).toMatchObject({ status: 409, body: { code: 'OPEN_TICKET_EXISTS', existingTicket: { _id: pair.target._id } } });
    });

    it('then the dashboard counts no new ticket and no resolution', async () => {
      const after = (await get(agent.token, '/tickets/stats')).body;
      for (const key of ['total', 'weekTickets', 'todayTickets', 'open', 'closed', 'avgResponseTime'] as const) expect(after[key]).toEqual(statsBefore[key]);
      // The target was the one resolution (closed after 3 minutes); reopened, it is none, and the merged source is not one either.
      expect([statsBefore.avgResolutionTime, after.avgResolutionTime]).toEqual([3, 0]);
    });

    it('then the target as of before the merge shows only its own conversation', async () => {
      const then = await get(agent.token, `/tickets/${pair.target._id}/at?time=${encodeURIComponent(beforeMerge)}`);
      expect(then.status).toBe(200);
      expect(then.body.ticket).toMatchObject({ status: 'closed', mergedFrom: [] });
      expect(contents(then.body.messages)).toEqual(['It jams on page two', 'Try the rear tray']);
      const now = await get(customer.token, `/tickets/${pair.target._id}/at?time=${encodeURIComponent(clock.now.toISOString())}`);
      expect(contents(now.body.messages)).toEqual(['It jams on page two', 'Try the rear tray', 'Jammed again today on Friday']);
    });

    it('then a repeated merge (as after a crash between the two appends) changes nothing', async () => {
      const again = await post(agent.token, `/tickets/${pair.source._id}/merge`, { target: pair.target._id });
      expect(again.status).toBe(200);
      expect(contents((await get(agent.token, `/tickets/${pair.target._id}`)).body.messages)).toHaveLength(4);
    });

    describe('and then undoes it', () => {
      beforeAll(async () => {
        await say(customer, pair.target._id, 'Written after the merge');
        tick();
        const undone = await post(agent.token, `/tickets/${pair.source._id}/unmerge`);
        expect(undone.status).toBe(200);
        expect(undone.body.ticket).toMatchObject({ _id: pair.source._id, status: 'open', mergedInto: null });
      });

      it('then both tickets are as they were, and the message written since stays in the target', async () => {
        const target = await get(agent.token, `/tickets/${pair.target._id}`);
        expect(target.body.ticket).toMatchObject({ status: 'closed', mergedFrom: [], messageCount: 3 });
        expect(contents(target.body.messages)).toEqual(['It jams on page two', 'Try the rear tray', 'Written after the merge']);
        const source = await get(customer.token, `/tickets/${pair.source._id}`);
        expect(contents(source.body.messages)).toEqual(['Jammed again today on Friday']);
        expect(await say(customer, pair.source._id, 'Back in my own ticket')).toEqual(expect.any(String));
      });

      it('then the history of both shows the merge and the unmerge with who did them', async () => {
        for (const id of [pair.source._id, pair.target._id]) {
          const history = await get(agent.token, `/tickets/${id}/history`);
          const merges = history.body.events.filter((e: { type: string }) => /Merge/.test(e.type));
          expect(merges).toHaveLength(2);
          for (const event of merges) expect(event.actor).toMatchObject({ userId: agent.id, name: 'Alice Tester' });
          expect(merges.map((e: { summary: string }) => e.summary).join(' / ')).toMatch(/Merged .* \/ Undid the merge/);
        }
      });

      it('then the read models rebuilt from the log equal the live ones, and the hash chains verify', async () => {
        const check = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection], server.deps.readStore, {
          livePosition: () => server.deps.projections.position,
        });
        expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
        expect((await get(admin, '/audit/verify')).body).toMatchObject({ ok: true, logChain: true });
      });
    });
  });

  describe('when the tickets belong to two customers', () => {
    let ann: Member;
    let ben: Member;
    let annTicket: { _id: string; ticketId: number };
    let benTicket: { _id: string; ticketId: number };

    beforeAll(async () => {
      [ann, ben] = await Promise.all([addMember(server, admin, 'customer', 'Ann'), addMember(server, admin, 'customer', 'Ben')]);
      tick();
      annTicket = await openTicket(server, ann, category, { title: 'VPN down' });
      benTicket = await openTicket(server, ben, category, { title: 'VPN down for me too' });
      await say(ben, benTicket._id, 'My secret serial is 1234');
    });

    it('then an agent may not merge them', async () => {
      const refused = await post(agent.token, `/tickets/${benTicket._id}/merge`, { target: annTicket._id });
      expect(refused).toMatchObject({ status: 403, body: { code: 'DIFFERENT_CUSTOMERS' } });
    });

    it('then an admin may, and neither customer sees the other’s ticket through it', async () => {
      expect((await post(admin, `/tickets/${benTicket._id}/merge`, { target: annTicket._id })).status).toBe(200);
      const staff = await get(agent.token, `/tickets/${annTicket._id}`);
      expect(contents(staff.body.messages)).toContain('My secret serial is 1234');
      const annSees = await get(ann.token, `/tickets/${annTicket._id}`);
      expect(contents(annSees.body.messages)).not.toContain('My secret serial is 1234');
      expect(annSees.body.ticket.messageCount).toBe(0);
      expect((await get(ann.token, '/tickets?q=serial')).body.tickets).toEqual([]);
      expect((await get(agent.token, '/tickets?q=serial')).body.tickets.map((t: { _id: string }) => t._id)).toContain(annTicket._id);
      const benSees = await get(ben.token, `/tickets/${benTicket._id}`);
      // Ben is told which ticket continues, but not given a way into it.
      expect(benSees.body.ticket.mergedInto).toEqual({ _id: null, ticketId: annTicket.ticketId });
      expect((await get(ben.token, `/tickets/${annTicket._id}`)).status).toBe(404);
      const at = await get(ann.token, `/tickets/${annTicket._id}/at?time=${encodeURIComponent(clock.now.toISOString())}`);
      expect(contents(at.body.messages)).not.toContain('My secret serial is 1234');
    });
  });

  describe('when a merge is older than the undo window', () => {
    it('then it can no longer be undone', async () => {
      const customer = await addMember(server, admin, 'customer', 'Dan');
      const { source, target } = await duplicatePair(customer);
      tick();
      expect((await post(agent.token, `/tickets/${source._id}/merge`, { target: target._id })).status).toBe(200);
      clock.now = new Date(clock.now.getTime() + 8 * DAY_MS);
      expect(await post(agent.token, `/tickets/${source._id}/unmerge`)).toMatchObject({ status: 403, body: { code: 'UNMERGE_WINDOW_EXPIRED' } });
      expect(await post(customer.token, `/tickets/${source._id}/merge`, { target: target._id })).toMatchObject({ status: 403 });
      expect(await post(agent.token, `/tickets/${source._id}/merge`, {})).toMatchObject({ status: 400, body: { error: 'target is required' } });
    });
  });

  describe('when an agent relates two tickets', () => {
    it('then both list each other for staff, customers see no relation, and removing it clears both', async () => {
      const [ann, ben] = await Promise.all([addMember(server, admin, 'customer', 'Ann'), addMember(server, admin, 'customer', 'Ben')]);
      tick();
      const [one, two] = await Promise.all([openTicket(server, ann, category), openTicket(server, ben, category)]);
      const related = await post(agent.token, `/tickets/${one._id}/related`, { target: `${two.ticketId}` });
      expect(related.body.ticket.related).toEqual([{ _id: two._id, ticketId: two.ticketId }]);
      expect((await get(agent.token, `/tickets/${two._id}`)).body.ticket.related).toEqual([{ _id: one._id, ticketId: one.ticketId }]);
      expect((await get(ann.token, `/tickets/${one._id}`)).body.ticket.related).toEqual([]);
      expect((await post(ann.token, `/tickets/${one._id}/related`, { target: two._id })).status).toBe(403);
      const removed = await server.request('DELETE', `/api/tickets/${two._id}/related/${one._id}`, { token: agent.token });
      expect(removed.body.ticket.related).toEqual([]);
      expect((await get(agent.token, `/tickets/${one._id}`)).body.ticket.related).toEqual([]);
      const history = await get(agent.token, `/tickets/${one._id}/history`);
      expect(history.body.events.map((e: { summary: string }) => e.summary)).toEqual(
        expect.arrayContaining([`Related this ticket to #${two.ticketId}`, `Removed the relation to #${two.ticketId}`]),
      );
    });
  });

  describe('when an agent moves a message and the customer’s later ones to a new ticket', () => {
    it('then the new ticket holds them, the old one shows "Moved to #N" where they were and is resolved, and rebuild equals live', async () => {
      const customer = await addMember(server, admin, 'customer', 'Fay');
      tick();
      const old = await openTicket(server, customer, category, { title: 'Invoice wrong' });
      await say(customer, old._id, 'The invoice total is off');
      await say(agent, old._id, 'Fixed the invoice');
      const moved = await say(customer, old._id, 'Also my password reset mail never comes');
      await say(agent, old._id, 'Looking at the mail', true);
      await say(customer, old._id, 'Still no mail');
      expect(await post(customer.token, `/tickets/${old._id}/split`, { messageId: moved, title: 'Password mail' })).toMatchObject({ status: 403 });
      expect(await post(agent.token, `/tickets/${old._id}/split`, { messageId: moved, title: ' ' })).toMatchObject({ status: 400 });
      expect(await post(agent.token, `/tickets/${old._id}/split`, { messageId: 'nope', title: 'Password mail' })).toMatchObject({ status: 404 });
      tick();
      const split = await post(agent.token, `/tickets/${old._id}/split`, { messageId: moved, withFollowing: true, title: 'Password mail' });
      expect(split.status).toBe(201);
      const created = split.body.ticket;
      expect(created).toMatchObject({ title: 'Password mail', status: 'open', customer: { _id: customer.id }, messageCount: 2 });
      const fresh = await get(customer.token, `/tickets/${created._id}`);
      expect((await get(customer.token, '/tickets?q=password')).body.tickets.map((t: { _id: string }) => t._id)).toEqual([created._id]);
      expect(contents(fresh.body.messages)).toEqual(['Also my password reset mail never comes', 'Still no mail']);
      const before = await get(agent.token, `/tickets/${old._id}`);
      expect(before.body.ticket).toMatchObject({ status: 'resolved', messageCount: 3 });
      expect(before.body.messages.map((m: { content: string }) => m.content)).toEqual([
        'The invoice total is off',
        'Fixed the invoice',
        `Moved to #${created.ticketId}`,
        'Looking at the mail',
        'Status changed to resolved',
      ]);
      // The customer's open ticket is now the new one.
      const another = await server.request('POST', '/api/tickets', { token: customer.token, body: { title: 'x', description: 'y', category } });
      expect(another).toMatchObject({ status: 409, body: { existingTicket: { _id: created._id } } });
      const history = await get(agent.token, `/tickets/${old._id}/history`);
      expect(history.body.events.find((e: { type: string }) => e.type === 'MessagesMovedOut')).toMatchObject({
        actor: { userId: agent.id },
        summary: `Moved 2 messages to the new ticket #${created.ticketId} "Password mail"`,
      });
      const check = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection, ticketActivityProjection], server.deps.readStore, {
        livePosition: () => server.deps.projections.position,
      });
      expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
    });
  });

  describe('when copies a merge or a split brought are moved on or edited', () => {
    it('then a merged message moves to a new ticket, an unmerge still gives the source back whole, a copy is never edited, and rebuild equals live', async () => {
      const customer = await addMember(server, admin, 'customer', 'Gus');
      const { source, target } = await duplicatePair(customer);
      const scanner = await say(customer, source._id, 'Also the scanner is offline');
      tick();
      expect((await post(agent.token, `/tickets/${source._id}/merge`, { target: target._id })).status).toBe(200);
      const copy = `${target._id}~${scanner}`;
      expect((await get(agent.token, `/tickets/${target._id}`)).body.messages.map((m: { _id: string }) => m._id)).toContain(copy);

      // Edited by its sender within the edit window, a copy is refused with the reason.
      const edit = await server.request('PUT', `/api/messages/${copy}`, { token: customer.token, body: { content: 'Scanner offline since Monday' } });
      expect(edit).toMatchObject({ status: 409, body: { code: 'COPIED_MESSAGE' } });

      // The printer questions that stay are answered first: a split never resolves an unanswered question.
      await say(agent, target._id, 'A technician will look at the printer');
      tick();
      const split = await post(agent.token, `/tickets/${target._id}/split`, { messageId: copy, title: 'Scanner offline' });
      expect(split.status).toBe(201);
      const scannerTicket = split.body.ticket;
      expect(scannerTicket).toMatchObject({ title: 'Scanner offline', description: 'Also the scanner is offline', messageCount: 1 });
      const targetNow = await get(agent.token, `/tickets/${target._id}`);
      expect(contents(targetNow.body.messages)).not.toContain('Also the scanner is offline');
      expect(targetNow.body.messages.map((m: { content: string }) => m.content)).toContain(`Moved to #${scannerTicket.ticketId}`);
      expect(targetNow.body.ticket).toMatchObject({ status: 'resolved', messageCount: 5 });

      // A copy a split brought moves on again by its record id.
      await post(agent.token, `/tickets/${scannerTicket._id}/messages`, { content: 'Which scanner model?' });
      const resolved = await server.request('PUT', `/api/tickets/${scannerTicket._id}`, { token: agent.token, body: { status: 'resolved' } });
      expect(resolved.status).toBe(200);
      tick();
      const again = await post(agent.token, `/tickets/${scannerTicket._id}/split`, { messageId: `${scannerTicket._id}~${scanner}`, title: 'Scanner, again' });
      expect(again.status).toBe(201);
      expect(contents((await get(agent.token, `/tickets/${again.body.ticket._id}`)).body.messages)).toEqual(['Also the scanner is offline']);
      expect((await get(agent.token, `/tickets/${scannerTicket._id}`)).body.ticket).toMatchObject({ messageCount: 1 });

      // The unmerge takes back what is still in the target; the source stands whole, as it was written (and open again: the others are resolved first).
      await server.request('PUT', `/api/tickets/${again.body.ticket._id}`, { token: agent.token, body: { status: 'resolved' } });
      const undone = await post(agent.token, `/tickets/${source._id}/unmerge`);
      expect(undone.status).toBe(200);
      const targetAfter = await get(agent.token, `/tickets/${target._id}`);
      expect(contents(targetAfter.body.messages).filter((c) => !c.startsWith('Moved to') && !c.startsWith('Status'))).toEqual([
        'It jams on page two',
        'Try the rear tray',
        'A technician will look at the printer',
      ]);
      expect(targetAfter.body.ticket).toMatchObject({ messageCount: 3, mergedFrom: [] });
      const sourceAfter = await get(agent.token, `/tickets/${source._id}`);
      expect(contents(sourceAfter.body.messages)).toEqual([
        'Jammed again today on Friday',
        `Same printer as #${target.ticketId}`,
        'Also the scanner is offline',
      ]);
      expect(sourceAfter.body.ticket).toMatchObject({ messageCount: 3, mergedInto: null });

      // The ticket the message went on to and the source now hold the same message: they cannot be merged.
      const shared = await post(agent.token, `/tickets/${again.body.ticket._id}/merge`, { target: source._id });
      expect(shared).toMatchObject({ status: 409, body: { code: 'SHARED_MESSAGES' } });

      const check = await checkProjections(server.deps.events, [directoryProjection, ticketsProjection, ticketActivityProjection], server.deps.readStore, {
        livePosition: () => server.deps.projections.position,
      });
      expect(check.collections.filter((c) => c.missing.count + c.extra.count + c.different.count > 0)).toEqual([]);
      expect((await get(admin, '/audit/verify')).body).toMatchObject({ ok: true, firstBreak: null });
    });
  });
});
