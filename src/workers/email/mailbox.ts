import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ImapFlow } from 'imapflow';
import type { AppDeps } from '../../app/deps';
import { recordMailboxStatus } from '../../app/email/mailbox';
import { EMAIL_INBOUND_QUEUE, type EmailInboundJob } from '../../app/jobs/email';
import { SYSTEM_SETTINGS_STREAM } from '../../domain/settings/settings';
import { imapClient, imapErrorText, mailboxAccessOf } from '../../platform/imap';
import { type SystemSettingsView, loadSystemSettings } from '../../projections/settings';
import { keepInboundMail } from './store';

/** Without IDLE (or as a safety net beside it), the folder is searched this often. */
const POLL_MS = 30_000;
/** Wait before connecting again after the mailbox could not be read. */
const RETRY_MS = 2000;
/**
 * A mail larger than this is not downloaded: it can hold no more than the files the desk takes
 * (maxFiles of maxFileSize, base64 makes them a third larger) and its text.
 */
const mailLimit = (settings: SystemSettingsView) => Math.ceil(settings.maxFiles * settings.maxFileSize * 1.4) + 1024 * 1024;

/** The job of a mail: one per key, whichever process fetched it and however often. */
const inboundJobId = (key: string) => `mail:${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;

/**
 * Reads the support mailbox (docs/email.md): while the workers' lease is held and a host is set, it
 * signs in, takes every unseen mail of the folder into the inbound queue (the raw mail kept on disk
 * first) and only then marks it seen or moves it, as the settings say; then it waits in IDLE for the
 * next, or polls where the server has no IDLE. A restart between queueing and marking fetches the
 * mail again, and the job id (from its Message-ID, else UIDVALIDITY and UID) makes it the same job.
 * While the mailbox cannot be read it says so (health `degraded`) and tries again.
 */
export class MailboxReader {
  private loop: { controller: AbortController; done: Promise<void> } | null = null;
  private wanted = '';
  private unsubscribe: (() => void) | null = null;
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: AppDeps,
    private readonly active: () => boolean,
  ) {}

  start(): void {
    this.unsubscribe = this.deps.projections.onApplied((event) => {
      if (event.streamId === SYSTEM_SETTINGS_STREAM) this.refresh();
    });
    this.refresh();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.applying;
    await this.stopLoop();
  }

  /** Reads the settings again and (re)starts or stops reading as they and the lease say. */
  refresh(): void {
    this.applying = this.applying
      .then(async () => {
        const settings = await loadSystemSettings(this.deps.readStore);
        const wanted =
          this.active() && settings.mailboxHost ? JSON.stringify(mailboxAccessOf(settings)) + settings.mailboxAfterFetch + settings.mailboxMoveTo : '';
        if (wanted === this.wanted && (this.loop !== null) === (wanted !== '')) return;
        await this.stopLoop();
        this.wanted = wanted;
        if (!wanted) {
          if (this.active()) await recordMailboxStatus(this.deps, 'off');
          return;
        }
        const controller = new AbortController();
        this.loop = { controller, done: this.read(controller.signal) };
      })
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'the mailbox reader could not start'));
  }

  private async stopLoop(): Promise<void> {
    if (!this.loop) return;
    this.loop.controller.abort();
    await this.loop.done;
    this.loop = null;
  }

  private async read(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const settings = await loadSystemSettings(this.deps.readStore);
      const access = mailboxAccessOf(settings);
      const imap = await imapClient(access);
      imap.on('error', (error: unknown) => this.deps.logger.warn({ err: imapErrorText(error) }, 'mailbox connection error'));
      const closed = new Promise<void>((resolve) => imap.once('close', () => resolve()));
      const stop = () => void imap.logout().catch(() => imap.close());
      signal.addEventListener('abort', stop, { once: true });
      try {
        await imap.connect();
        await imap.mailboxOpen(access.folder);
        await recordMailboxStatus(this.deps, 'up');
        this.deps.logger.info({ folder: access.folder, idle: imap.capabilities.has('IDLE') }, 'reading the support mailbox');
        // Listened to before each search, so a mail arriving during one wakes the next at once.
        let arrived = false;
        let wake = () => undefined as void;
        imap.on('exists', () => {
          arrived = true;
          wake();
        });
        while (!signal.aborted && imap.usable) {
          arrived = false;
          await this.fetchNew(imap, settings, signal);
          if (signal.aborted || !imap.usable) break;
          if (arrived) continue;
          // IDLE where the server has it (ImapFlow enters it while no command runs); a poll either way.
          if (imap.capabilities.has('IDLE')) void imap.idle().catch(() => undefined);
          await Promise.race([new Promise<void>((resolve) => (wake = resolve)), closed, sleep(POLL_MS, undefined, { signal }).catch(() => undefined)]);
        }
        if (!signal.aborted) throw new Error('the server closed the connection');
      } catch (error) {
        if (signal.aborted) break;
        const reason = imapErrorText(error);
        this.deps.logger.warn({ err: reason }, 'the support mailbox cannot be read; trying again');
        await recordMailboxStatus(this.deps, 'down', reason).catch(() => undefined);
        imap.close();
        await sleep(Math.min(RETRY_MS, this.deps.config.DELIVERY_BACKOFF_CAP_MS), undefined, { signal }).catch(() => undefined);
      } finally {
        signal.removeEventListener('abort', stop);
      }
    }
  }

  /** Every unseen mail, oldest first: kept, queued, then marked seen or moved. */
  private async fetchNew(imap: ImapFlow, settings: SystemSettingsView, signal: AbortSignal): Promise<void> {
    const uidValidity = imap.mailbox ? String(imap.mailbox.uidValidity) : '0';
    const uids = (await imap.search({ seen: false }, { uid: true })) || [];
    for (const uid of uids.sort((a, b) => a - b)) {
      if (signal.aborted) return;
      const head = await imap.fetchOne(String(uid), { uid: true, size: true, envelope: true }, { uid: true });
      if (!head) continue;
      const key = head.envelope?.messageId?.trim() || `uid:${uidValidity}:${uid}`;
      const from = head.envelope?.from?.[0]?.address?.toLowerCase() ?? '';
      const size = head.size ?? 0;
      let file: string | null = null;
      if (size <= mailLimit(settings)) {
        const whole = await imap.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
        if (!whole || !whole.source) continue;
        file = await keepInboundMail(this.deps.config, key, whole.source);
      }
      const data: EmailInboundJob = { key, file, from, size };
      await this.deps.queue.add(EMAIL_INBOUND_QUEUE, 'mail', data, { jobId: inboundJobId(key), group: `mailbox:${from || 'unknown'}`, backoffMs: 2000 });
      // Marked only once the mail is in the durable queue: a crash before this fetches it again.
      if (settings.mailboxAfterFetch === 'move') {
        await imap.mailboxCreate(settings.mailboxMoveTo).catch(() => undefined);
        await imap.messageMove(String(uid), settings.mailboxMoveTo, { uid: true });
      } else {
        await imap.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
      }
    }
  }
}
