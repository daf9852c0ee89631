import type { Decider, DomainEvent } from '../shared/decider';

/**
 * One stream per Telegram user holds the guided ticket form of the bot (docs/product.md section 3:
 * category from buttons, then title, then description, then the category's own questions), so
 * a half-filled form survives a restart and any worker process can continue it.
 */
export const telegramChatStream = (telegramId: string) => `telegramchat-${telegramId}`;

export interface TicketDraft {
  categoryId: string | null;
  title: string | null;
  description: string | null;
  /** Custom-field answers by field name; null means the user skipped an optional question. */
  answers: Record<string, string | null>;
}

/** Every event names the Telegram update that caused it: an update handled twice changes nothing. */
type Step<Type extends string, Data extends object = object> = DomainEvent<Type, Data & { updateId: number }>;

export type TelegramChatEvent =
  | Step<'TicketDraftStarted'>
  | Step<'TicketDraftCategoryChosen', { categoryId: string }>
  | Step<'TicketDraftTitleGiven', { title: string }>
  | Step<'TicketDraftDescriptionGiven', { description: string }>
  | Step<'TicketDraftFieldAnswered', { fieldName: string; value: string | null }>
  | Step<'TicketDraftCancelled'>
  | Step<'TicketDraftSubmitted', { ticketId: string }>;

export interface TelegramChatState {
  lastUpdateId: number;
  draft: TicketDraft | null;
}

export const initialState: TelegramChatState = { lastUpdateId: -1, draft: null };

export type TelegramChatCommand =
  | { type: 'StartDraft'; updateId: number }
  | { type: 'ChooseCategory'; updateId: number; categoryId: string }
  | { type: 'GiveTitle'; updateId: number; title: string }
  | { type: 'GiveDescription'; updateId: number; description: string }
  | { type: 'AnswerField'; updateId: number; fieldName: string; value: string | null }
  | { type: 'CancelDraft'; updateId: number }
  | { type: 'SubmitDraft'; updateId: number; ticketId: string };

export function evolve(state: TelegramChatState, event: TelegramChatEvent): TelegramChatState {
  const lastUpdateId = Math.max(state.lastUpdateId, event.data.updateId);
  const draft = state.draft;
  switch (event.type) {
    case 'TicketDraftStarted':
      return { lastUpdateId, draft: { categoryId: null, title: null, description: null, answers: {} } };
    case 'TicketDraftCategoryChosen':
      return { lastUpdateId, draft: draft && { ...draft, categoryId: event.data.categoryId, answers: {} } };
    case 'TicketDraftTitleGiven':
      return { lastUpdateId, draft: draft && { ...draft, title: event.data.title } };
    case 'TicketDraftDescriptionGiven':
      return { lastUpdateId, draft: draft && { ...draft, description: event.data.description } };
    case 'TicketDraftFieldAnswered':
      return { lastUpdateId, draft: draft && { ...draft, answers: { ...draft.answers, [event.data.fieldName]: event.data.value } } };
    case 'TicketDraftCancelled':
    case 'TicketDraftSubmitted':
      return { lastUpdateId, draft: null };
  }
}

/** Which part of the form a step fills, in the order the bot asks. */
function expects(draft: TicketDraft): 'category' | 'title' | 'description' | 'fields' {
  if (draft.categoryId === null) return 'category';
  if (draft.title === null) return 'title';
  if (draft.description === null) return 'description';
  return 'fields';
}

export function decide(command: TelegramChatCommand, state: TelegramChatState): TelegramChatEvent[] {
  const { updateId } = command;
  // The update that completes the form also submits it, so a submission may share its update id.
  if (command.type === 'SubmitDraft' ? updateId < state.lastUpdateId : updateId <= state.lastUpdateId) return [];
  if (command.type === 'StartDraft') return [{ type: 'TicketDraftStarted', data: { updateId } }];
  const draft = state.draft;
  if (!draft) return [];
  switch (command.type) {
    case 'CancelDraft':
      return [{ type: 'TicketDraftCancelled', data: { updateId } }];
    case 'ChooseCategory':
      // A button of an earlier message may be pressed later: it changes the category while the form is open.
      return [{ type: 'TicketDraftCategoryChosen', data: { updateId, categoryId: command.categoryId } }];
    case 'GiveTitle':
      return expects(draft) === 'title' ? [{ type: 'TicketDraftTitleGiven', data: { updateId, title: command.title } }] : [];
    case 'GiveDescription':
      return expects(draft) === 'description' ? [{ type: 'TicketDraftDescriptionGiven', data: { updateId, description: command.description } }] : [];
    case 'AnswerField':
      return expects(draft) === 'fields' ? [{ type: 'TicketDraftFieldAnswered', data: { updateId, fieldName: command.fieldName, value: command.value } }] : [];
    case 'SubmitDraft':
      return expects(draft) === 'fields' ? [{ type: 'TicketDraftSubmitted', data: { updateId, ticketId: command.ticketId } }] : [];
  }
}

export const telegramChatDecider: Decider<TelegramChatCommand, TelegramChatEvent, TelegramChatState> = { decide, evolve, initialState };
