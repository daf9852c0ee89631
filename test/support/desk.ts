import type { TestServer } from './server';

export interface Member {
  id: string;
  token: string;
  email: string;
}

let counter = 0;

/** Creates a user of the given role through the admin API and signs them in. */
export async function addMember(server: TestServer, adminToken: string, role: 'customer' | 'agent' | 'admin', firstName: string = role): Promise<Member> {
  counter += 1;
  const username = `${role}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
  const email = `${username}@example.com`;
  const password = 'password-123';
  const created = await server.request('POST', '/api/users', { token: adminToken, body: { username, email, password, firstName, lastName: 'Tester', role } });
  if (created.status !== 201) throw new Error(`could not create ${role}: ${created.status} ${JSON.stringify(created.body)}`);
  return { id: created.body.user._id, token: await server.login(email, password), email };
}

export async function addCategory(server: TestServer, adminToken: string, body: Record<string, unknown> = {}): Promise<string> {
  counter += 1;
  const created = await server.request('POST', '/api/categories', { token: adminToken, body: { name: `Category ${counter}`, ...body } });
  if (created.status !== 201) throw new Error(`could not create a category: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.category._id;
}

/** Opens a ticket as this member; fails the test on anything but 201. */
export async function openTicket(server: TestServer, member: Member, category: string, body: Record<string, unknown> = {}) {
  const created = await server.request('POST', '/api/tickets', {
    token: member.token,
    body: { title: 'Cannot sign in', description: 'The page keeps reloading', category, ...body },
  });
  if (created.status !== 201) throw new Error(`could not open a ticket: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.ticket as { _id: string; ticketId: number; status: string };
}

/** SLA settings of one policy for every category and priority, with no calendar (round the clock): the simplest desk under service levels. */
export function oneSlaPolicy(targets: { firstResponse: number | null; nextResponse: number | null; resolution: number | null }) {
  const policy = {
    id: 'standard',
    name: 'Standard',
    categoryId: null,
    calendarId: null,
    targets: { low: targets, medium: targets, high: targets, urgent: targets },
  };
  return { calendars: [], defaultCalendarId: null, policies: [policy], pauseStatuses: ['pending_customer'], warnPercent: 80 };
}
