import { type Member, addCategory, addMember, openTicket } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import { type TestServer, startTestServer } from '../../../test/support/server';
import { bodyOf, startSmtpSink, subjectOf } from '../../../test/support/smtpSink';
import { ticketStream } from '../../domain/ticket/ticket';
import { mentionMails } from './mentions';

const usernameOf = (member: Member) => member.email.split('@')[0]!;
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe('Mention mails', () => {
  let sink: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: TestServer;
  let admin: string;
  let category: string;
  let alice: Member;

  const post = (member: Member, ticketId: string, content: string) =>
    server.request('POST', `/api/tickets/${ticketId}/messages`, { token: member.token, body: { content, isInternal: true } });
  const ticketOf = async (title: string) => {
    const customer = await addMember(server, admin, 'customer', 'Carol');
    return { customer, ticket: await openTicket(server, customer, category, { title }) };
  };

  beforeAll(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ env: { SMTP_URL: sink.url, PUBLIC_URL: 'https://desk.example.com/' } });
    admin = await server.login();
    category = await addCategory(server, admin);
    await server.request('PUT', '/api/settings', { token: admin, body: { systemName: 'Acme Help' } });
    alice = await addMember(server, admin, 'agent', 'Alice');
  }, 30_000);

  afterAll(async () => {
    await server.stop();
    await sink.close();
  });

  it('when a colleague chose e-mail, then one mail with a link to the note goes, once, through a refused try and a second planning; others get none', async () => {
    const erin = await addMember(server, admin, 'agent', 'Erin');
    const frank = await addMember(server, admin, 'agent', 'Frank');
    const chose = await server.request('PUT', '/api/auth/notifications/preferences', { token: erin.token, body: { mentionEmails: true } });
    expect(chose.body.notificationPreferences).toMatchObject({ mentionEmails: true });
    const [choice] = (await server.deps.events.readStream(`user-${erin.id}`)).filter((event) => event.type === 'NotificationPreferencesSet');
    expect(choice!.metadata.actor?.userId).toBe(erin.id);
    const { customer, ticket } = await ticketOf('Mail me');
    await eventually(() => sink.mailsTo(customer.email).length > 0);

    sink.refuseNext(451, 'Try again later');
    const note = await post(alice, ticket._id, `@${usernameOf(erin)} @${usernameOf(frank)} please take over the refund`);
    const mail = await eventually(() => sink.mailsTo(erin.email)[0], { timeoutMs: 15_000 });
    expect(subjectOf(mail.raw)).toBe(`[Acme Help] Alice Tester mentioned you on ticket #${ticket.ticketId}: Mail me`);
    expect(bodyOf(mail.raw)).toContain(`https://desk.example.com/tickets/${ticket._id}?message=${note.body.message._id}`);
    expect(bodyOf(mail.raw)).toContain('please take over the refund');

    // Planned again (a replay, a second reactor): the queue refuses the job it already holds.
    const [event] = (await server.deps.events.readStream(ticketStream(ticket._id))).filter((recorded) => recorded.type === 'MessagePosted');
    for (const job of await mentionMails(event!, server.deps)) await server.deps.queue.add(job.queue, job.name, job.data, job.options);
    await settle();
    await settle();
    expect(sink.mailsTo(erin.email)).toHaveLength(1);
    expect(sink.mailsTo(frank.email)).toHaveLength(0);
  }, 30_000);
});
