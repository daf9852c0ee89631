import { addCategory, addMember, type Member, openTicket } from './desk';
import type { TestServer } from './server';

/** A 200-character URL with no break opportunity: a ticket title that must not widen any page. */
export const LONG_URL_TITLE = `https://example.com/${'a'.repeat(180 - 'https://example.com/'.length)}/path?query=${'b'.repeat(8)}`
  .slice(0, 200)
  .padEnd(200, 'c');

export interface SeededDesk {
  admin: Member & { password: string };
  agent: Member & { password: string };
  customer: Member & { password: string };
  /** The customer's open ticket with a conversation, a status change and an assignment. */
  ticketId: string;
  /** Another customer's ticket titled with LONG_URL_TITLE, unassigned (a third customer's ticket is resolved). */
  longTicketId: string;
}

/**
 * A desk with something on every screen: categories, a canned message, a customer's ticket with a
 * long conversation (more than the screen holds), status changes and an assignment, and an
 * unassigned ticket whose title is one 200-character URL.
 */
export async function seedDesk(server: TestServer): Promise<SeededDesk> {
  const adminToken = await server.login();
  const billing = await addCategory(server, adminToken, {
    name: 'Billing',
    color: '#d63031',
    customFields: [{ fieldName: 'invoice', fieldType: 'text', prompt: 'Invoice number', placeholder: 'INV-0000', required: false }],
  });
  await addCategory(server, adminToken, { name: 'Technical', color: '#2456d6' });
  const admin = { ...(await addMember(server, adminToken, 'admin', 'Ada')), password: 'password-123' };
  const agent = { ...(await addMember(server, adminToken, 'agent', 'Alice')), password: 'password-123' };
  const customer = { ...(await addMember(server, adminToken, 'customer', 'Cara')), password: 'password-123' };
  const other = await addMember(server, adminToken, 'customer', 'Otto');
  await server.request('POST', '/api/canned-messages', {
    token: agent.token,
    body: { shortcode: 'thanks', title: 'Thank you', content: 'Thank you for your patience.' },
  });
  const ticket = await openTicket(server, customer, billing, {
    title: 'Invoice shows the wrong amount',
    description: 'My March invoice charges me twice for the same plan.',
    priority: 'high',
    customFieldValues: [{ fieldName: 'invoice', value: 'INV-2042' }],
  });
  await server.request('POST', `/api/tickets/${ticket._id}/assign`, { token: agent.token, body: { agentId: agent.id } });
  for (let i = 1; i <= 12; i += 1) {
    const from = i % 2 === 0 ? agent : customer;
    const posted = await server.request('POST', `/api/tickets/${ticket._id}/messages`, {
      token: from.token,
      body: { content: `Message ${i}: ${i % 2 === 0 ? 'Checking the invoice for you.' : 'Any news on this?'}`, isInternal: false },
    });
    if (posted.status !== 201) throw new Error(`could not post: ${posted.status} ${JSON.stringify(posted.body)}`);
  }
  await server.request('POST', `/api/tickets/${ticket._id}/messages`, {
    token: agent.token,
    body: { content: 'Internal: refund approved by finance.', isInternal: true },
  });
  await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status: 'pending_customer' } });
  const long = await openTicket(server, other, billing, { title: LONG_URL_TITLE, description: `See ${LONG_URL_TITLE}` });
  const rita = await addMember(server, adminToken, 'customer', 'Rita');
  const done = await openTicket(server, rita, billing, { title: 'Password reset worked', description: 'All good now' });
  await server.request('PUT', `/api/tickets/${done._id}`, { token: agent.token, body: { status: 'resolved' } });
  return { admin, agent, customer, ticketId: ticket._id, longTicketId: long._id };
}
