import type { AppDeps } from '../../app/deps';
import { preferencesOf } from '../../app/identity/service';
import { EMAIL_QUEUE, type EmailJob } from '../../app/jobs/email';
import type { PlannedJob } from '../../app/jobs/planned';
import { isTelegramOnlyEmail } from '../../app/telegram/customers';
import type { TicketEvent } from '../../domain/ticket/ticket';
import { isStaff } from '#contract/users';
import { type RecordedEvent, recordedAs } from '../../platform/eventstore/port';
import { findPerson } from '../../projections/directory';
import { excerptOf } from '../../projections/notifications';
import { loadSystemSettings } from '../../projections/settings';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import { oneLine } from '../ticketNotices';
import { publicUrl } from './notifications';

/**
 * A mail to each colleague a note mentions who chose "E-mail me when I am mentioned" (docs/notifications.md,
 * "Mentions"). Their choice alone decides: the desk's e-mail notifications switch is about customers.
 * One job per event and person (`email:<eventId>:<userId>`) and the delivery ledger send it once.
 */
export async function mentionMails(event: RecordedEvent, deps: AppDeps): Promise<PlannedJob[]> {
  const posted = recordedAs<TicketEvent>(event);
  if (posted.type !== 'MessagePosted') return [];
  const { mentions = [], isInternal, ticketId, messageId, senderId, content } = posted.data;
  if (!isInternal || mentions.length === 0) return [];
  const [users, ticket, sender, settings] = await Promise.all([
    deps.readStore.collection<UserView>(USERS).find({ _id: { $in: mentions }, isActive: true }),
    deps.readStore.collection<TicketView>(TICKETS).findOne({ _id: ticketId }),
    findPerson(deps.readStore, senderId),
    loadSystemSettings(deps.readStore),
  ]);
  if (!ticket) return [];
  const chose = users.filter((user) => isStaff(user.role) && preferencesOf(user).mentionEmails && !isTelegramOnlyEmail(user.email));
  const by = `${sender.firstName} ${sender.lastName}`.trim();
  const link = `${publicUrl(deps.config)}/tickets/${ticket._id}?message=${encodeURIComponent(messageId)}`;
  return chose.map((user) => {
    const data: EmailJob = {
      to: user.email,
      ticketId: ticket._id,
      kind: 'mention',
      subject: oneLine(`[${settings.systemName}] ${by} mentioned you on ticket #${ticket.ticketId}: ${ticket.title}`),
      text: `Hello ${user.firstName},\n\n${by} mentioned you in an internal note on ticket #${ticket.ticketId} “${oneLine(ticket.title)}”:\n\n${excerptOf(content)}\n\nOpen the note: ${link}\n\n— ${settings.systemName}\n`,
    };
    return {
      queue: EMAIL_QUEUE,
      name: 'mention',
      data,
      options: { jobId: `email:${event.id}:${user._id}`, group: `mailbox:${user.email.toLowerCase()}`, backoffMs: 5000 },
    };
  });
}
