import { eventually } from '../../../test/support/eventually';
import type { FakeTelegram } from '../../../test/support/fakeTelegram';
import type { TestServer } from '../../../test/support/server';
import { botChat, telegramCustomerWithTicket, useTelegramDesk } from '../../../test/support/telegramDesk';
import { ticketStream } from '../../domain/ticket/ticket';
import { SURVEY_TEXTS } from './telegram';

const TOKEN = '535353:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const BOT = { id: 535353, username: 'csat_test_bot', firstName: 'Desk' };
const NINA = { id: 7001, first_name: 'Nina' };

describe('Satisfaction survey on Telegram against a fake Bot API', () => {
  const desk = useTelegramDesk(TOKEN, BOT);
  let fake: FakeTelegram;
  let server: TestServer;
  beforeAll(() => ({ fake, server } = desk));

  const ratingEvents = async (ticketId: string) =>
    (await server.deps.events.readStream(ticketStream(ticketId))).filter((event) => event.type.startsWith('Satisfaction'));

  it('sends one message with five buttons; a press rates, "Anything to add?" takes the next text as the comment', async () => {
    const { admin, ticket } = await telegramCustomerWithTicket(server, fake, TOKEN, NINA, { category: 'Rated', title: 'Router blinks' });
    const chat = botChat(fake, TOKEN, NINA);
    await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'resolved' } });
    const surveys = () => fake.delivered.filter((message) => message.chatId === String(NINA.id) && message.text.startsWith('How would you rate'));
    const survey = await eventually(() => surveys()[0], {
      describe: 'the survey message',
    });
    const buttons = survey.replyMarkup!.inline_keyboard.flat();
    expect(buttons.map((button) => button.text)).toEqual(['1 Very poor', '2 Poor', '3 Okay', '4 Good', '5 Excellent']);
    expect(survey.text).toContain(`Ticket #${ticket.ticketId} “Router blinks”`);

    expect(await chat.press(buttons[3]!.callback_data)).toEqual([SURVEY_TEXTS.rated(4)]);
    // The same button again (a double tap): answered, nothing new recorded.
    await chat.press(buttons[3]!.callback_data);
    expect(await chat.say('Fixed <i>fast</i>, thanks')).toEqual([SURVEY_TEXTS.commented]);
    const events = await ratingEvents(ticket._id);
    expect(events.map((event) => [event.type, event.data.channel, event.metadata.actor?.platform])).toEqual([
      ['SatisfactionRated', 'telegram', 'telegram'],
      ['SatisfactionCommented', 'telegram', 'telegram'],
    ]);
    expect(events[1]!.data.comment).toBe('Fixed <i>fast</i>, thanks');
    // With the comment given, text goes its usual way again.
    expect(await chat.say('Hello again')).not.toContain(SURVEY_TEXTS.commented);

    // Reopened: the old buttons no longer rate.
    await server.request('PUT', `/api/tickets/${ticket._id}`, { token: admin, body: { status: 'in_progress' } });
    await eventually(() => fake.messagesTo(NINA.id).some((text) => text.includes('now in progress')), { describe: 'the status notice' });
    const [refused] = await chat.press(buttons[0]!.callback_data);
    expect(refused).toContain('reopened');
    expect(await ratingEvents(ticket._id)).toHaveLength(2);
    // The survey was sent once for the episode.
    expect(surveys()).toHaveLength(1);
  });
});
