import { addMember } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import type { TelegramUser } from '../../../test/support/fakeTelegram';
import { botChat, telegramCustomerWithTicket, ticketMessages, useTelegramDesk } from '../../../test/support/telegramDesk';
import { DEFAULT_BOT_MESSAGES } from '#contract/botSettings';
import { TEXTS } from './bot';

const TOKEN = '525252:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const BOT = { id: 525252, username: 'desk_reopen_bot', firstName: 'Desk' };
const IDA: TelegramUser = { id: 6201, first_name: 'Ida' };

describe('Telegram: a customer’s reply brings the ticket back to the desk (issue 50, docs/tickets.md, reopening)', () => {
  const desk = useTelegramDesk(TOKEN, BOT);

  it('when the customer writes while the ticket waits on them, after its resolution and after its closing, then it reopens, reopens, and is refused with what to do', async () => {
    const { fake, server } = desk;
    const { admin, ticket } = await telegramCustomerWithTicket(server, fake, TOKEN, IDA, { category: 'Printers', title: 'Printer jams' });
    const agent = await addMember(server, admin, 'agent', 'Ada');
    const chat = botChat(fake, TOKEN, IDA);
    const setStatus = async (status: string) =>
      expect((await server.request('PUT', `/api/tickets/${ticket._id}`, { token: agent.token, body: { status } })).status).toBe(200);
    const statusNow = async () => (await server.request('GET', `/api/tickets/${ticket._id}`, { token: agent.token })).body.ticket.status;
    const landed = (content: string) => eventually(async () => (await ticketMessages(server, ticket._id)).find((message) => message.content === content));

    await setStatus('pending_customer');
    await eventually(() => fake.messagesTo(IDA.id).includes(`Ticket #${ticket.ticketId} is now waiting for customer response.`));
    fake.sendText(TOKEN, IDA, 'It is the blue one');
    expect(await landed('It is the blue one')).toMatchObject({ platform: 'telegram' });
    await eventually(async () => (await statusNow()) === 'open', { describe: 'open again after the reply' });
    const { events } = (await server.request('GET', `/api/tickets/${ticket._id}/history`, { token: agent.token })).body;
    expect(events.at(-2)).toMatchObject({
      type: 'TicketStatusChanged',
      actor: { role: 'customer', platform: 'telegram' },
      data: { from: 'pending_customer', to: 'open', reason: 'customer-replied' },
    });

    await setStatus('resolved');
    // The notice, then the survey: the next plain text is still a reply, as no rating asked for a comment.
    await eventually(() => fake.messagesTo(IDA.id).includes(`Ticket #${ticket.ticketId} is now resolved.`));
    await eventually(() => fake.messagesTo(IDA.id).some((text) => text.startsWith('How would you rate')), { describe: 'the survey' });
    expect(await chat.say('It jams again')).toEqual([TEXTS.reopened(ticket.ticketId)]);
    await landed('It jams again');
    expect(await statusNow()).toBe('open');

    await setStatus('closed');
    const closedNotice = DEFAULT_BOT_MESSAGES.ticketClosedMessage.replace('{ticketId}', String(ticket.ticketId));
    await eventually(() => fake.messagesTo(IDA.id).includes(closedNotice), { describe: 'the closing notice' });
    expect(await chat.say('Hello?')).toEqual([TEXTS.closed(ticket.ticketId)]);
    expect((await ticketMessages(server, ticket._id)).map((message) => message.content)).not.toContain('Hello?');
    expect(await statusNow()).toBe('closed');
    // Their own reply reopening the ticket told them nothing of its status: only staff's changes did.
    expect(fake.messagesTo(IDA.id).filter((text) => text.includes('is now open'))).toEqual([]);
  });
});
