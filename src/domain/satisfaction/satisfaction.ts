import type { DomainEvent } from '../shared/decider';
import type { TicketStatus } from '#contract/tickets';

import type { SatisfactionChannel } from '#contract/satisfaction';

/** A rating can be given or changed for this long after the resolution that asked for it. */
export const RATING_WINDOW_MS = 7 * 24 * 3600 * 1000;

/**
 * Ratings live in the ticket's own stream, next to the status changes that open and end their
 * episodes: a rating is decided against the very revision a reopen or a close would append to, so
 * none can land on an episode that already ended.
 */
export type SatisfactionEvent =
  | DomainEvent<
      'SatisfactionRated',
      { ticketId: string; episode: number; score: number; previousScore: number | null; raterId: string; channel: SatisfactionChannel }
    >
  | DomainEvent<
      'SatisfactionCommented',
      { ticketId: string; episode: number; comment: string; previousComment: string | null; raterId: string; channel: SatisfactionChannel }
    >;

export interface Episode {
  /** 1 for the ticket's first resolution, 2 after it was reopened and resolved again, and so on. */
  number: number;
  resolvedAt: string;
  /** Why the episode no longer takes ratings (the 7 days are checked against the command's clock). */
  ended: 'reopened' | 'closed' | null;
  score: number | null;
  comment: string | null;
}

export type SatisfactionState =
  | { kind: 'none' }
  | { kind: 'deleted' }
  | { kind: 'ticket'; ticketId: string; customerId: string; status: TicketStatus; episode: Episode | null; episodes: number };

export const initialState: SatisfactionState = { kind: 'none' };

/**
 * The ticket stream's events, folded as recorded: a resolution's time is its event's `occurredAt`.
 * Events this decider appends itself are folded without metadata; none of them needs a time.
 */
type Folded = DomainEvent & { metadata?: { occurredAt?: string } };

export function evolve(state: SatisfactionState, event: Folded): SatisfactionState {
  const data = event.data as Record<string, unknown>;
  if (event.type === 'TicketOpened')
    return { kind: 'ticket', ticketId: String(data.ticketId), customerId: String(data.customerId), status: 'open', episode: null, episodes: 0 };
  if (event.type === 'TicketDeleted') return { kind: 'deleted' };
  if (state.kind !== 'ticket') return state;
  switch (event.type) {
    case 'TicketStatusChanged': {
      const to = data.to as TicketStatus;
      if (to === 'resolved') {
        const number = state.episodes + 1;
        const resolvedAt = event.metadata?.occurredAt ?? new Date(0).toISOString();
        return { ...state, status: to, episodes: number, episode: { number, resolvedAt, ended: null, score: null, comment: null } };
      }
      const episode =
        state.episode && state.episode.ended === null
          ? { ...state.episode, ended: to === 'closed' ? ('closed' as const) : ('reopened' as const) }
          : state.episode;
      return { ...state, status: to, episode };
    }
    case 'SatisfactionRated':
      return state.episode ? { ...state, episode: { ...state.episode, score: Number(data.score) } } : state;
    case 'SatisfactionCommented':
      return state.episode ? { ...state, episode: { ...state.episode, comment: String(data.comment) } } : state;
    default:
      return state;
  }
}

/** Whether this episode still takes a rating or a change of it at `now`. */
export const isEpisodeOpen = (episode: Episode | null, now: Date): boolean =>
  episode !== null && episode.ended === null && now.getTime() - Date.parse(episode.resolvedAt) <= RATING_WINDOW_MS;

export const CHANNEL_WORDS: Record<SatisfactionChannel, string> = { web: 'the web', telegram: 'Telegram', email: 'e-mail' };
