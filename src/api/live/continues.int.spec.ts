import { type Member, addMember, openTicket } from '../../../test/support/desk';
import { type LiveClient, liveDesk } from '../../../test/support/liveClient';
import type { ResyncAnswer } from '#contract/live';

const WAIT_MS = 10_000;

/** docs/tickets.md, merging: the customer's browser is told once which ticket continues (`ticket_continues`). */
describe('Live channel > a customer told where their ticket continues', () => {
  const desk = liveDesk();
  const { connect } = desk;
  const request = (method: string, url: string, token: string, body?: unknown) =>
    desk.server.request(method, `/api${url}`, { token, ...(body === undefined ? {} : { body }) });
  const ok = async (method: string, url: string, token: string, body?: unknown) => {
    const answer = await request(method, url, token, body);
    if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const say = async (member: Member, ticketId: string, content: string, isInternal = false) =>
    (await ok('POST', `/tickets/${ticketId}/messages`, member.token, { content, isInternal })).message._id as string;

  /** A customer's closed ticket and their open duplicate. */
  async function pairOf(customer: Member) {
    const kept = await openTicket(desk.server, customer, desk.category, { title: 'Printer jams' });
    await ok('PUT', `/tickets/${kept._id}`, desk.agent.token, { status: 'closed' });
    const duplicate = await openTicket(desk.server, customer, desk.category, { title: 'Printer jams again' });
    return { kept, duplicate };
  }

  /** Every push of the event has gone out once the later `ticket_updated` of `ticketId` reached `client` (pushes go in log order). */
  const settled = (client: LiveClient, ticketId: string) => client.next('ticket_updated', (payload) => payload.ticket._id === ticketId, WAIT_MS);

  it('when an agent merges a customer’s duplicate, then that customer’s browsers are told once, and nobody else', async () => {
    const cara = await addMember(desk.server, desk.admin, 'customer', 'Cara');
    const dan = await addMember(desk.server, desk.admin, 'customer', 'Dan');
    const { kept, duplicate } = await pairOf(cara);
    const [caraTab, caraOtherTab, danTab, staffTab] = await Promise.all([
      connect(cara.token),
      connect(cara.token),
      connect(dan.token),
      connect(desk.agent.token),
    ]);

    await ok('POST', `/tickets/${duplicate._id}/merge`, desk.agent.token, { target: String(kept.ticketId) });
    await Promise.all([settled(caraTab, kept._id), settled(caraOtherTab, kept._id), settled(staffTab, kept._id)]);

    for (const tab of [caraTab, caraOtherTab]) {
      expect(tab.events('ticket_continues')).toEqual([
        {
          kind: 'merged',
          ticket: { _id: duplicate._id, ticketId: duplicate.ticketId },
          continuesIn: { _id: kept._id, ticketId: kept.ticketId },
          position: expect.any(Number),
        },
      ]);
    }
    expect(danTab.events('ticket_continues')).toEqual([]);
    expect(staffTab.events('ticket_continues')).toEqual([]);

    // A reconnect resumes after what the tab has seen: the notice is not sent again.
    const seen = Math.max(...caraTab.received.map((r) => (r.payload?.position as number | undefined) ?? 0));
    const back = await connect(cara.token);
    const answer: ResyncAnswer = await back.socket.timeout(WAIT_MS).emitWithAck('resync', { after: seen });
    expect(answer).toMatchObject({ ok: true, complete: true });
    expect(back.events('ticket_continues')).toEqual([]);
  });

  it('when a tab was offline during the merge, then its resync brings the notice once', async () => {
    const cara = await addMember(desk.server, desk.admin, 'customer', 'Cora');
    const { kept, duplicate } = await pairOf(cara);
    const before = await connect(cara.token);
    await say(desk.agent, duplicate._id, 'Looking into it');
    const { position: lastSeen } = await before.next('ticket_message', () => true, WAIT_MS);
    before.socket.disconnect();

    await ok('POST', `/tickets/${duplicate._id}/merge`, desk.agent.token, { target: String(kept.ticketId) });
    const back = await connect(cara.token);
    await back.socket.timeout(WAIT_MS).emitWithAck('resync', { after: lastSeen });
    expect(back.events('ticket_continues').map((p) => p.continuesIn)).toEqual([{ _id: kept._id, ticketId: kept.ticketId }]);
  });

  it('when an admin merges one customer’s ticket into another’s, then the source’s customer learns the number only, and the other customer nothing', async () => {
    const erin = await addMember(desk.server, desk.admin, 'customer', 'Erin');
    const fay = await addMember(desk.server, desk.admin, 'customer', 'Fay');
    const erinTicket = await openTicket(desk.server, erin, desk.category, { title: 'Shared printer' });
    const fayTicket = await openTicket(desk.server, fay, desk.category, { title: 'Shared printer too' });
    const [erinTab, fayTab] = await Promise.all([connect(erin.token), connect(fay.token)]);

    await ok('POST', `/tickets/${erinTicket._id}/merge`, desk.admin, { target: fayTicket._id });
    await Promise.all([settled(erinTab, erinTicket._id), settled(fayTab, fayTicket._id)]);

    expect(erinTab.events('ticket_continues')).toEqual([
      {
        kind: 'merged',
        ticket: { _id: erinTicket._id, ticketId: erinTicket.ticketId },
        continuesIn: { _id: null, ticketId: fayTicket.ticketId },
        position: expect.any(Number),
      },
    ]);
    expect(fayTab.events('ticket_continues')).toEqual([]);
  });

  it('when an agent moves a customer’s message to a new ticket, then they are told where it continues; a note moved alone tells them nothing', async () => {
    const gil = await addMember(desk.server, desk.admin, 'customer', 'Gil');
    const ticket = await openTicket(desk.server, gil, desk.category, { title: 'Two problems' });
    const scanner = await say(gil, ticket._id, 'Also my scanner is offline');
    const note = await say(desk.agent, ticket._id, 'Scanner: check the firmware', true);
    // Answered, so that a split may resolve the ticket (a split never resolves an unanswered question).
    await say(desk.agent, ticket._id, 'We are looking into both');
    const [gilTab, staffTab] = await Promise.all([connect(gil.token), connect(desk.agent.token)]);

    const quiet = await ok('POST', `/tickets/${ticket._id}/split`, desk.agent.token, { messageId: note, withFollowing: false, title: 'Firmware' });
    await gilTab.next('ticket_updated', (payload) => payload.ticket._id === ticket._id && payload.ticket.status === 'resolved', WAIT_MS);
    expect(gilTab.events('ticket_continues')).toEqual([]);
    await ok('PUT', `/tickets/${quiet.ticket._id}`, desk.agent.token, { status: 'resolved' });
    const moved = await ok('POST', `/tickets/${ticket._id}/split`, desk.agent.token, { messageId: scanner, withFollowing: false, title: 'Scanner offline' });
    await Promise.all([gilTab, staffTab].map((tab) => tab.next('new_ticket', (payload) => payload.ticket._id === moved.ticket._id, WAIT_MS)));

    expect(gilTab.events('ticket_continues')).toEqual([
      {
        kind: 'moved',
        ticket: { _id: ticket._id, ticketId: ticket.ticketId },
        continuesIn: { _id: moved.ticket._id, ticketId: moved.ticket.ticketId },
        position: expect.any(Number),
      },
    ]);
    expect(staffTab.events('ticket_continues')).toEqual([]);
  });
});
