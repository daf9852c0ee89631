import { addMember } from '../../../test/support/desk';
import { eventually } from '../../../test/support/eventually';
import type { TelegramUser } from '../../../test/support/fakeTelegram';
import { botChat, telegramCustomerWithTicket, ticketMessages, useTelegramDesk } from '../../../test/support/telegramDesk';
import { mergedText } from '#contract/tickets';

const TOKEN = '515151:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const BOT = { id: 515151, username: 'desk_merge_bot', firstName: 'Desk' };
const EVE: TelegramUser = { id: 6101, first_name: 'Eve' };

describe('Telegram after a merge (docs/tickets.md, merging)', () => {
  const desk = useTelegramDesk(TOKEN, BOT);

  it('when a customer’s duplicate is merged, then they are told once which ticket continues, their replies land there, and /mytickets says so', async () => {
    const { fake, server } = desk;
    const { admin, ticket: first } = await telegramCustomerWithTicket(server, fake, TOKEN, EVE, { category: 'Network', title: 'Wifi drops' });
    const agent = await addMember(server, admin, 'agent', 'Ada');
    expect((await server.request('PUT', `/api/tickets/${first._id}`, { token: agent.token, body: { status: 'closed' } })).status).toBe(200);
    const chat = botChat(fake, TOKEN, EVE);
    await chat.openTicket(first.category._id, 'Wifi drops again');
    const second = (await server.request('GET', '/api/tickets?status=open', { token: agent.token })).body.tickets[0];
    expect(second).toMatchObject({ title: 'Wifi drops again', ticketId: first.ticketId + 1 });

    const merged = await server.request('POST', `/api/tickets/${second._id}/merge`, { token: agent.token, body: { target: first._id } });
    expect(merged.body.ticket).toMatchObject({ status: 'open' });
    const told = mergedText(second.ticketId, first.ticketId);
    await eventually(() => fake.messagesTo(EVE.id).includes(told), { describe: 'the merge notice' });

    fake.sendText(TOKEN, EVE, 'It dropped twice this morning');
    const landed = await eventually(async () => (await ticketMessages(server, first._id)).find((m) => m.content === 'It dropped twice this morning'));
    expect(landed).toMatchObject({ platform: 'telegram', ticket: first._id });
    expect((await ticketMessages(server, second._id)).map((m) => m.content)).not.toContain('It dropped twice this morning');

    expect(await chat.say('/mytickets')).toEqual([
      `Your tickets:\n#${second.ticketId} Wifi drops again — merged into #${first.ticketId}\n#${first.ticketId} Wifi drops — open`,
    ]);
    expect(fake.messagesTo(EVE.id).filter((text) => text === told)).toHaveLength(1);
  });
});
