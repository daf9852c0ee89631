import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppDeps } from '../deps';
import type { Config } from '../../platform/config';
import { isWrongExpectedVersion } from '../../platform/eventstore/port';
import { metadataOf } from '../../platform/commands';
import { nameBasedId } from '../../platform/ids';

/**
 * One stream per mail taken from the support mailbox, named after the mail's key (its `Message-ID`,
 * else its mailbox UID and UIDVALIDITY): what became of it, with the e-mail channel as its actor. The
 * stream is written once, expecting no stream, so a mail is recorded once however often it is fetched;
 * a reply's `In-Reply-To` finds the ticket of the mail it answers here (docs/email.md).
 */
const inboundMailStream = (key: string) => `inbound-mail-${nameBasedId(`mail:${key}`)}`;

const INBOUND_MAIL_TAKEN = 'InboundMailTaken';

/** How the sender's authenticity was checked (mailauth); `warning` is shown to staff on the message. */
export interface MailAuthentication {
  dkim: string;
  spf: string;
  dmarc: string;
  warning: string | null;
}

export interface InboundMailTaken {
  key: string;
  from: string;
  subject: string;
  /** `opened`: a new ticket; `posted`: a message on a ticket; `ignored`: an auto-reply, a bounce, a list, our own; `refused`: an unknown sender. */
  outcome: 'opened' | 'posted' | 'ignored' | 'refused';
  reason: string | null;
  ticketId: string | null;
  /** The desk message that holds the mail's text (null when the ticket's description does). */
  messageId: string | null;
  /** The customer account this mail made (marked created by e-mail). */
  customerCreated: boolean;
  /** Where the raw mail is kept (DATA_DIR/inbound-mail), for staff's "show original". */
  original: string | null;
  auth: MailAuthentication | null;
}

export async function loadInboundMail(deps: Pick<AppDeps, 'events'>, key: string): Promise<InboundMailTaken | null> {
  const [taken] = await deps.events.readStream(inboundMailStream(key), { maxCount: 1 });
  return taken ? (taken.data as unknown as InboundMailTaken) : null;
}

/**
 * The mails of one ticket, in the order they came (`ticket-mail-<ticketId>`): the `References` of the
 * desk's replies, and what staff see of each mail (sender, authenticity warning, the original).
 */
const ticketMailStream = (ticketId: string) => `ticket-mail-${ticketId}`;

const TICKET_MAIL_LINKED = 'TicketMailLinked';

export interface TicketMail {
  /** The mail's Message-ID (or UID key). */
  key: string;
  /** The desk message holding its text; null for the mail that opened the ticket (its description). */
  messageId: string | null;
  from: string;
  subject: string;
  warning: string | null;
  original: string | null;
}

export async function mailsOfTicket(deps: Pick<AppDeps, 'events'>, ticketId: string): Promise<TicketMail[]> {
  const events = await deps.events.readStream(ticketMailStream(ticketId));
  return events.filter((event) => event.type === TICKET_MAIL_LINKED).map((event) => event.data as unknown as TicketMail);
}

/** Where fetched mails are kept whole: the inbound job reads them, and staff's "show original" shows them. */
export const inboundMailDir = (config: Pick<Config, 'DATA_DIR'>) => path.resolve(config.DATA_DIR, 'inbound-mail');

/** The mails of a ticket as staff see them: sender, subject, the authenticity warning and the whole original. */
export async function ticketMails(deps: Pick<AppDeps, 'events' | 'config'>, ticketId: string) {
  const mails = await mailsOfTicket(deps, ticketId);
  return Promise.all(
    mails.map(async ({ original, ...mail }) => ({
      ...mail,
      original: original ? await readFile(path.join(inboundMailDir(deps.config), original), 'utf8').catch(() => null) : null,
    })),
  );
}

/** Records what became of a mail; a second record of the same mail (a rerun after a crash) changes nothing. */
export async function recordInboundMail(deps: Pick<AppDeps, 'events' | 'clock'>, taken: InboundMailTaken): Promise<void> {
  const event = {
    id: nameBasedId(`mail-taken:${taken.key}`),
    type: INBOUND_MAIL_TAKEN,
    data: { ...taken } as unknown as Record<string, unknown>,
    metadata: metadataOf({ actor: { userId: 'system', role: 'system', platform: 'email' }, now: deps.clock() }),
  };
  if (taken.ticketId && (taken.outcome === 'opened' || taken.outcome === 'posted')) {
    const link: TicketMail = {
      key: taken.key,
      messageId: taken.messageId,
      from: taken.from,
      subject: taken.subject,
      warning: taken.auth?.warning ?? null,
      original: taken.original,
    };
    // The event id comes from the mail: linked again after a crash, it is stored once.
    await deps.events.append(
      ticketMailStream(taken.ticketId),
      [{ ...event, id: nameBasedId(`mail-linked:${taken.key}`), type: TICKET_MAIL_LINKED, data: { ...link } }],
      'any',
    );
  }
  try {
    await deps.events.append(inboundMailStream(taken.key), [event], 'no_stream');
  } catch (error) {
    if (!isWrongExpectedVersion(error)) throw error;
  }
}

/**
 * Each sender's mails taken, in a stream of its own (`mail-sender-<id of the address>`), so the flood
 * limit is decided on the log: a restart forgets nothing, and two processes taking mail count in one
 * place, each admission appended expecting the revision its count was read at (docs/email.md).
 */
const senderStream = (from: string) => `mail-sender-${nameBasedId(`sender:${from}`)}`;

const SENDER_MAIL_COUNTED = 'SenderMailCounted';

/**
 * Counts a mail against its sender's limit: false when `limit` mails of theirs were taken within
 * `windowMs` (the mail waits); a mail counted before (a job run again) is admitted again.
 */
export async function admitSenderMail(
  deps: Pick<AppDeps, 'events' | 'clock'>,
  from: string,
  key: string,
  { limit, windowMs }: { limit: number; windowMs: number },
): Promise<boolean> {
  const stream = senderStream(from);
  for (;;) {
    const recent = await deps.events.readStream(stream, { direction: 'backwards', maxCount: limit });
    if (recent.some((event) => event.data.key === key)) return true;
    const now = deps.clock();
    if (recent.filter((event) => now.getTime() - Date.parse(String(event.data.at)) < windowMs).length >= limit) return false;
    try {
      await deps.events.append(
        stream,
        [
          {
            id: nameBasedId(`sender-mail:${key}`),
            type: SENDER_MAIL_COUNTED,
            data: { from, key, at: now.toISOString() },
            metadata: metadataOf({ actor: { userId: 'system', role: 'system', platform: 'email' }, now }),
          },
        ],
        recent[0] ? recent[0].revision : 'no_stream',
      );
      return true;
    } catch (error) {
      // Another process counted a mail of this sender meanwhile: count again on what it wrote.
      if (!isWrongExpectedVersion(error)) throw error;
    }
  }
}
