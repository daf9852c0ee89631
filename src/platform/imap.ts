import type { SystemSettings } from '#contract/settings';

/** Where the support mailbox is and how to sign in (the `mailbox*` system settings). */
export interface MailboxAccess {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  password: string;
  folder: string;
}

/** Seconds to wait for the server's greeting and each answer: a test or a fetch never hangs on a dead host. */
const IMAP_TIMEOUT_MS = 15_000;

export const mailboxAccessOf = (settings: SystemSettings): MailboxAccess => ({
  host: settings.mailboxHost,
  port: settings.mailboxPort,
  tls: settings.mailboxTls,
  user: settings.mailboxUser,
  password: settings.mailboxPassword,
  folder: settings.mailboxFolder,
});

/** A client for the mailbox; nothing is logged (the log would hold people's mail). imapflow is imported at first use, not at every start. */
export async function imapClient(access: MailboxAccess) {
  const { ImapFlow } = await import('imapflow');
  return new ImapFlow({
    host: access.host,
    port: access.port,
    secure: access.tls,
    auth: { user: access.user, pass: access.password },
    logger: false,
    connectionTimeout: IMAP_TIMEOUT_MS,
    greetingTimeout: IMAP_TIMEOUT_MS,
    socketTimeout: 5 * 60_000,
  });
}

/** A sentence for the admin about why the mailbox could not be read. */
export function imapErrorText(error: unknown): string {
  const failure = error as { authenticationFailed?: boolean; code?: string; responseText?: string; message?: string };
  if (failure.authenticationFailed) return `the server refused the user name or password${failure.responseText ? ` (${failure.responseText})` : ''}`;
  if (failure.code === 'ECONNREFUSED') return 'the server refused the connection (is the host and port right?)';
  if (failure.code === 'ENOTFOUND') return 'no such host';
  if (failure.code === 'ETIMEDOUT' || failure.code === 'CONNECT_TIMEOUT' || failure.code === 'GREETING_TIMEOUT') return 'the server did not answer in time';
  return failure.responseText ?? failure.message ?? String(error);
}

/** Signs in and opens the folder: what the channel needs, tried once ("Test connection"). */
export async function testMailbox(access: MailboxAccess): Promise<{ messages: number; idle: boolean }> {
  const imap = await imapClient(access);
  imap.on('error', () => undefined);
  await imap.connect();
  try {
    const box = await imap.mailboxOpen(access.folder, { readOnly: true });
    return { messages: box.exists, idle: imap.capabilities.has('IDLE') };
  } finally {
    await imap.logout().catch(() => imap.close());
  }
}
