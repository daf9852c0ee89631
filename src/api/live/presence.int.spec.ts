import { type Member, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type LiveClient, liveDesk } from '../../../test/support/liveClient';
import type { TestServer } from '../../../test/support/server';
import type { PresenceSnapshot, TicketPresence } from '#contract/live';

const WAIT_MS = 10_000;

describe('Live channel > who is on a ticket (staff presence)', () => {
  const desk = liveDesk();
  const { connect } = desk;
  let server: TestServer;
  let admin: string;
  let alice: Member;
  let bob: Member;
  let category: string;
  beforeAll(async () => {
    ({ server, admin, agent: alice, category } = desk);
    bob = await addMember(server, admin, 'agent', 'Bob');
  }, 30_000);

  /** The latest presence a client was told for the ticket, once it satisfies `check`. */
  const presence = (client: LiveClient, ticketId: string, check: (viewers: TicketPresence['viewers']) => boolean) =>
    eventually(
      () => {
        const last = client
          .events('ticket_presence')
          .filter((p) => p.ticketId === ticketId)
          .at(-1) as TicketPresence | undefined;
        return last && check(last.viewers) ? last.viewers : undefined;
      },
      { timeoutMs: WAIT_MS, describe: 'presence' },
    );
  const names = (viewers: TicketPresence['viewers']) => viewers.map((viewer) => `${viewer.firstName}${viewer.replying ? ' (replying)' : ''}`).sort();

  it('when two agents open one ticket, then each sees the other, and who is replying, while the customer sees none of it', async () => {
    const owner = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, category);
    const [aliceSocket, bobSocket, customer, watcher] = await Promise.all([connect(alice.token), connect(bob.token), connect(owner.token), connect(admin)]);
    await customer.join(ticket._id);
    await aliceSocket.join(ticket._id);
    await bobSocket.join(ticket._id);
    expect(names(await presence(aliceSocket, ticket._id, (v) => v.length === 2))).toEqual(['Alice', 'Bob']);
    expect(names(await presence(bobSocket, ticket._id, (v) => v.length === 2))).toEqual(['Alice', 'Bob']);
    // Staff not on the ticket (Live Tickets) are told too, for the marker on its card.
    expect(names(await presence(watcher, ticket._id, (v) => v.length === 2))).toEqual(['Alice', 'Bob']);

    bobSocket.socket.emit('typing', { ticketId: ticket._id, isTyping: true });
    expect(names(await presence(aliceSocket, ticket._id, (v) => v.some((x) => x.replying)))).toEqual(['Alice', 'Bob (replying)']);
    bobSocket.socket.emit('typing', { ticketId: ticket._id, isTyping: false });
    expect(names(await presence(aliceSocket, ticket._id, (v) => v.every((x) => !x.replying)))).toEqual(['Alice', 'Bob']);

    const snapshot: PresenceSnapshot = await watcher.socket.timeout(WAIT_MS).emitWithAck('presence_snapshot', {});
    expect(
      snapshot.ok &&
        snapshot.tickets
          .find((t) => t.ticketId === ticket._id)
          ?.viewers.map((v) => v.firstName)
          .sort(),
    ).toEqual(['Alice', 'Bob']);

    await bobSocket.socket.timeout(WAIT_MS).emitWithAck('leave_ticket', ticket._id);
    expect(names(await presence(aliceSocket, ticket._id, (v) => v.length === 1))).toEqual(['Alice']);
    aliceSocket.socket.disconnect();
    expect(await presence(watcher, ticket._id, (v) => v.length === 0)).toEqual([]);

    expect(customer.events('ticket_presence')).toEqual([]);
    expect(await customer.socket.timeout(WAIT_MS).emitWithAck('presence_snapshot', {})).toEqual({ ok: false, error: 'Only staff see who is on a ticket' });
  });

  it('when a replying agent goes silent without saying so, then the replying mark clears by itself', async () => {
    const owner = await addMember(server, admin, 'customer');
    const ticket = await openTicket(server, owner, category);
    const [aliceSocket, bobSocket] = await Promise.all([connect(alice.token), connect(bob.token)]);
    await aliceSocket.join(ticket._id);
    await bobSocket.join(ticket._id);
    bobSocket.socket.emit('typing', { ticketId: ticket._id, isTyping: true });
    await presence(aliceSocket, ticket._id, (v) => v.some((x) => x.replying));
    const started = Date.now();
    await presence(aliceSocket, ticket._id, (v) => v.length === 2 && v.every((x) => !x.replying));
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });
});
