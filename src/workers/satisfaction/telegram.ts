import type { AppDeps } from '../../app/deps';
import { SURVEY_BUTTON } from '../../app/jobs/satisfaction';
import { commentOnRating, rateTicket } from '../../app/satisfaction/service';
import { DomainError } from '#contract/errors';
import type { CommandContext } from '../../platform/commands';
import { telegramRatingAwaitingComment } from '../../projections/satisfaction';
import type { UserView } from '../../projections/users';

export const SURVEY_TEXTS = {
  rated: (score: number) => `Thank you! Your rating: ${score} of 5. Anything to add? Send it as your next message.`,
  commented: 'Thank you, your comment has been added to your rating.',
};

/** How long after a rating on Telegram the next plain text is taken as its comment. */
const COMMENT_WINDOW_MS = 60 * 60 * 1000;

/** A survey button pressed: rates that episode as the customer; the answer (or the refusal) is the reply. Null for another button. */
export async function answerSurveyButton(deps: AppDeps, customer: UserView, data: string, context: CommandContext): Promise<string | null> {
  const match = SURVEY_BUTTON.exec(data);
  if (!match) return null;
  const [, ticketId, episode, score] = match;
  try {
    await rateTicket(
      deps,
      { ticketId: ticketId!, rater: { userId: customer._id, role: customer.role }, channel: 'telegram', episode: Number(episode), score: Number(score) },
      context,
    );
    return SURVEY_TEXTS.rated(Number(score));
  } catch (error) {
    if (error instanceof DomainError) return error.message;
    throw error;
  }
}

/** The text right after a Telegram rating (within the hour, while it has no comment) becomes its comment; null when no rating waits for one. */
export async function commentFromTelegram(deps: AppDeps, customer: UserView, text: string, context: CommandContext): Promise<string | null> {
  const since = new Date(context.now.getTime() - COMMENT_WINDOW_MS).toISOString();
  const awaiting = await telegramRatingAwaitingComment(deps.readStore, customer._id, since);
  if (!awaiting) return null;
  try {
    await commentOnRating(
      deps,
      { ticketId: awaiting.ticketId, rater: { userId: customer._id, role: customer.role }, channel: 'telegram', episode: awaiting.episode, comment: text },
      context,
    );
    return SURVEY_TEXTS.commented;
  } catch (error) {
    if (error instanceof DomainError) return error.message;
    throw error;
  }
}
