import type { Decider } from '../shared/decider';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#contract/errors';
import { type Role, isStaff } from '#contract/users';
import { MESSAGE_MAX } from '#contract/tickets';
import { isCleanText, longerThan, multiLineMessage } from '#contract/text';
import type { SatisfactionChannel } from '#contract/satisfaction';
import { type Episode, type SatisfactionEvent, type SatisfactionState, evolve, initialState, isEpisodeOpen } from './satisfaction';

export interface Rater {
  userId: string;
  role: Role;
}

interface Common {
  ticketId: string;
  actor: Rater;
  channel: SatisfactionChannel;
  /** The episode a link or a button was made for; absent when rating the current one (the web). */
  episode?: number;
  now: Date;
}

export type SatisfactionCommand = (Common & { type: 'RateTicket'; score: number }) | (Common & { type: 'CommentOnRating'; comment: string });

const COMMENT_MAX = MESSAGE_MAX;

/** The episode this customer may rate now: their own ticket, resolved within 7 days, not reopened or closed since. */
function openEpisode(command: SatisfactionCommand, state: SatisfactionState): Episode & { ticketId: string } {
  if (state.kind !== 'ticket') throw new NotFoundError('Ticket');
  if (isStaff(command.actor.role)) throw new ForbiddenError('Only the customer can rate a ticket');
  if (state.customerId !== command.actor.userId) throw new NotFoundError('Ticket');
  const { episode } = state;
  if (command.episode !== undefined && episode?.number !== command.episode)
    throw new ConflictError('This rating request is for an earlier resolution of the ticket', 'SATISFACTION_EPISODE_ENDED');
  if (episode === null || !isEpisodeOpen(episode, command.now)) {
    const why = !episode
      ? 'the ticket has not been resolved'
      : episode.ended === 'reopened'
        ? 'the ticket was reopened'
        : episode.ended === 'closed'
          ? 'the ticket is closed'
          : 'more than 7 days have passed since it was resolved';
    throw new ConflictError(`This ticket cannot be rated now: ${why}`, 'SATISFACTION_NOT_OPEN');
  }
  return { ...episode, ticketId: state.ticketId };
}

function rate(command: Extract<SatisfactionCommand, { type: 'RateTicket' }>, state: SatisfactionState): SatisfactionEvent[] {
  if (!Number.isInteger(command.score) || command.score < 1 || command.score > 5)
    throw new ValidationError('The rating must be a whole number from 1 to 5', [{ path: 'score', message: 'From 1 to 5' }]);
  const episode = openEpisode(command, state);
  if (episode.score === command.score) return [];
  const { ticketId, number } = episode;
  return [
    {
      type: 'SatisfactionRated',
      data: { ticketId, episode: number, score: command.score, previousScore: episode.score, raterId: command.actor.userId, channel: command.channel },
    },
  ];
}

function comment(command: Extract<SatisfactionCommand, { type: 'CommentOnRating' }>, state: SatisfactionState): SatisfactionEvent[] {
  const text = command.comment.trim();
  if (text === '') throw new ValidationError('The comment is empty', [{ path: 'comment', message: 'Write something' }]);
  // Whatever the channel (the web, the e-mailed form, Telegram): no NUL, no bidi override, as every text field.
  if (!isCleanText(text, { multiLine: true }))
    throw new ValidationError(multiLineMessage('The comment'), [{ path: 'comment', message: multiLineMessage('The comment') }]);
  if (longerThan(text, COMMENT_MAX))
    throw new ValidationError(`The comment must be at most ${COMMENT_MAX} characters`, [{ path: 'comment', message: `At most ${COMMENT_MAX} characters` }]);
  const episode = openEpisode(command, state);
  if (episode.score === null) throw new ConflictError('Rate the ticket before adding a comment', 'SATISFACTION_NOT_RATED');
  if (episode.comment === text) return [];
  const { ticketId, number } = episode;
  return [
    {
      type: 'SatisfactionCommented',
      data: { ticketId, episode: number, comment: text, previousComment: episode.comment, raterId: command.actor.userId, channel: command.channel },
    },
  ];
}

export function decide(command: SatisfactionCommand, state: SatisfactionState): SatisfactionEvent[] {
  switch (command.type) {
    case 'RateTicket':
      return rate(command, state);
    case 'CommentOnRating':
      return comment(command, state);
  }
}

/** Folds the ticket's stream (ticketStream): its status changes open and end the episodes. */
export const satisfactionDecider: Decider<SatisfactionCommand, SatisfactionEvent, SatisfactionState> = { decide, evolve, initialState };
