import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import EmailReplyParser from 'email-reply-parser';
import { Resolver } from 'node:dns/promises';
// Imported at the first mail: mailauth and mailparser took 150 ms of every start (docs/benchmark.md, "Cold start").
import type { DNSResolver } from 'mailauth';
import type { ParsedMail } from 'mailparser';
import type { AppDeps } from '../../app/deps';
import { type InboundMailTaken, type MailAuthentication, admitSenderMail, inboundMailDir, loadInboundMail, recordInboundMail } from '../../app/email/records';
import { issuePasswordLink } from '../../app/identity/passwordLinks';
import { createUser } from '../../app/identity/service';
import { incomingFile, storeFile } from '../../app/tickets/files';
import { openTicket, postMessage } from '../../app/tickets/service';
import type { EmailInboundJob } from '../../app/jobs/email';
import { ConflictError, DomainError } from '#contract/errors';
import { type Attachment, DESCRIPTION_MAX, MESSAGE_MAX, OPEN_STATUSES } from '#contract/tickets';
import type { CommandContext } from '../../platform/commands';
import type { Actor } from '../../platform/eventstore/port';
import { nameBasedId } from '../../platform/ids';
import { PermanentJobError } from '../../platform/queue/port';
import { CATEGORIES, type CategoryView } from '../../projections/categories';
import { type SystemSettingsView, loadSystemSettings } from '../../projections/settings';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import { ticketOfReplyId } from './threading';

/** A sender writing more than EMAIL_SENDER_HOURLY_LIMIT mails in RATE_WINDOW_MS is held back (loops with another robot, floods). */
const RATE_WINDOW_MS = 60 * 60 * 1000;
const TITLE_MAX = 200;
const DNS_TIMEOUT_MS = 1500;
const CUT = '\n\n[…the rest is in the original mail]';

/** The e-mail channel as the actor of what it does on its own (accounts it makes, records). */
const CHANNEL: Actor = { userId: 'system', role: 'system', platform: 'email' };

/**
 * Why a mail must open nothing and be answered by nothing (docs/email.md, loops): an auto-reply, a
 * bounce or delivery report, mailing-list or bulk mail. Null for a person's mail.
 */
function automaticMail(mail: ParsedMail): string | null {
  const header = (name: string) => {
    const value = mail.headers.get(name);
    if (value === undefined || value === null) return null;
    return (typeof value === 'object' && 'value' in value ? String(value.value) : String(value)).trim().toLowerCase();
  };
  const autoSubmitted = header('auto-submitted');
  if (autoSubmitted && autoSubmitted !== 'no') return `Auto-Submitted: ${autoSubmitted}`;
  const precedence = header('precedence');
  if (precedence && ['bulk', 'list', 'junk', 'auto_reply'].includes(precedence)) return `Precedence: ${precedence}`;
  if (header('x-autoreply') !== null || header('x-autorespond') !== null) return 'X-Autoreply';
  const returnPath = mail.headerLines.find((line) => line.key === 'return-path')?.line ?? '';
  if (/^return-path:\s*<\s*>\s*$/i.test(returnPath)) return 'Return-Path: <>';
  const contentType = header('content-type') ?? '';
  if (contentType.startsWith('multipart/report')) return 'a delivery status report';
  const from = mail.from?.value[0]?.address?.toLowerCase() ?? '';
  if (/^(mailer-daemon|postmaster)@/.test(from)) return 'a bounce';
  if (header('list-id') !== null) return 'mailing-list mail';
  return null;
}

/**
 * DKIM, SPF and DMARC as mailauth finds them. This desk reads the mail after delivery, so SPF is
 * judged on the connecting address the receiving server recorded, when it did; a failed DNS lookup
 * counts as none or temperror, never as a pass. A signature that does not verify, or an SPF or DMARC
 * fail, is a warning staff see on the message.
 */
async function checkSender(raw: Buffer, from: string, resolver: DNSResolver): Promise<MailAuthentication> {
  const { authenticate } = await import('mailauth');
  const result = await authenticate(raw, { sender: from, mta: 'support-desk', trustReceived: true, resolver }).catch(() => null);
  if (!result) return { dkim: 'temperror', spf: 'temperror', dmarc: 'temperror', warning: null };
  const dkim = result.dkim.results.map((entry) => ({ result: entry.status.result, comment: entry.status.comment ?? '' }));
  const spf = result.spf ? result.spf.status.result : 'none';
  const dmarc = result.dmarc ? result.dmarc.status.result : 'none';
  const failedSignature = dkim.find((entry) => entry.result === 'fail' || (entry.result === 'neutral' && /did not verify/.test(entry.comment)));
  const warnings = [
    failedSignature ? `its DKIM signature does not verify (${failedSignature.comment || failedSignature.result})` : null,
    spf === 'fail' || spf === 'softfail' ? `SPF says ${spf}` : null,
    dmarc === 'fail' ? 'DMARC says fail' : null,
  ].filter(Boolean);
  return {
    dkim: dkim.map((entry) => entry.result).join(',') || 'none',
    spf,
    dmarc,
    warning: warnings.length > 0 ? `The sender could not be verified: ${warnings.join('; ')}.` : null,
  };
}

/** The mail's own words: the text part (or the HTML's text), without the quoted history and signature, under the desk's text rules. */
function mailText(mail: ParsedMail): { text: string; trimmed: boolean } {
  const whole = cleanText(mail.text ?? '');
  const visible = cleanText(new EmailReplyParser().read(whole).getVisibleText());
  return visible === '' ? { text: whole, trimmed: false } : { text: visible, trimmed: visible !== whole };
}

const cleanText = (text: string) =>
  text
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex -- the desk's text rules refuse control characters but line breaks and tabs
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - CUT.length).trimEnd()}${CUT}`);

/**
 * Takes one fetched mail into the desk: a message on the ticket it answers, or a new ticket. Every id
 * it makes comes from the mail's key, so running it again (a crash mid-way, a second copy) finds what
 * the first run made instead of making it twice; the record of the mail is written last.
 */
export class InboundMail {
  private readonly dns = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 1 });
  /** DNS for mailauth, bounded: a mailbox read where DNS does not answer waits seconds per mail, not minutes. */
  private readonly resolver: DNSResolver = (name, type) => this.dns.resolve(name, type) as Promise<string[][] | string[]>;

  constructor(private readonly deps: AppDeps) {}

  async take(job: EmailInboundJob): Promise<void> {
    if (await loadInboundMail(this.deps, job.key)) return;
    const settings = await loadSystemSettings(this.deps.readStore);
    if (job.file === null) throw new PermanentJobError(`the mail from ${job.from || 'an unknown sender'} is too large to take (${job.size} bytes)`);
    const original = path.join(inboundMailDir(this.deps.config), job.file);
    const raw = await readFile(original);
    const { simpleParser } = await import('mailparser');
    const mail = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true }).catch((error: unknown) => {
      throw new PermanentJobError(`the mail could not be read: ${(error as Error).message}`);
    });
    const from = mail.from?.value[0]?.address?.toLowerCase() ?? '';
    if (!from || !/^[^@\s]+@[^@\s]+$/.test(from)) throw new PermanentJobError('the mail has no sender address (From) to answer');
    const subject = cleanText(mail.subject ?? '').replace(/\s+/g, ' ');
    const base: Omit<InboundMailTaken, 'outcome' | 'reason'> = {
      key: job.key,
      from,
      subject,
      ticketId: null,
      messageId: null,
      customerCreated: false,
      original: job.file,
      auth: null,
    };
    const ignore = (reason: string) => recordInboundMail(this.deps, { ...base, outcome: 'ignored', reason });
    const automatic = automaticMail(mail);
    if (automatic) return ignore(`automatic mail (${automatic})`);
    if (settings.supportEmail && from === settings.supportEmail.toLowerCase()) return ignore('sent from the support address');
    const limit = this.deps.config.EMAIL_SENDER_HOURLY_LIMIT;
    if (!(await admitSenderMail(this.deps, from, job.key, { limit, windowMs: RATE_WINDOW_MS })))
      throw new Error(`${from} sent more than ${limit} mails within an hour; taken later`);

    const auth = await checkSender(raw, from, this.resolver);
    const found = await this.deps.readStore.collection<UserView>(USERS).findOne({ email: from });
    if (found && found.role !== 'customer') return ignore('sent by a staff account');
    if (found && !found.isActive) return recordInboundMail(this.deps, { ...base, auth, outcome: 'refused', reason: 'the customer account is deactivated' });
    if (!found && settings.mailboxUnknownSenders === 'refuse')
      return recordInboundMail(this.deps, { ...base, auth, outcome: 'refused', reason: 'unknown senders are refused (System Settings)' });
    const customer = found ?? (await this.createCustomer(job.key, from, mail));
    const context: CommandContext = { actor: { userId: customer._id, role: 'customer', platform: 'email' }, now: this.deps.clock() };

    const { text } = mailText(mail);
    const attachments = await this.attachments(mail, settings);
    const files = attachments.files;
    const notes = attachments.refused.length > 0 ? `\n\n[Not taken: ${attachments.refused.join('; ')}]` : '';
    const taken = { ...base, auth, customerCreated: !found };
    const messageId = nameBasedId(`mail-message:${job.key}`);
    const target = (await this.answeredTicket(mail, customer)) ?? (await this.openTicketOf(customer));
    if (target) {
      try {
        await postMessage(
          this.deps,
          target._id,
          { messageId, content: cut(text + notes, MESSAGE_MAX), isInternal: false, attachments: files, platform: 'email' },
          context,
        );
        return recordInboundMail(this.deps, { ...taken, outcome: 'posted', reason: null, ticketId: target._id, messageId });
      } catch (error) {
        // A closed ticket takes no reply, and a reopen another open ticket refuses: the mail opens a ticket of its own.
        if (!(error instanceof DomainError) || error.status === 500) throw error;
      }
    }
    const ticketId = nameBasedId(`mail-ticket:${job.key}`);
    const category = await this.categoryForMail(settings);
    try {
      await openTicket(
        this.deps,
        {
          ticketId,
          title: cut(subject || '(no subject)', TITLE_MAX),
          description: cut(text + notes || '(no text)', DESCRIPTION_MAX),
          category: category._id,
          priority: 'medium',
          customFieldValues: {},
          files: [],
          platform: 'email',
        },
        context,
      );
    } catch (error) {
      // A ticket opened meanwhile (another mail of theirs): the rule of one open ticket puts this mail there.
      const open = error instanceof ConflictError ? await this.openTicketOf(customer) : null;
      if (!open) throw error;
      await postMessage(
        this.deps,
        open._id,
        { messageId, content: cut(text + notes, MESSAGE_MAX), isInternal: false, attachments: files, platform: 'email' },
        context,
      );
      return recordInboundMail(this.deps, { ...taken, outcome: 'posted', reason: null, ticketId: open._id, messageId });
    }
    // The files of a new ticket's mail follow as its first message.
    if (files.length > 0) await postMessage(this.deps, ticketId, { messageId, content: '', isInternal: false, attachments: files, platform: 'email' }, context);
    await recordInboundMail(this.deps, { ...taken, outcome: 'opened', reason: null, ticketId, messageId: files.length > 0 ? messageId : null });
  }

  /** The ticket a reply answers: the desk's own Message-ID or an earlier mail in In-Reply-To/References, or `[#number]` in the subject; the sender's own tickets only. */
  private async answeredTicket(mail: ParsedMail, customer: UserView): Promise<TicketView | null> {
    const tickets = this.deps.readStore.collection<TicketView>(TICKETS);
    const references = [mail.inReplyTo ?? '', ...[mail.references ?? []].flat()].flatMap((value) => value.match(/<[^>]+>/g) ?? []).reverse();
    for (const reference of references) {
      const ticketId = ticketOfReplyId(reference) ?? (await loadInboundMail(this.deps, reference))?.ticketId;
      const ticket = ticketId ? await tickets.findOne({ _id: ticketId }) : null;
      if (ticket?.customer._id === customer._id) return ticket;
    }
    const number = /\[#(\d{1,9})\]|#(\d{1,9})\b/.exec(mail.subject ?? '');
    const ticket = number ? await tickets.findOne({ ticketId: Number(number[1] ?? number[2]) }) : null;
    return ticket?.customer._id === customer._id ? ticket : null;
  }

  private async openTicketOf(customer: UserView): Promise<TicketView | null> {
    return this.deps.readStore.collection<TicketView>(TICKETS).findOne({ 'customer._id': customer._id, status: { $in: [...OPEN_STATUSES] } });
  }

  /**
   * New mail goes to the category of System Settings ("Category for new mail"), else, and when that one
   * was archived since or asks for fields since, to the first active category (by order) that asks nothing the mail cannot answer.
   */
  private async categoryForMail(settings: SystemSettingsView): Promise<CategoryView> {
    const categories = await this.deps.readStore.collection<CategoryView>(CATEGORIES).find({ isActive: true }, { sort: { order: 1 } });
    const takesMail = (candidate: CategoryView) => candidate.customFields.every((field) => !field.required);
    const chosen = categories.find((candidate) => candidate._id === settings.mailboxCategory && takesMail(candidate));
    const category = chosen ?? categories.find(takesMail);
    if (!category) throw new Error('no active category without required fields takes new tickets from e-mail');
    return category;
  }

  /**
   * A customer for a sender the desk does not know, marked as created by e-mail (on the account and in the
   * mail's record), with a random password and a link to set their own, mailed to them (docs/identity.md).
   * The link's id comes from the address: the job run again after a crash issues no second one.
   */
  private async createCustomer(key: string, from: string, mail: ParsedMail): Promise<UserView> {
    const userId = nameBasedId(`mail-customer:${from}`);
    const existing = await this.deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
    if (existing) return existing;
    const [first = 'E-mail', ...rest] = (mail.from?.value[0]?.name || from.split('@')[0] || 'E-mail')
      .replace(/\p{Cc}/gu, ' ')
      .trim()
      .split(/\s+/);
    const local = from
      .split('@')[0]!
      .replace(/[^A-Za-z0-9_]/g, '_')
      .slice(0, 20);
    let customer: UserView;
    try {
      customer = await createUser(
        this.deps,
        {
          username: `mail_${local}_${nameBasedId(key).slice(0, 6)}`,
          email: from,
          firstName: first.slice(0, 50),
          lastName: (rest.join(' ') || 'Customer').slice(0, 50),
          password: randomBytes(24).toString('base64url'),
          role: 'customer',
          isActive: true,
        },
        { actor: CHANNEL, now: this.deps.clock() },
        userId,
        'email',
      );
    } catch (error) {
      const account = await this.deps.readStore.collection<UserView>(USERS).findOne({ email: from });
      if (account) return account;
      throw error;
    }
    await issuePasswordLink(this.deps, userId, 'created-by-email', { actor: CHANNEL, now: this.deps.clock() }, nameBasedId(`mail-password-link:${from}`));
    return customer;
  }

  /** The mail's files through the web's upload rules (count, size, type); those refused are named in the message. */
  private async attachments(mail: ParsedMail, settings: SystemSettingsView): Promise<{ files: Attachment[]; refused: string[] }> {
    const files: Attachment[] = [];
    const refused: string[] = [];
    for (const [index, part] of mail.attachments.entries()) {
      const name = (
        part.filename ?? `attachment-${index + 1}${part.contentType === 'image/png' ? '.png' : part.contentType === 'image/jpeg' ? '.jpg' : ''}`
      ).replace(/[/\\]/g, '_');
      if (files.length >= settings.maxFiles) {
        refused.push(`${name} (at most ${settings.maxFiles} files)`);
        continue;
      }
      if (part.size > settings.maxFileSize) {
        refused.push(`${name} (larger than ${Math.round(settings.maxFileSize / 1024 / 1024)} MB)`);
        continue;
      }
      const temp = await incomingFile(this.deps);
      await writeFile(temp, part.content);
      try {
        files.push(await storeFile(this.deps, temp, name, part.size));
      } catch (error) {
        refused.push(error instanceof DomainError ? error.message : `${name} (could not be stored)`);
      }
    }
    return { files, refused };
  }
}
