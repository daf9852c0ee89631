import { type ChannelBacklog, type DeliveryChannel, channelBacklogs, failedDeliveryCount } from './deliveries/service';
import type { AppDeps } from './deps';
import { mailboxStatus } from './email/mailbox';
import { type ReadModelHealth, STORE_ANSWER_MS, answeredWithin, projectionStatus, readModelHealth } from './status';

/**
 * `ok`: serving; `starting`: listening while the read models catch up (503, so a load balancer keeps
 * traffic away; the container health check counts it as alive); `degraded`: serving with a fault
 * (the job queue not answering, failed notices waiting for an admin, read models with conflicts,
 * skipped events or a stall, messages waiting for a channel that does not answer, or a support mailbox
 * that cannot be read).
 */
export type HealthStatus = 'ok' | 'starting' | 'degraded';

/** How long health waits for the job queue (Redis) before it says the queue is down: well inside the container check's 4 s. */
const QUEUE_ANSWER_MS = 700;
/** The public status is worked out at most this often; callers in between share the last answer. */
const STATUS_FRESH_MS = 1000;

export interface QueueFigures {
  /** Whether the queue answered within QUEUE_ANSWER_MS. */
  state: 'up' | 'down';
  /** Notices failed for good (the last figure the queue gave while it is down). */
  failed: number;
  channels: Record<DeliveryChannel, ChannelBacklog>;
}

const NO_BACKLOG: ChannelBacklog = { inbound: 0, outbound: 0, waitingSince: null };

const faulty = (queue: QueueFigures, readModels: ReadModelHealth, mailboxDown: boolean) =>
  mailboxDown ||
  queue.state === 'down' ||
  queue.failed > 0 ||
  readModels.problems.length > 0 ||
  Object.values(queue.channels).some((channel) => channel.inbound + channel.outbound > 0);

/**
 * What GET /api/health answers. The public status reads no log: the queue's figures (bounded by
 * QUEUE_ANSWER_MS) and the read models' faults, worked out at most once a second however many ask.
 * The detailed answer (for admins and the metrics port) adds the projections' lag, read from the log.
 */
export class HealthCheck {
  private last: Omit<QueueFigures, 'state'> = { failed: 0, channels: { telegram: NO_BACKLOG, email: NO_BACKLOG } };
  private cached: { at: number; status: Promise<HealthStatus> } | null = null;

  constructor(private readonly deps: Pick<AppDeps, 'queue' | 'readStore' | 'projections' | 'events' | 'startup'>) {}

  /** The queue's figures, or `down` with the last ones it gave when it does not answer in time. */
  async queueFigures(): Promise<QueueFigures> {
    const answered = await answeredWithin(
      Promise.all([failedDeliveryCount(this.deps), channelBacklogs(this.deps)]).then(([failed, channels]) => ({ failed, channels })),
      QUEUE_ANSWER_MS,
    );
    if (!answered) return { state: 'down', ...this.last };
    this.last = answered;
    return { state: 'up', ...answered };
  }

  /**
   * The support mailbox cannot be read (docs/email.md). Its state is kept in the read store: one that
   * does not answer is the read models' fault (`readModelHealth`), never a health answer held up.
   */
  private async mailboxDown(): Promise<boolean> {
    return (await answeredWithin(mailboxStatus(this.deps), STORE_ANSWER_MS))?.state === 'down';
  }

  /** The public answer: `starting` until ready, then `ok` or `degraded`, from state at most STATUS_FRESH_MS old. */
  async status(): Promise<HealthStatus> {
    if (!this.deps.startup.ready) return 'starting';
    const now = Date.now();
    if (!this.cached || now - this.cached.at >= STATUS_FRESH_MS) {
      const status = Promise.all([this.queueFigures(), readModelHealth(this.deps), this.mailboxDown()]).then(([queue, readModels, mailboxDown]) =>
        faulty(queue, readModels, mailboxDown) ? ('degraded' as const) : ('ok' as const),
      );
      this.cached = { at: now, status };
      status.catch(() => (this.cached = null));
    }
    return this.cached.status;
  }

  /** The whole picture: the status with the figures behind it, the projections' lag included (read from the log). */
  async detailed() {
    const { deps } = this;
    const [{ live, position, head, lag, exact, applied }, queue, readModels, mailbox] = await Promise.all([
      projectionStatus(deps),
      this.queueFigures(),
      readModelHealth(deps),
      answeredWithin(mailboxStatus(deps), STORE_ANSWER_MS),
    ]);
    const status: HealthStatus = !deps.startup.ready ? 'starting' : faulty(queue, readModels, mailbox?.state === 'down') ? 'degraded' : 'ok';
    return {
      status,
      eventStore: deps.events.kind,
      readStore: deps.readStore.kind,
      queue: deps.queue.kind === 'bullmq' ? ('bullmq' as const) : ('inline' as const),
      queueState: queue.state,
      projections: {
        state: live ? ('live' as const) : ('catching up' as const),
        position,
        lag,
        ...(exact ? {} : { lagAtLeast: true as const }),
        // Progress of the catch-up: events applied since this process started, and how far into the log.
        applied,
        percent: head === 0 ? 100 : Math.floor((position / head) * 1000) / 10,
        conflicts: readModels.conflicts,
        failures: readModels.failures,
        stalled: readModels.stalled.map(({ name }) => name),
        problems: readModels.problems,
      },
      deliveries: { failed: queue.failed },
      channels: queue.channels,
    };
  }
}
