import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The correlation id of the work in progress: the request id of the HTTP call that runs a command.
 * Every event a command appends while it is set carries it as `correlationId` (metadataOf), so an
 * event can be traced back to the request and its log line. Held in async context rather than
 * passed along because sign-in, refresh and sign-out build their command contexts deep in app code.
 */
const scope = new AsyncLocalStorage<string>();

export const withCorrelationId = <T>(correlationId: string, work: () => T): T => scope.run(correlationId, work);

export const currentCorrelationId = (): string | undefined => scope.getStore();

/**
 * Runs `work` with no correlation id, for background work a request merely starts (a queue's
 * consumers): it must not stamp the request's id on what it does later for others.
 */
export const withoutCorrelationId = <T>(work: () => T): T => scope.exit(work);
