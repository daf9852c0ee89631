import {
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { TransientStoreError } from './port';

/**
 * MongoDB's own codes for "not now": the server is not (or no longer) the primary, is stepping
 * down or shutting down, could not reach a host, or ran out of time (the retryable-reads list of
 * the driver's specification, plus MaxTimeMSExpired).
 */
const NOT_NOW = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  134, // ReadConcernMajorityNotAvailableYet
]);

/** What the operating system says of a connection that broke or never came: the network, not the request. */
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

const codeOf = (error: unknown) => (typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined);

/**
 * A MongoDB driver error that the same operation may not meet later: the network, a failover
 * (not primary, stepped down, elections), a shutdown, a timeout. Any other (a document too large,
 * an update the server refuses) would be met again.
 */
export function isTransientMongoError(error: unknown): boolean {
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoOperationTimeoutError
  ) {
    return true;
  }
  if (!(error instanceof MongoError)) return false;
  if (error.hasErrorLabel('RetryableWriteError') || error.hasErrorLabel('TransientTransactionError') || error.hasErrorLabel('ResetPool')) return true;
  const code = error instanceof MongoWriteConcernError ? (error.result.writeConcernError?.code ?? error.code) : error.code;
  return NOT_NOW.has(Number(code)) || /not (writable )?primary|node is recovering/i.test(error.message);
}

/**
 * The one answer to "is this the store's fault or the event's?" for whatever a projection or the
 * runner meets: the adapters map what their driver says to TransientStoreError, and a broken
 * connection surfacing as a bare system error counts too. Only what is not transient is the
 * event's own fault (recorded and skipped); a transient one is retried and never skips an event.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof TransientStoreError) return true;
  const code = codeOf(error);
  return typeof code === 'string' && NETWORK_CODES.has(code);
}
