import { DeciderSpecification } from '../../../test/support/decider';
import { type TelegramChatEvent, decide, evolve, initialState } from './chat';

const chat = DeciderSpecification.for({ decide, evolve, initialState });
const after = (events: TelegramChatEvent[]) => events.reduce(evolve, initialState);
const STARTED: TelegramChatEvent = { type: 'TicketDraftStarted', data: { updateId: 10 } };
const CHOSEN: TelegramChatEvent = { type: 'TicketDraftCategoryChosen', data: { updateId: 11, categoryId: 'c1' } };
const TITLED: TelegramChatEvent = { type: 'TicketDraftTitleGiven', data: { updateId: 12, title: 'Refund' } };
const DESCRIBED: TelegramChatEvent = { type: 'TicketDraftDescriptionGiven', data: { updateId: 13, description: 'Twice charged' } };

describe('Telegram ticket form', () => {
  it('given no form, when /ticket, then a form starts; other steps change nothing', () => {
    chat([])
      .when({ type: 'StartDraft', updateId: 1 })
      .then([{ type: 'TicketDraftStarted', data: { updateId: 1 } }]);
    chat([]).when({ type: 'GiveTitle', updateId: 1, title: 'x' }).then([]);
    chat([]).when({ type: 'CancelDraft', updateId: 1 }).then([]);
  });

  it('fills category, title, description and answers in that order only', () => {
    chat([STARTED]).when({ type: 'GiveTitle', updateId: 11, title: 'early' }).then([]);
    chat([STARTED, CHOSEN]).when({ type: 'GiveDescription', updateId: 12, description: 'early' }).then([]);
    chat([STARTED, CHOSEN, TITLED]).when({ type: 'AnswerField', updateId: 13, fieldName: 'order', value: '1' }).then([]);
    const state = after([STARTED, CHOSEN, TITLED, DESCRIBED, { type: 'TicketDraftFieldAnswered', data: { updateId: 14, fieldName: 'amount', value: null } }]);
    expect(state.draft).toEqual({ categoryId: 'c1', title: 'Refund', description: 'Twice charged', answers: { amount: null } });
  });

  it('ignores an update it has already handled, so a retried update changes nothing', () => {
    const state = after([STARTED, CHOSEN, TITLED]);
    expect(decide({ type: 'GiveDescription', updateId: 12, description: 'again' }, state)).toEqual([]);
    expect(decide({ type: 'StartDraft', updateId: 11 }, state)).toEqual([]);
    expect(decide({ type: 'GiveDescription', updateId: 13, description: 'new' }, state)).toHaveLength(1);
  });

  it('submits in the same update that completed it, and not before the form is complete', () => {
    const complete = after([STARTED, CHOSEN, TITLED, DESCRIBED]);
    expect(decide({ type: 'SubmitDraft', updateId: 13, ticketId: 't1' }, complete)).toEqual([
      { type: 'TicketDraftSubmitted', data: { updateId: 13, ticketId: 't1' } },
    ]);
    expect(decide({ type: 'SubmitDraft', updateId: 12, ticketId: 't1' }, complete)).toEqual([]);
    chat([STARTED, CHOSEN]).when({ type: 'SubmitDraft', updateId: 14, ticketId: 't1' }).then([]);
    expect(after([STARTED, CHOSEN, TITLED, DESCRIBED, { type: 'TicketDraftSubmitted', data: { updateId: 13, ticketId: 't1' } }]).draft).toBeNull();
  });

  it('a new category clears answers given for the old one; cancel drops the form', () => {
    const answered = after([STARTED, CHOSEN, TITLED, DESCRIBED, { type: 'TicketDraftFieldAnswered', data: { updateId: 14, fieldName: 'order', value: '7' } }]);
    const [changed] = decide({ type: 'ChooseCategory', updateId: 15, categoryId: 'c2' }, answered);
    expect(evolve(answered, changed!).draft).toMatchObject({ categoryId: 'c2', title: 'Refund', answers: {} });
    const [cancelled] = decide({ type: 'CancelDraft', updateId: 16 }, answered);
    expect(evolve(answered, cancelled!)).toEqual({ lastUpdateId: 16, draft: null });
  });
});
