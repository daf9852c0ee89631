export const EMAIL_QUEUE = 'email';

export interface EmailJob {
  to: string;
  subject: string;
  text: string;
  /** Null for a mail about the account (a password link). */
  ticketId: string | null;
  /** created, status, reply or password-link. */
  kind: string;
  /**
   * A password link's user and link: the sender computes the link's token from them and puts it where
   * the text says PASSWORD_LINK_SLOT, so the token is stored nowhere, not even in the queue (docs/identity.md).
   */
  passwordLink?: { userId: string; linkId: string };
  /** A reply in an e-mail conversation: threading headers and the files of the reply (docs/email.md). */
  thread?: { messageId: string; inReplyTo: string | null; references: string[] };
  attachments?: Array<{ fileId: string; name: string; mimeType: string }>;
}

/**
 * Mail fetched from the support mailbox, waiting to be taken into the desk (src/workers/email/inbound.ts).
 * The raw mail waits in DATA_DIR/inbound-mail under `file`; the job id comes from the mail's key, so a
 * mail fetched twice (a restart before it was marked, a second process, a re-sent copy) is one job.
 */
export const EMAIL_INBOUND_QUEUE = 'email-inbound';

export interface EmailInboundJob {
  /** The mail's `Message-ID`, or its mailbox UID and UIDVALIDITY when it has none. */
  key: string;
  /** The stored raw mail, or null when it was too large to fetch. */
  file: string | null;
  from: string;
  size: number;
}

/** Where a password link mail's text takes the link, filled in as it is sent. */
export const PASSWORD_LINK_SLOT = '{password-link}';
