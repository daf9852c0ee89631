import type { Logger } from 'pino';

/** How long a stop (SIGTERM, SIGINT) may take before the process exits anyway: under Docker's and Kubernetes' defaults (10 s, 30 s) with room for their SIGKILL. */
const SHUTDOWN_TIMEOUT_MS = 8_000;

/**
 * On SIGTERM or SIGINT, runs `close` and exits 0 once it settles (1 if it fails). A stop that hangs (a
 * store that never answers) must not outlive the operator's patience: after SHUTDOWN_TIMEOUT_MS the
 * process logs the stage `close` still waited on and exits 1. The log and the read models are
 * crash-safe, so exiting then leaves nothing half-written.
 */
export function exitOnSignals(logger: Logger, close: () => Promise<void>, stage: () => string | null = () => null): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error({ signal, stage: stage(), ms: SHUTDOWN_TIMEOUT_MS }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error, signal }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
