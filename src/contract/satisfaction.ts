import { z } from 'zod';
import { MESSAGE_MAX, ticketIdsQuery } from './tickets';
import { multiLine, singleLine } from './text';

export const SATISFACTION_CHANNELS = ['web', 'telegram', 'email'] as const;
export type SatisfactionChannel = (typeof SATISFACTION_CHANNELS)[number];

/** What an admin sets about the survey (docs/satisfaction.md). */
export interface SatisfactionSettings {
  enabled: boolean;
  question: string;
  /** The words of scores 1 to 5, in that order. */
  labels: string[];
  /** Minutes between a resolution and the survey on Telegram and by e-mail (the web prompt shows at once). */
  delayMinutes: number;
  channels: Record<SatisfactionChannel, boolean>;
}

export const DEFAULT_SATISFACTION_SETTINGS: SatisfactionSettings = {
  enabled: true,
  question: 'How would you rate the support you received?',
  labels: ['Very poor', 'Poor', 'Okay', 'Good', 'Excellent'],
  delayMinutes: 0,
  channels: { web: true, telegram: true, email: true },
};

export const ratingsQuerySchema = ticketIdsQuery;

const SATISFACTION_BOUNDS = { questionMax: 200, labelMax: 30, delayMinutesMax: 7 * 24 * 60 } as const;

export const updateSatisfactionSettingsSchema = z
  .object({
    enabled: z.boolean({ message: 'enabled must be true or false' }),
    question: singleLine(z.string(), 'The question')
      .min(1, 'The question cannot be empty')
      .max(SATISFACTION_BOUNDS.questionMax, `The question must be at most ${SATISFACTION_BOUNDS.questionMax} characters`),
    labels: z
      .array(
        singleLine(z.string(), 'A label')
          .min(1, 'A label cannot be empty')
          .max(SATISFACTION_BOUNDS.labelMax, `A label must be at most ${SATISFACTION_BOUNDS.labelMax} characters`),
      )
      .length(5, 'Give exactly five labels, for the scores 1 to 5'),
    delayMinutes: z
      .number({ message: 'The delay must be a number of minutes' })
      .int('The delay must be whole minutes')
      .min(0, 'The delay cannot be negative')
      .max(SATISFACTION_BOUNDS.delayMinutesMax, 'The delay can be at most 7 days (10080 minutes)'),
    channels: z.strictObject(
      { web: z.boolean(), telegram: z.boolean(), email: z.boolean() },
      { message: 'channels must be an object of web, telegram and email, each true or false' },
    ),
  })
  .partial()
  .strict();
export type SatisfactionSettingsUpdate = z.infer<typeof updateSatisfactionSettingsSchema>;

export const rateSchema = z
  .object({
    score: z
      .number({ message: 'score must be a whole number from 1 to 5' })
      .int('score must be a whole number from 1 to 5')
      .min(1, 'score must be at least 1')
      .max(5, 'score must be at most 5'),
  })
  .strict();

export const ratingCommentSchema = z
  .object({
    comment: multiLine(z.string({ message: 'comment must be text' }), 'The comment')
      .min(1, 'The comment cannot be empty')
      .max(MESSAGE_MAX, `The comment must be at most ${MESSAGE_MAX} characters`),
  })
  .strict();

/** A ticket's survey as the customer and staff see it. */
export interface TicketSatisfaction {
  enabled: boolean;
  question: string;
  labels: string[];
  /** The latest episode (null before the first resolution). */
  episode: {
    number: number;
    resolvedAt: string;
    /** Still takes a rating or a change of it. */
    open: boolean;
    score: number | null;
    comment: string | null;
    channel: SatisfactionChannel | null;
    ratedAt: string | null;
  } | null;
  /** The viewer may rate now (the ticket's customer, an open episode, the web channel on). */
  canRate: boolean;
}

export interface SatisfactionGroup {
  id: string | null;
  name: string;
  surveyed: number;
  rated: number;
  /** Share of ratings of 4 or 5, in percent (null with no rating). */
  score: number | null;
  /** Share of surveyed resolutions that got a rating, in percent (null with none surveyed). */
  responseRate: number | null;
}

export interface SatisfactionReport {
  from: string;
  to: string;
  total: SatisfactionGroup;
  byCategory: SatisfactionGroup[];
  byAgent: SatisfactionGroup[];
  /** By the ticket's team when resolved ('No team' for none, docs/teams.md). */
  byTeam: SatisfactionGroup[];
  latestComments: Array<{ ticketId: string; number: number; title: string; score: number; comment: string; at: string; agentName: string | null }>;
}

export const reportQuerySchema = z
  .object({
    from: z.iso.datetime({ message: 'from must be an ISO date-time' }).optional(),
    to: z.iso.datetime({ message: 'to must be an ISO date-time' }).optional(),
  })
  .strict();
