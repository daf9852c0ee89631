import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EventStore, RecordedEvent } from './port';

/**
 * The global log after `after`, page by page, until its true end. A page may be shorter than asked
 * (the EventStoreDB adapter hides the server's own records), so only an empty page ends the walk.
 * Between pages it yields to the event loop: the embedded log reads synchronously and the embedded
 * read store answers in microtasks, so a long walk (the catch-up at start, a check over HTTP) would
 * otherwise hold every request, health checks included, until it ends.
 */
export async function* pagesOfAll(store: Pick<EventStore, 'readAll'>, options: { after?: number; pageSize: number }): AsyncGenerator<RecordedEvent[]> {
  let after = options.after ?? 0;
  for (;;) {
    const page = await store.readAll({ after, maxCount: options.pageSize });
    if (page.length === 0) return;
    yield page;
    after = page.at(-1)!.position;
    await nextTurn();
  }
}

/**
 * Events in the log after `after`, counted (positions are log bytes on EventStoreDB, so their
 * difference is no count). Counting stops at `limit`: `exact` is false when there are more.
 */
export async function countEventsAfter(store: Pick<EventStore, 'readAll'>, after: number, limit: number): Promise<{ count: number; exact: boolean }> {
  let count = 0;
  for await (const page of pagesOfAll(store, { after, pageSize: Math.min(limit + 1, 1000) })) {
    count += page.length;
    if (count > limit) return { count: limit, exact: false };
  }
  return { count, exact: true };
}
