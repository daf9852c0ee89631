import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Config } from '../../platform/config';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../platform/files';
import { PermanentJobError } from '../../platform/queue/port';

interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  /** A reply in an e-mail conversation (docs/email.md): its threading headers and files. */
  replyTo?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  attachments?: Array<{ filename: string; path: string; contentType: string }>;
}

export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(mail: OutgoingMail, key: string): Promise<void>;
  /** Resolves when the SMTP server answers a greeting (the outbox always does). */
  probe(): Promise<void>;
  close(): void;
}

export const outboxDir = (config: Pick<Config, 'DATA_DIR'>) => path.resolve(config.DATA_DIR, 'outbox');

/**
 * SMTP when SMTP_URL is set; otherwise each mail becomes an `.eml` file in DATA_DIR/outbox.
 * `observe` is told after every SMTP send whether the server answered (an acceptance or a refusal
 * with its code) or not at all.
 */
export function createMailer(config: Pick<Config, 'SMTP_URL' | 'DATA_DIR'>, observe: (answered: boolean) => void = () => undefined): Mailer {
  // Each transport is made at its first mail: nodemailer is imported then, not at every start.
  if (config.SMTP_URL) {
    const url = config.SMTP_URL;
    let made: Promise<Transporter> | null = null;
    const transport = () => (made ??= import('nodemailer').then(({ createTransport }) => createTransport(url)));
    return {
      kind: 'smtp',
      async send(mail) {
        try {
          await (await transport()).sendMail(mail);
          observe(true);
        } catch (error) {
          // 5xx: the server refuses this mail for good (no such mailbox); 4xx and network errors pass.
          const code = (error as { responseCode?: number }).responseCode;
          observe(code !== undefined);
          if (code !== undefined && code >= 500) throw new PermanentJobError(`SMTP ${code}: ${(error as Error).message}`);
          throw error;
        }
      },
      async probe() {
        await (await transport()).verify();
      },
      close: () => void made?.then((smtp) => smtp.close()),
    };
  }
  let made: ReturnType<typeof outboxTransport> | null = null;
  const dir = outboxDir(config);
  return {
    kind: 'outbox',
    async send(mail, key) {
      const info = await (await (made ??= outboxTransport())).sendMail(mail);
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      const file = path.join(dir, `${key.replace(/[^A-Za-z0-9_-]/g, '_')}.eml`);
      // Written whole or not at all: a reader of the outbox never sees half a mail.
      await writeFile(`${file}.tmp`, info.message as Buffer, { mode: PRIVATE_FILE_MODE });
      await rename(`${file}.tmp`, file);
    },
    probe: async () => undefined,
    close: () => void made?.then((outbox) => outbox.close()),
  };
}

/** Renders each mail to its bytes (the `.eml` the outbox keeps). */
const outboxTransport = async () => (await import('nodemailer')).createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
