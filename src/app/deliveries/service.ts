import type { PendingJob } from '../../platform/queue/port';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import { WHITELIST, type WhitelistEntryView } from '../../projections/whitelist';
import { EMAIL_INBOUND_QUEUE, EMAIL_QUEUE, type EmailInboundJob, type EmailJob } from '../jobs/email';
import { TELEGRAM_SEND_QUEUE, TELEGRAM_UPDATES_QUEUE, type TelegramSendJob, type TelegramUpdateJob, chatOfUpdate } from '../jobs/telegram';
import type { AppDeps } from '../deps';
import { type CommandContext, metadataOf } from '../../platform/commands';
import { DELIVERY_EVENTS, deliveryStream } from './ledger';

export const DELIVERY_CHANNELS = { telegram: TELEGRAM_SEND_QUEUE, email: EMAIL_QUEUE } as const;
export type DeliveryChannel = keyof typeof DELIVERY_CHANNELS;
export const isDeliveryChannel = (value: string): value is DeliveryChannel => Object.hasOwn(DELIVERY_CHANNELS, value);

/** A message not yet through, as the Deliveries view shows it: never the message text itself. */
export interface DeliveryView {
  id: string;
  channel: DeliveryChannel;
  /** `outbound`: a notice to a person; `inbound`: a person's Telegram message or mail not yet applied to the desk. */
  direction: 'inbound' | 'outbound';
  /** Telegram chat id or e-mail address. */
  recipient: string;
  /** Who that is, when the desk knows: a user's full name (and @username), else a whitelist entry's name; null when unknown. */
  recipientName: string | null;
  ticket: { _id: string; ticketId: number; title: string } | null;
  kind: string;
  state: PendingJob['state'];
  attempts: number;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  /** How long it has waited since it was queued. */
  ageSeconds: number;
}

/** The queue's side of a row: its state, tries and times, with how long it has waited. */
const progressOf = (job: PendingJob) => ({
  state: job.state,
  attempts: job.attemptsMade,
  lastError: job.lastError,
  createdAt: job.addedAt,
  updatedAt: job.updatedAt,
  ageSeconds: Math.max(0, Math.floor((Date.now() - Date.parse(job.addedAt)) / 1000)),
});

/** The person behind a chat id or an e-mail address: a user of the desk first, else (Telegram) a whitelist entry. */
async function nameOf(deps: Pick<AppDeps, 'readStore'>, channel: DeliveryChannel, recipient: string): Promise<string | null> {
  if (!recipient) return null;
  const user = await deps.readStore.collection<UserView>(USERS).findOne(channel === 'telegram' ? { telegramId: recipient } : { email: recipient });
  const named = (first: string | null | undefined, last: string | null | undefined, username: string | null | undefined) => {
    const name = [first, last].filter(Boolean).join(' ');
    const handle = username ? `@${username}` : '';
    return [name, handle].filter(Boolean).join(' ') || null;
  };
  if (user) return named(user.firstName, user.lastName, channel === 'telegram' ? user.telegramUsername : null);
  if (channel !== 'telegram') return null;
  const entry = await deps.readStore.collection<WhitelistEntryView>(WHITELIST).findOne({ telegramId: recipient });
  return entry ? named(entry.firstName, entry.lastName, entry.username) : null;
}

/** One row of the Deliveries view for an outbound notice of a channel. */
async function outboundView(deps: Pick<AppDeps, 'readStore'>, channel: DeliveryChannel, job: PendingJob): Promise<DeliveryView> {
  const data = job.data as Partial<TelegramSendJob & EmailJob>;
  const ticket = data.ticketId ? await deps.readStore.collection<TicketView>(TICKETS).findOne({ _id: data.ticketId }) : null;
  const recipient = String(channel === 'telegram' ? data.chatId : data.to);
  return {
    id: job.id,
    channel,
    direction: 'outbound',
    recipient,
    recipientName: await nameOf(deps, channel, recipient),
    ticket: ticket ? { _id: ticket._id, ticketId: ticket.ticketId, title: ticket.title } : null,
    kind: data.kind ?? job.name,
    ...progressOf(job),
  };
}

/** Every notice of both channels on its way (waiting, running, retrying) and every Telegram message not yet applied, oldest first. */
export async function listDeliveries(deps: Pick<AppDeps, 'queue' | 'readStore'>): Promise<DeliveryView[]> {
  const views: DeliveryView[] = [];
  for (const [channel, queue] of Object.entries(DELIVERY_CHANNELS) as Array<[DeliveryChannel, string]>) {
    for (const job of await deps.queue.pending(queue)) views.push(await outboundView(deps, channel, job));
  }
  // A message given up for good was answered with the `failed` text; only those still on their way are listed.
  for (const job of await deps.queue.pending(TELEGRAM_UPDATES_QUEUE)) {
    const recipient = chatOfUpdate((job.data as TelegramUpdateJob).update) ?? '';
    const recipientName = await nameOf(deps, 'telegram', recipient);
    views.push({ id: job.id, channel: 'telegram', direction: 'inbound', recipient, recipientName, ticket: null, kind: 'update', ...progressOf(job) });
  }
  for (const job of await deps.queue.pending(EMAIL_INBOUND_QUEUE)) views.push(await inboundMailView(deps, job));
  return views.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** A mail from the support mailbox not yet taken (or that could not be taken: too large, malformed). */
async function inboundMailView(deps: Pick<AppDeps, 'readStore'>, job: PendingJob): Promise<DeliveryView> {
  const { from } = job.data as EmailInboundJob;
  return {
    id: job.id,
    channel: 'email',
    direction: 'inbound',
    recipient: from,
    recipientName: await nameOf(deps, 'email', from),
    ticket: null,
    kind: 'mail',
    ...progressOf(job),
  };
}

/**
 * One page of the notices of both channels that failed for good, newest first, and how many there
 * are: each channel's failed list is read only up to the end of the page, never in full.
 */
export async function failedDeliveriesPage(
  deps: Pick<AppDeps, 'queue' | 'readStore'>,
  { page, limit }: { page: number; limit: number },
): Promise<{ deliveries: DeliveryView[]; total: number }> {
  const end = page * limit;
  const rows: Array<{ channel: DeliveryChannel; job: PendingJob; inbound?: boolean }> = [];
  let total = 0;
  for (const [channel, queue] of Object.entries(DELIVERY_CHANNELS) as Array<[DeliveryChannel, string]>) {
    total += await deps.queue.failedCount(queue);
    for (const job of await deps.queue.failedPage(queue, 0, end)) rows.push({ channel, job });
  }
  // Mail that could not be taken in (too large, malformed) is listed with the notices that failed.
  total += await deps.queue.failedCount(EMAIL_INBOUND_QUEUE);
  for (const job of await deps.queue.failedPage(EMAIL_INBOUND_QUEUE, 0, end)) rows.push({ channel: 'email', job, inbound: true });
  const onPage = rows.sort((a, b) => b.job.updatedAt.localeCompare(a.job.updatedAt)).slice(end - limit, end);
  return {
    deliveries: await Promise.all(onPage.map(({ channel, job, inbound }) => (inbound ? inboundMailView(deps, job) : outboundView(deps, channel, job)))),
    total,
  };
}

/** Messages of one channel that wait for it to answer, by direction, and since when the oldest waits. */
export interface ChannelBacklog {
  inbound: number;
  outbound: number;
  waitingSince: string | null;
}

/**
 * What waits for a channel: once a try of one of its messages has failed and waits to be retried,
 * every message of that direction not yet through waits for the channel too (each recipient's line
 * is held in order behind its first). GET /api/health is `degraded` while any does.
 */
export async function channelBacklogs(deps: Pick<AppDeps, 'queue'>): Promise<Record<DeliveryChannel, ChannelBacklog>> {
  const waiting = async (queue: string) => {
    const open = await deps.queue.pending(queue);
    return open.some((job) => job.attemptsMade > 0) ? open : [];
  };
  const since = (jobs: PendingJob[]) => jobs.map((job) => job.addedAt).sort()[0] ?? null;
  const [telegramOut, telegramIn, emailOut, emailIn] = await Promise.all([
    waiting(TELEGRAM_SEND_QUEUE),
    waiting(TELEGRAM_UPDATES_QUEUE),
    waiting(EMAIL_QUEUE),
    waiting(EMAIL_INBOUND_QUEUE),
  ]);
  return {
    telegram: { inbound: telegramIn.length, outbound: telegramOut.length, waitingSince: since([...telegramIn, ...telegramOut]) },
    email: { inbound: emailIn.length, outbound: emailOut.length, waitingSince: since([...emailIn, ...emailOut]) },
  };
}

/**
 * An admin's retry of one notice. One whose last try may have arrived (no answer came) is sent again
 * only by this decision, recorded with the admin as its actor.
 */
export async function retryDelivery(deps: Pick<AppDeps, 'queue' | 'events'>, channel: DeliveryChannel, id: string, context: CommandContext): Promise<boolean> {
  const stream = deliveryStream(id);
  const [last] = await deps.events.readStream(stream, { direction: 'backwards', maxCount: 1 });
  if (last?.type === DELIVERY_EVENTS.uncertain) {
    await deps.events.append(stream, [{ type: DELIVERY_EVENTS.resendApproved, data: { jobId: id }, metadata: metadataOf(context) }], last.revision);
  }
  return deps.queue.retry(DELIVERY_CHANNELS[channel], id);
}

/** Notices that failed for good and wait for an admin (GET /api/health reports `degraded` while any do). */
export async function failedDeliveryCount(deps: Pick<AppDeps, 'queue'>): Promise<number> {
  let count = 0;
  for (const queue of [...Object.values(DELIVERY_CHANNELS), EMAIL_INBOUND_QUEUE]) count += await deps.queue.failedCount(queue);
  return count;
}

/** Notices on their way, by channel and state (waiting, active, retrying), and those failed for good: the metrics' figures. */
export async function deliveryQueueDepth(
  deps: Pick<AppDeps, 'queue'>,
): Promise<Array<{ channel: DeliveryChannel; state: PendingJob['state']; count: number }>> {
  const rows: Array<{ channel: DeliveryChannel; state: PendingJob['state']; count: number }> = [];
  for (const [channel, queue] of Object.entries(DELIVERY_CHANNELS) as Array<[DeliveryChannel, string]>) {
    const pending = await deps.queue.pending(queue);
    for (const state of ['waiting', 'active', 'retrying'] as const) rows.push({ channel, state, count: pending.filter((job) => job.state === state).length });
    rows.push({ channel, state: 'failed', count: await deps.queue.failedCount(queue) });
  }
  return rows;
}
