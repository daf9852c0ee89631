import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { type TestServer, startTestServer } from '../../../test/support/server';

/**
 * Issue 25: status changes, assignment and unassignment join the conversation as quiet system
 * lines, in time order among the messages, for the customer too; notes and the outcome never do.
 */
describe('System lines in a ticket conversation over HTTP', () => {
  let server: TestServer;
  let admin: string;
  let alice: Member;
  let carol: Member;
  let ticketId: string;
  const now = { value: new Date('2026-11-21T09:00:00.000Z') };
  const minute = (n: number) => new Date(Date.parse('2026-11-21T09:00:00.000Z') + n * 60_000);

  beforeAll(async () => {
    server = await startTestServer({ clock: () => now.value });
    admin = await server.login();
    alice = await addMember(server, admin, 'agent', 'Alice');
    carol = await addMember(server, admin, 'customer', 'Carol');
    const category = await addCategory(server, admin, { name: 'Printers' });
    ticketId = (await openTicket(server, carol, category))._id;
    const act = async (n: number, method: 'POST' | 'PUT', path: string, token: string, body: Record<string, unknown>) => {
      now.value = minute(n);
      const answer = await server.request(method, path, { token, body });
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    };
    await act(1, 'POST', `/api/tickets/${ticketId}/messages`, carol.token, { content: 'Hello?', isInternal: false });
    await act(2, 'POST', `/api/tickets/${ticketId}/assign`, alice.token, { agentId: alice.id });
    await act(3, 'POST', `/api/tickets/${ticketId}/messages`, alice.token, { content: 'Secret note', isInternal: true });
    await act(4, 'PUT', `/api/tickets/${ticketId}/outcome`, alice.token, { outcomeMessage: 'Refunded' });
    await act(5, 'PUT', `/api/tickets/${ticketId}`, alice.token, { status: 'pending_customer' });
    await act(6, 'POST', `/api/tickets/${ticketId}/messages`, alice.token, { content: 'Please check', isInternal: false });
    await act(7, 'PUT', `/api/tickets/${ticketId}`, admin, { assignedAgent: null });
  });
  afterAll(() => server?.stop());

  const conversation = async (token: string) => {
    const answer = await server.request('GET', `/api/tickets/${ticketId}`, { token });
    expect(answer.status).toBe(200);
    return (answer.body.messages as Array<{ content: string; messageType: string; isInternal: boolean }>).map((m) => `${m.messageType}: ${m.content}`);
  };

  it('when the customer opens their ticket, then status and assignment changes sit among the messages, without the note or the outcome', async () => {
    expect(await conversation(carol.token)).toEqual([
      'text: Hello?',
      'system: Assigned to Alice Tester',
      'system: Status changed to in progress',
      'system: Status changed to waiting for customer response',
      'text: Please check',
      'system: Alice Tester was unassigned',
    ]);
  });

  it('when staff open it, then they also see the internal note, and still no outcome line', async () => {
    const lines = await conversation(alice.token);
    expect(lines).toContain('text: Secret note');
    expect(lines.filter((line) => line.startsWith('system:'))).toHaveLength(4);
    expect(lines.join('\n')).not.toContain('Refunded');
  });
});
