import type { AppDeps } from '../app/deps';

/** How often a channel that stopped answering is asked again whether it is back. */
const CHANNEL_PROBE_MS = 2000;

/**
 * Notices when a channel (Telegram, the SMTP server) that stopped answering is back, and then runs
 * every job waiting on it at once, instead of leaving each to its next backoff step (which grows to
 * DELIVERY_BACKOFF_CAP_MS during a long outage). The queue keeps each job's place in its group, so
 * one recipient's messages still leave in order. While the channel is down it is probed every
 * CHANNEL_PROBE_MS (getMe, an SMTP greeting), besides what the poller and the sends report.
 */
export class ChannelWatch {
  private down = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly channel: string,
    private readonly deps: Pick<AppDeps, 'queue' | 'logger'>,
    /** The queues whose jobs wait on this channel. */
    private readonly queues: readonly string[],
    /** Resolves when the far side answers. */
    private readonly probe: () => Promise<void>,
    /** Also told of the return (a bot waiting to start retries now). */
    private readonly onBack: () => void = () => undefined,
    private readonly probeEveryMs = CHANNEL_PROBE_MS,
  ) {}

  /** A call got no answer at all (connection refused or cut, timeout). */
  failed(): void {
    if (this.down || this.stopped) return;
    this.down = true;
    this.deps.logger.warn({ channel: this.channel }, 'channel not answering; waiting deliveries run as soon as it is back');
    this.schedule();
  }

  /** The far side answered (a success, or a refusal of its own). */
  answered(): void {
    if (!this.down) return;
    this.down = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.onBack();
    void this.wake();
  }

  /** Sorts an outcome of a call into one of the two above. */
  observe(answered: boolean): void {
    if (answered) this.answered();
    else this.failed();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.probe().then(
        () => this.answered(),
        () => {
          if (this.down) this.schedule();
        },
      );
    }, this.probeEveryMs);
  }

  private async wake(): Promise<void> {
    if (this.stopped) return;
    try {
      let woken = 0;
      for (const queue of this.queues) woken += await this.deps.queue.wake(queue);
      this.deps.logger.info({ channel: this.channel, woken }, 'channel back; waiting deliveries run now');
    } catch (error) {
      this.deps.logger.error({ err: error, channel: this.channel }, 'could not wake the deliveries waiting on a channel');
    }
  }
}
