import { type TelegramChatCommand, type TicketDraft, telegramChatDecider, telegramChatStream } from '../../domain/telegramChat/chat';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import type { AppDeps } from '../deps';

/**
 * A Telegram user's conversation with the bot (the ticket form in progress), kept in the log so a
 * restarted or another worker goes on where the last one stopped.
 */
export const loadChat = (deps: Pick<AppDeps, 'events'>, telegramId: string) => loadState(deps.events, telegramChatStream(telegramId), telegramChatDecider);

/** Moves the conversation on; answers the draft as it now stands. */
export async function updateChat(
  deps: Pick<AppDeps, 'events'>,
  telegramId: string,
  command: TelegramChatCommand,
  context: CommandContext,
): Promise<TicketDraft | null> {
  const result = await handleCommand(deps.events, telegramChatStream(telegramId), telegramChatDecider, command, context);
  return result.state.draft;
}
