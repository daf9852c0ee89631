import IORedis from 'ioredis';
import type { Logger } from 'pino';

/** What ioredis says of a command still queued when its connection is closed on purpose. */
const CLOSED = 'Connection is closed.';

/**
 * A Redis connection for the socket.io adapter, which publishes and (un)subscribes without awaiting the
 * answer, as ioredis itself resubscribes after a reconnect. A command cut short (an outage past the
 * connection's retries, or the close while the connection was being made) is logged here: left alone, its
 * rejection would be unhandled, and Node ends the process on that.
 */
export class AdapterConnection extends IORedis {
  /** Set after `super()`: a command lost before it would go unlogged, still never unhandled. */
  private logger: Logger | undefined;

  constructor(url: string, logger: Logger) {
    super(url);
    this.logger = logger;
  }

  override sendCommand(...args: Parameters<IORedis['sendCommand']>): unknown {
    const sent = super.sendCommand(...args);
    if (sent instanceof Promise) sent.catch((error: unknown) => this.lost(args[0].name, error));
    return sent;
  }

  private lost(command: string, error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    // The adapter's unsubscribes at the close are dropped with the connection: nothing is lost there.
    if (reason === CLOSED) this.logger?.debug({ command, reason }, 'socket.io adapter command dropped with its connection');
    else this.logger?.warn({ command, reason }, 'socket.io adapter command lost: Redis did not answer; this process’s sockets still get their own updates');
  }
}
