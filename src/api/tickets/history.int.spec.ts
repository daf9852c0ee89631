import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

interface Entry {
  revision: number;
  type: string;
  at: string;
  summary: string;
  actor: { userId: string; name: string; role: string; platform: string } | null;
  hash: string;
}

/**
 * A ticket's whole life, replayed: one ticket goes through assignment, conversation, an edit, an
 * internal note, an outcome and its change, unassignment and deletion, each at its own minute.
 */
describe('Ticket history and time travel over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let alice: Member;
  let carol: Member;
  let ticket: { _id: string; ticketId: number };
  let messageId: string;
  const now = { value: new Date('2026-11-21T09:00:00.000Z') };
  const minute = (n: number) => new Date(Date.parse('2026-11-21T09:00:00.000Z') + n * 60_000);
  const at = (n: number) => minute(n).toISOString();

  const get = (path: string, token = admin) => server.request('GET', path, { token });
  const history = async () => (await get(`/api/tickets/${ticket._id}/history`)).body as { events: Entry[]; integrity: { ok: boolean }; number: number };

  beforeAll(async () => {
    server = await startTestServer({ clock: () => now.value });
    admin = await server.login();
    alice = await addMember(server, admin, 'agent', 'Alice');
    carol = await addMember(server, admin, 'customer', 'Carol');
    const category = await addCategory(server, admin, { name: 'Printers' });

    const act = async (n: number, method: 'POST' | 'PUT' | 'DELETE', path: string, token: string, body?: Record<string, unknown>) => {
      now.value = minute(n);
      const answer = await server.request(method, path, { token, ...(body ? { body } : {}) });
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    now.value = minute(0);
    ticket = await openTicket(server, carol, category, { title: 'Printer jams', description: 'Every second page', priority: 'high' });
    const id = ticket._id;
    await act(1, 'POST', `/api/tickets/${id}/assign`, alice.token, { agentId: alice.id }); // 1 assigned, 2 status → in_progress
    await act(2, 'POST', `/api/tickets/${id}/messages`, alice.token, { content: 'Which tray do you use?' }); // 3
    messageId = (await act(3, 'POST', `/api/tickets/${id}/messages`, carol.token, { content: 'Tray one' })).message._id; // 4
    await act(4, 'PUT', `/api/messages/${messageId}`, carol.token, { content: 'Tray two, sorry' }); // 5
    await act(5, 'POST', `/api/tickets/${id}/messages`, alice.token, { content: 'Roller worn out', isInternal: true }); // 6
    await act(6, 'PUT', `/api/tickets/${id}/outcome`, alice.token, { outcomeMessage: 'Replace the roller' }); // 7
    await act(7, 'PUT', `/api/tickets/${id}/outcome`, alice.token, { outcomeMessage: 'Replaced the roller of tray two' }); // 8
    await act(8, 'PUT', `/api/tickets/${id}`, alice.token, { status: 'resolved' }); // 9
    await act(9, 'PUT', `/api/tickets/${id}`, admin, { assignedAgent: null }); // 10
    await act(10, 'POST', `/api/tickets/${id}/messages/read`, carol.token); // 11
  });
  afterAll(() => server.stop());

  describe('when staff read the history', () => {
    it('then every event comes in order with its type, summary, actor and time', async () => {
      const { events, integrity, number } = await history();
      expect(number).toBe(ticket.ticketId);
      expect(events.map((e) => [e.revision, e.type, e.at])).toEqual([
        [0, 'TicketOpened', at(0)],
        [1, 'AgentAssignedToTicket', at(1)],
        [2, 'TicketStatusChanged', at(1)],
        [3, 'MessagePosted', at(2)],
        [4, 'MessagePosted', at(3)],
        [5, 'MessageEdited', at(4)],
        [6, 'MessagePosted', at(5)],
        [7, 'TicketOutcomeRecorded', at(6)],
        [8, 'TicketOutcomeRecorded', at(7)],
        [9, 'TicketStatusChanged', at(8)],
        [10, 'AgentUnassignedFromTicket', at(9)],
        [11, 'MessagesRead', at(10)],
      ]);
      expect(events.map((e) => e.summary)).toEqual([
        `Opened ticket #${ticket.ticketId} "Printer jams" for Carol Tester (Printers, priority high) via the web`,
        'Assigned the ticket to Alice Tester',
        'Changed the status from open to in progress',
        'Sent a message "Which tray do you use?"',
        'Sent a message "Tray one"',
        'Edited a message from "Tray one" to "Tray two, sorry"',
        'Added an internal note "Roller worn out"',
        'Recorded the outcome "Replace the roller"',
        'Changed the outcome from "Replace the roller" to "Replaced the roller of tray two"',
        'Changed the status from in progress to resolved',
        'Unassigned Alice Tester',
        'Carol Tester read the conversation up to message 2',
      ]);
      expect(events[4]!.actor).toEqual({ userId: carol.id, username: expect.any(String), name: 'Carol Tester', role: 'customer', platform: 'web' });
      expect(events[10]!.actor).toMatchObject({ name: 'System Administrator', role: 'admin' });
      expect(events.every((e) => /^[0-9a-f]{64}$/.test(e.hash))).toBe(true);
      expect(integrity).toMatchObject({ ok: true, firstBreak: null, head: events.at(-1)!.hash });
    });

    it('then the display number finds it too, and only staff may read it', async () => {
      expect((await get(`/api/tickets/${ticket.ticketId}/history`)).body.events).toHaveLength(12);
      expect((await get(`/api/tickets/${ticket._id}/history`, alice.token)).status).toBe(200);
      expect((await get(`/api/tickets/${ticket._id}/history`, carol.token)).status).toBe(403);
      expect((await get('/api/tickets/no-such-ticket/history')).status).toBe(404);
      expect((await get('/api/tickets/99999/history')).status).toBe(404);
    });
  });

  describe('when staff travel to a revision', () => {
    const travel = async (query: string, token = admin) => (await get(`/api/tickets/${ticket._id}/at?${query}`, token)).body;

    it('then revision 0 shows the ticket as it was opened', async () => {
      const body = await travel('revision=0');
      expect(body).toMatchObject({ revision: 0, at: at(0), latestRevision: 11, deleted: false, messages: [] });
      expect(body.ticket).toMatchObject({
        status: 'open',
        assignedAgent: null,
        outcomeMessage: null,
        messageCount: 0,
        title: 'Printer jams',
        customer: { firstName: 'Carol' },
      });
    });

    it('then the message reads as it did before and after its edit, with every version for staff', async () => {
      const before = await travel('revision=4');
      expect(before.ticket).toMatchObject({ status: 'in_progress', assignedAgent: { _id: alice.id } });
      expect(before.messages.map((m: { content: string }) => m.content)).toEqual(['Which tray do you use?', 'Tray one']);
      expect(before.messages[1].versions).toBeUndefined();
      const after = await travel('revision=5');
      expect(after.messages[1]).toMatchObject({
        _id: messageId,
        content: 'Tray two, sorry',
        editedAt: at(4),
        versions: [
          { content: 'Tray one', at: at(3) },
          { content: 'Tray two, sorry', at: at(4) },
        ],
      });
    });

    it('then the outcome, its change and the unassignment appear at their revisions', async () => {
      expect((await travel('revision=7')).ticket).toMatchObject({
        outcomeMessage: 'Replace the roller',
        outcomeUpdatedAt: at(6),
        outcomeUpdatedBy: { _id: alice.id },
      });
      expect((await travel('revision=8')).ticket.outcomeMessage).toBe('Replaced the roller of tray two');
      const resolved = await travel('revision=9');
      expect(resolved.ticket).toMatchObject({ status: 'resolved', resolvedAt: at(8), assignedAgent: { _id: alice.id } });
      expect((await travel('revision=10')).ticket).toMatchObject({ status: 'resolved', assignedAgent: null });
      expect((await travel('revision=6')).messages.map((m: { isInternal: boolean }) => m.isInternal)).toEqual([false, false, true]);
    });

    it('then a time between two events shows the earlier one', async () => {
      const body = await travel(`time=${encodeURIComponent(new Date(minute(6).getTime() + 30_000).toISOString())}`);
      expect(body).toMatchObject({ revision: 7, at: at(6) });
      expect((await travel(`time=${encodeURIComponent('2026-11-21T10:09:30+01:00')}`)).revision).toBe(10);
    });

    it('then a bad moment is refused with a clear message', async () => {
      const refused = async (query: string) => {
        const answer = await get(`/api/tickets/${ticket._id}/at${query}`);
        return [answer.status, answer.body.error];
      };
      expect(await refused('')).toEqual([400, 'Give revision or time: the moment of the history to show']);
      expect(await refused('?revision=1&time=2026-11-21T09:00:00Z')).toEqual([400, 'Give either revision or time, not both']);
      expect(await refused('?revision=-1')).toEqual([400, 'revision must be a whole number']);
      expect(await refused('?revision=abc')).toEqual([400, 'revision must be a whole number']);
      expect(await refused('?revision=12')).toEqual([400, "Revision 12 does not exist: this ticket's history has revisions 0 to 11"]);
      expect(await refused('?time=yesterday')).toEqual([400, 'time must be an ISO-8601 date and time, for example 2026-11-21T09:30:00Z']);
      expect(await refused('?time=2026-11-21T08:00:00Z')).toEqual([400, `The ticket did not exist yet at 2026-11-21T08:00:00Z: it was opened at ${at(0)}`]);
    });
  });

  describe('when the customer travels back in their own ticket', () => {
    it('then they see their conversation as it read, without internal notes, the outcome or the stream', async () => {
      // A customer's revisions count only what they can see: the internal note (6), the outcomes (7, 8)
      // and the read mark (11) are not theirs, so their revision 5 is the edit and 7 the last.
      const body = (await get(`/api/tickets/${ticket._id}/at?revision=5`, carol.token)).body;
      expect(Object.keys(body).sort()).toEqual(['messages', 'satisfaction', 'ticket']);
      expect(body.messages.map((m: { content: string }) => m.content)).toEqual(['Which tray do you use?', 'Tray two, sorry']);
      expect(body.messages[1].versions).toBeUndefined();
      expect(body.ticket).toMatchObject({ outcomeMessage: null, messageCount: 2 });
      expect((await get(`/api/tickets/${ticket._id}/at?revision=7`, carol.token)).body.ticket).toMatchObject({ status: 'resolved', assignedAgent: null });
      expect((await get(`/api/tickets/${ticket._id}/at?revision=8`, carol.token)).body.error).toBe(
        "Revision 8 does not exist: this ticket's history has revisions 0 to 7",
      );
    });

    it("then another customer's ticket does not exist for them", async () => {
      const dave = await addMember(server, admin, 'customer', 'Dave');
      expect((await get(`/api/tickets/${ticket._id}/at?revision=0`, dave.token)).status).toBe(404);
    });
  });

  describe('when an admin deletes the ticket', () => {
    beforeAll(async () => {
      now.value = minute(11);
      expect((await server.request('DELETE', `/api/tickets/${ticket._id}`, { token: admin })).status).toBe(204);
    });

    it('then its history stays readable, ending with the deletion', async () => {
      const { events, integrity } = await history();
      expect(events.at(-1)).toMatchObject({
        revision: 12,
        type: 'TicketDeleted',
        at: at(11),
        summary: `Deleted ticket #${ticket.ticketId}`,
        actor: { role: 'admin' },
      });
      expect(integrity.ok).toBe(true);
      expect((await get(`/api/tickets/${ticket.ticketId}/history`)).status).toBe(200);
      expect((await get(`/api/tickets/${ticket._id}`)).status).toBe(404);
    });

    it('then staff can still travel through it, and the last moment shows it as it was when deleted', async () => {
      const last = (await get(`/api/tickets/${ticket._id}/at?revision=12`)).body;
      expect(last).toMatchObject({ revision: 12, deleted: true, ticket: { status: 'resolved', outcomeMessage: 'Replaced the roller of tray two' } });
      expect(last.messages).toHaveLength(3);
      expect((await get(`/api/tickets/${ticket._id}/at?revision=2`)).body).toMatchObject({ deleted: false, ticket: { status: 'in_progress' } });
      expect((await get(`/api/tickets/${ticket._id}/at?revision=2`, carol.token)).status).toBe(404);
    });
  });
});
