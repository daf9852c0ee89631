import type { SatisfactionChannel, SatisfactionReport, SatisfactionGroup, SatisfactionSettingsUpdate, TicketSatisfaction } from '#contract/satisfaction';
import { ConflictError, ForbiddenError, NotFoundError } from '#contract/errors';
import { isStaff } from '#contract/users';
import { type Rater, type SatisfactionCommand, satisfactionDecider } from '../../domain/satisfaction/decide';
import { isEpisodeOpen } from '../../domain/satisfaction/satisfaction';
import { SATISFACTION_SETTINGS_STREAM, satisfactionSettingsDecider } from '../../domain/satisfaction/settings';
import { ticketStream } from '../../domain/ticket/ticket';
import type { CommandContext } from '../../platform/commands';
import type { ReadStore } from '../../platform/readstore/port';
import { findCategory, findPerson } from '../../projections/directory';
import {
  type EpisodeView,
  awaitingRatingOf,
  episodesResolvedBetween,
  latestEpisode,
  loadSatisfactionSettings,
  ticketCustomer,
} from '../../projections/satisfaction';
import { USERS, type UserView } from '../../projections/users';
import { runCommand } from '../commands';
import { NO_TEAM_NAME, csvCell, fullName, percent, reportGroups, teamNames } from '../reports';
import type { AppDeps } from '../deps';

/** A rating or comment through one channel; `episode` is the one a link or button was made for. */
export interface RatingInput {
  ticketId: string;
  rater: Rater;
  channel: SatisfactionChannel;
  episode?: number;
}

/** The survey is off, or off for this channel: enforced here, whatever a client shows. */
async function requireChannel(store: ReadStore, channel: SatisfactionChannel) {
  const settings = await loadSatisfactionSettings(store);
  if (!settings.enabled) throw new ConflictError('Satisfaction ratings are turned off', 'SATISFACTION_OFF');
  if (!settings.channels[channel]) throw new ConflictError(`Satisfaction ratings are turned off for ${channel}`, 'SATISFACTION_OFF');
}

/** Runs a rating or a comment on the ticket's stream, where the episode it belongs to is decided. */
async function runRating(
  deps: AppDeps,
  input: RatingInput,
  what: { type: 'RateTicket'; score: number } | { type: 'CommentOnRating'; comment: string },
  context: CommandContext,
) {
  await requireChannel(deps.readStore, input.channel);
  // A link or a bot button outlives the account: a deactivated customer no longer rates by them either.
  const rater = await deps.readStore.collection<UserView>(USERS).findOne({ _id: input.rater.userId });
  if (rater && !rater.isActive) throw new ForbiddenError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  const { ticketId, rater: actor, channel, episode } = input;
  const command = { ...what, ticketId, actor, channel, episode, now: context.now } as SatisfactionCommand;
  await runCommand(deps, ticketStream(ticketId), satisfactionDecider, command, context);
}

export const rateTicket = (deps: AppDeps, input: RatingInput & { score: number }, context: CommandContext) =>
  runRating(deps, input, { type: 'RateTicket', score: input.score }, context);

export const commentOnRating = (deps: AppDeps, input: RatingInput & { comment: string }, context: CommandContext) =>
  runRating(deps, input, { type: 'CommentOnRating', comment: input.comment }, context);

/** The survey of a ticket as its customer or staff see it; 404 for anyone else (like the ticket itself). */
export async function ticketSatisfaction(deps: AppDeps, ticketId: string, viewer: Rater): Promise<TicketSatisfaction> {
  const customerId = await ticketCustomer(deps.readStore, ticketId);
  if (customerId === null || (!isStaff(viewer.role) && customerId !== viewer.userId)) throw new NotFoundError('Ticket');
  const episode = await latestEpisode(deps.readStore, ticketId);
  const settings = await loadSatisfactionSettings(deps.readStore);
  const open = episode !== null && isEpisodeOpen(episode, deps.clock());
  return {
    enabled: settings.enabled,
    question: settings.question,
    labels: settings.labels,
    episode: episode && {
      number: episode.episode,
      resolvedAt: episode.resolvedAt,
      open,
      score: episode.score,
      comment: episode.comment,
      channel: episode.channel,
      ratedAt: episode.ratedAt,
    },
    canRate: open && settings.enabled && settings.channels.web && viewer.role === 'customer' && episode?.customerId === viewer.userId,
  };
}

/**
 * The customer's notices of the survey: their resolved tickets that wait for a rating they may give
 * on the web now (none while the survey or its web channel is off).
 */
export async function ratingsAwaiting(deps: AppDeps, viewer: Rater) {
  if (viewer.role !== 'customer') return [];
  const settings = await loadSatisfactionSettings(deps.readStore);
  if (!settings.enabled || !settings.channels.web) return [];
  return awaitingRatingOf(deps.readStore, viewer.userId, deps.clock());
}

export async function updateSatisfactionSettings(deps: AppDeps, changes: SatisfactionSettingsUpdate, context: CommandContext) {
  await runCommand(deps, SATISFACTION_SETTINGS_STREAM, satisfactionSettingsDecider, { type: 'UpdateSatisfactionSettings', changes }, context);
}

function group(id: string | null, name: string, rows: EpisodeView[]): SatisfactionGroup {
  const rated = rows.filter((row) => row.score !== null);
  const happy = rated.filter((row) => (row.score ?? 0) >= 4).length;
  return { id, name, surveyed: rows.length, rated: rated.length, score: percent(happy, rated.length), responseRate: percent(rated.length, rows.length) };
}

/** The resolutions of a period with their ratings: each one is one survey, counted once however often its rating changed. */
const episodesOf = (store: ReadStore, from: Date, to: Date) => episodesResolvedBetween(store, from.toISOString(), to.toISOString());

/** CSAT for the period: the share of ratings of 4 or 5, and of resolutions that got a rating; by category, by agent and by team. */
export async function satisfactionReport(store: ReadStore, from: Date, to: Date): Promise<SatisfactionReport> {
  const rows = await episodesOf(store, from, to);
  const { byCategory, byAgent, byTeam } = await reportGroups(store, rows, group);
  const commented = rows
    .filter((row) => row.comment !== null && row.score !== null)
    .sort((a, b) => (b.commentedAt ?? '').localeCompare(a.commentedAt ?? ''))
    .slice(0, 10);
  const latestComments = [];
  for (const row of commented) {
    latestComments.push({
      ticketId: row.ticketId,
      number: row.number,
      title: row.title,
      score: row.score!,
      comment: row.comment!,
      at: row.commentedAt ?? row.ratedAt ?? row.resolvedAt,
      agentName: row.agentId ? fullName(await findPerson(store, row.agentId)) : null,
    });
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    total: group(null, 'All', rows),
    byCategory,
    byAgent,
    byTeam,
    latestComments,
  };
}

/** One CSV line per resolution of the period; every field quoted, and formula-looking text defused for spreadsheets. */
export async function satisfactionCsv(store: ReadStore, from: Date, to: Date): Promise<string> {
  const rows = await episodesOf(store, from, to);
  const lines = [['ticket', 'title', 'resolution', 'resolvedAt', 'category', 'agent', 'team', 'score', 'comment', 'channel', 'ratedAt'].map(csvCell).join(',')];
  const teams = await teamNames(store);
  for (const row of rows) {
    const category = (await findCategory(store, row.categoryId)).name;
    const agent = row.agentId ? fullName(await findPerson(store, row.agentId)) : '';
    const team = row.teamId ? (teams.get(row.teamId) ?? '') : NO_TEAM_NAME;
    lines.push(
      [row.number, row.title, row.episode, row.resolvedAt, category, agent, team, row.score, row.comment, row.channel, row.ratedAt].map(csvCell).join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
