import { isIP } from 'node:net';
import type { AppDeps } from '../../app/deps';
import type { Config } from '../../platform/config';
import type { RecordedEvent } from '../../platform/eventstore/port';
import type { ReactionPage } from '../reactor';
import { loadSystemSettings } from '../../projections/settings';
import type { PlannedJob } from '../../app/jobs/planned';
import { STATUS_WORDS, mergedText } from '#contract/tickets';
import { type CustomerNotice, customerNoticeOf, oneLine } from '../ticketNotices';
import { isTelegramOnlyEmail } from '../../app/telegram/customers';
import { EMAIL_QUEUE, type EmailJob, PASSWORD_LINK_SLOT } from '../../app/jobs/email';
import { USERS, type UserView } from '../../projections/users';
import type { PasswordLinkReason } from '../../domain/user/user';
import { mailsOfTicket } from '../../app/email/records';
import { replyMessageId } from './threading';

/** Where links in mails and messages point: PUBLIC_URL, else this server on localhost (docs/contract.md). */
export const publicUrl = (config: Pick<Config, 'PUBLIC_URL' | 'PORT'>) => (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');

/**
 * The sender when the settings name no support address: no-reply at PUBLIC_URL's host when that is a
 * domain, else at `localhost.localdomain` (an IP address or a bare name is no valid mail domain).
 */
export function fallbackSender(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  return `no-reply@${isIP(host) === 0 && host.includes('.') ? host : 'localhost.localdomain'}`;
}

export function emailFor(
  { notice, ticket, customer }: CustomerNotice,
  systemName: string,
  baseUrl: string,
): Pick<EmailJob, 'subject' | 'text' | 'kind'> | null {
  const link = `${baseUrl}/tickets/${ticket._id}`;
  const named = `#${ticket.ticketId} “${oneLine(ticket.title)}”`;
  const greeting = `Hello ${customer.firstName},`;
  const signature = `— ${systemName}`;
  switch (notice.kind) {
    case 'created':
      return {
        kind: 'created',
        subject: oneLine(`[${systemName}] Ticket #${ticket.ticketId} created: ${ticket.title}`),
        text: `${greeting}\n\nWe have received your ticket ${named} in ${ticket.category.name}. An agent will reply soon.\n\nFollow it here: ${link}\n\n${signature}\n`,
      };
    case 'status':
      return {
        kind: 'status',
        subject: oneLine(`[${systemName}] Ticket #${ticket.ticketId} is now ${STATUS_WORDS[notice.to]}`),
        text: `${greeting}\n\nYour ticket ${named} is now ${STATUS_WORDS[notice.to]}.\n\nSee it here: ${link}\n\n${signature}\n`,
      };
    case 'reply': {
      const files = notice.files.length > 0 ? `\n\nAttached: ${notice.files.map((file) => file.originalName).join(', ')}` : '';
      return {
        kind: 'reply',
        subject: oneLine(`[${systemName}] New reply on ticket #${ticket.ticketId}: ${ticket.title}`),
        text: `${greeting}\n\n${notice.senderName} replied to your ticket ${named}:\n\n${notice.content.replace(/\r\n?/g, '\n')}${files}\n\nAnswer here: ${link}\n\n${signature}\n`,
      };
    }
    case 'merged':
      return {
        kind: 'merged',
        subject: oneLine(`[${systemName}] Ticket #${ticket.ticketId} continues in #${notice.targetNumber}`),
        text: `${greeting}\n\n${mergedText(ticket.ticketId, notice.targetNumber)}\n\nSee it here: ${link}\n\n${signature}\n`,
      };
    case 'assigned':
      return null;
  }
}

/**
 * A staff reply on a ticket that came by e-mail is the answer in the customer's thread (docs/email.md):
 * the reply's own words and files, `Re:` the subject with the ticket's number (which also threads it
 * back), `In-Reply-To` the customer's last mail and `References` all of them, sent whether or not
 * e-mail notifications are on, as it is the conversation itself.
 */
async function threadedReply(event: RecordedEvent, deps: AppDeps, found: CustomerNotice, supportAddress: string): Promise<EmailJob | null> {
  const { notice, ticket, customer } = found;
  if (notice.kind !== 'reply' || ticket.platform !== 'email') return null;
  const mails = await mailsOfTicket(deps, ticket._id);
  const references = mails.map((mail) => mail.key).filter((key) => key.startsWith('<'));
  const subject = mails[0]?.subject || ticket.title;
  return {
    to: customer.email,
    ticketId: ticket._id,
    kind: 'reply',
    subject: oneLine(`${/^re:/i.test(subject) ? '' : 'Re: '}${subject} [#${ticket.ticketId}]`),
    text: `${notice.content.replace(/\r\n?/g, '\n')}\n\n— ${notice.senderName}\n`,
    thread: { messageId: replyMessageId(`email:${event.id}`, ticket._id, supportAddress), inReplyTo: references.at(-1) ?? null, references },
    attachments: notice.files.map((file) => ({ fileId: file.fileId, name: file.originalName, mimeType: file.mimeType })),
  };
}

/** The event that asks for a password link mail (docs/identity.md). */
export const PASSWORD_LINK_ISSUED = 'PasswordLinkIssued';

const PASSWORD_LINK_INTRO: Record<PasswordLinkReason, string> = {
  'created-by-email': 'we have received your mail and made you an account, so you can follow your tickets on the web too.',
  admin: 'an administrator asked us to send you a link to set your password.',
};

/**
 * A password link goes to the user whatever the notification settings: it is their way in. The job holds
 * the user and link ids, not the token; the sender makes the link (src/workers/email/index.ts).
 */
async function passwordLinkMail(event: RecordedEvent, deps: AppDeps): Promise<PlannedJob[]> {
  const { userId, linkId, expiresAt, reason } = event.data as { userId: string; linkId: string; expiresAt: string; reason: PasswordLinkReason };
  const user = await deps.projections.reader.collection<UserView>(USERS).findOne({ _id: userId });
  if (!user || !user.isActive || isTelegramOnlyEmail(user.email)) return [];
  const { systemName } = await loadSystemSettings(deps.projections.reader);
  const data: EmailJob = {
    to: user.email,
    ticketId: null,
    kind: 'password-link',
    subject: oneLine(`[${systemName}] Set your password`),
    text: `Hello ${user.firstName},\n\n${PASSWORD_LINK_INTRO[reason]} Choose your password here (the link works once, until ${expiresAt.slice(0, 16).replace('T', ' ')} UTC):\n\n${PASSWORD_LINK_SLOT}\n\nThen sign in with ${user.email} and that password.\n\n— ${systemName}\n`,
    passwordLink: { userId, linkId },
  };
  return [
    { queue: EMAIL_QUEUE, name: data.kind, data, options: { jobId: `email:${event.id}`, group: `mailbox:${user.email.toLowerCase()}`, backoffMs: 5000 } },
  ];
}

/**
 * When e-mail notifications are on (system settings), the customer gets a mail for a ticket
 * created, a status changed and a new staff reply. Accounts made for Telegram users have no mailbox.
 */
export async function emailNotices(event: RecordedEvent, deps: AppDeps, page?: ReactionPage): Promise<PlannedJob[]> {
  if (event.type === PASSWORD_LINK_ISSUED) return passwordLinkMail(event, deps);
  const found = await customerNoticeOf(event, deps.projections.reader, deps.events, page);
  if (!found || !found.customer.isActive || isTelegramOnlyEmail(found.customer.email)) return [];
  const settings = await loadSystemSettings(deps.projections.reader);
  const options = { jobId: `email:${event.id}`, group: `mailbox:${found.customer.email.toLowerCase()}`, backoffMs: 5000 };
  const reply = await threadedReply(event, deps, found, settings.supportEmail || fallbackSender(publicUrl(deps.config)));
  if (reply) return [{ queue: EMAIL_QUEUE, name: reply.kind, data: reply, options }];
  if (!settings.emailNotifications) return [];
  const mail = emailFor(found, settings.systemName, publicUrl(deps.config));
  if (!mail) return [];
  const data: EmailJob = { to: found.customer.email, ticketId: found.ticket._id, ...mail };
  return [{ queue: EMAIL_QUEUE, name: mail.kind, data, options }];
}
