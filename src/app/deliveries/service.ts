import type { PendingJob } from '../../platform/queue/port';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { EMAIL_QUEUE, type EmailJob } from '../jobs/email';
import { TELEGRAM_SEND_QUEUE, type TelegramSendJob } from '../jobs/telegram';
import type { AppDeps } from '../deps';

export const DELIVERY_CHANNELS = { telegram: TELEGRAM_SEND_QUEUE, email: EMAIL_QUEUE } as const;
export type DeliveryChannel = keyof typeof DELIVERY_CHANNELS;
export const isDeliveryChannel = (value: string): value is DeliveryChannel => Object.hasOwn(DELIVERY_CHANNELS, value);

/** A notice not yet delivered, as the Deliveries view shows it: never the message text itself. */
export interface DeliveryView {
  id: string;
  channel: DeliveryChannel;
  /** Telegram chat id or e-mail address. */
  recipient: string;
  ticket: { _id: string; ticketId: number; title: string } | null;
  kind: string;
  state: PendingJob['state'];
  attempts: number;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Every undelivered notice of both channels, oldest first. */
export async function listDeliveries(deps: Pick<AppDeps, 'queue' | 'readStore'>): Promise<DeliveryView[]> {
  const tickets = deps.readStore.collection<TicketView>(TICKETS);
  const views: DeliveryView[] = [];
  for (const [channel, queue] of Object.entries(DELIVERY_CHANNELS) as Array<[DeliveryChannel, string]>) {
    for (const job of await deps.queue.pending(queue)) {
      const data = job.data as Partial<TelegramSendJob & EmailJob>;
      const ticket = data.ticketId ? await tickets.findOne({ _id: data.ticketId }) : null;
      views.push({
        id: job.id,
        channel,
        recipient: String(channel === 'telegram' ? data.chatId : data.to),
        ticket: ticket ? { _id: ticket._id, ticketId: ticket.ticketId, title: ticket.title } : null,
        kind: data.kind ?? job.name,
        state: job.state,
        attempts: job.attemptsMade,
        lastError: job.lastError,
        createdAt: job.addedAt,
        updatedAt: job.updatedAt,
      });
    }
  }
  return views.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Notices that failed for good and wait for an admin (GET /api/health reports `degraded` while any do). */
export async function failedDeliveryCount(deps: Pick<AppDeps, 'queue'>): Promise<number> {
  let count = 0;
  for (const queue of Object.values(DELIVERY_CHANNELS)) count += await deps.queue.failedCount(queue);
  return count;
}

/** Notices on their way, by channel and state (waiting, active, retrying), and those failed for good: the metrics' figures. */
export async function deliveryQueueDepth(
  deps: Pick<AppDeps, 'queue'>,
): Promise<Array<{ channel: DeliveryChannel; state: PendingJob['state']; count: number }>> {
  const rows: Array<{ channel: DeliveryChannel; state: PendingJob['state']; count: number }> = [];
  for (const [channel, queue] of Object.entries(DELIVERY_CHANNELS) as Array<[DeliveryChannel, string]>) {
    const pending = await deps.queue.pending(queue);
    for (const state of ['waiting', 'active', 'retrying', 'failed'] as const)
      rows.push({ channel, state, count: pending.filter((job) => job.state === state).length });
  }
  return rows;
}
