import { useCallback, useSyncExternalStore } from 'react';

/**
 * Messages written while the desk could not be reached (docs/web.md, "Outbox"). They are kept in this
 * browser's storage per user and ticket, so a reload keeps them, and sent in the order they were
 * written once the connection is back. Each keeps the Idempotency-Key it was given when written: a
 * send whose answer was lost, made again (or made by a second tab), is answered by the server with
 * the first result and never posted twice.
 */
export interface Outgoing {
  /** The Idempotency-Key, made once when the message was written and kept by every try. */
  key: string;
  /** The ticket's record id (where it is posted). */
  ticketId: string;
  /** The ticket as the page's address names it (the cache entry the answer goes into). */
  ticketKey: string;
  content: string;
  isInternal: boolean;
  writtenAt: string;
  /** The server's refusal: a refused message is not sent again until Retry. */
  refused: string | null;
}

/** A queued message as shown: `sending` while a try is on its way (never stored). */
export type Queued = Outgoing & { sending: boolean };

/** What one try gave: stored, no answer (kept for later), or refused by the server (kept with the reason). */
export type Delivery = 'sent' | 'unreachable' | { refused: string };

const PREFIX = 'outbox:';
const scopeOf = (userId: string, ticketId: string) => `${PREFIX}${userId}:${ticketId}`;
const NOTHING: readonly Queued[] = [];

const cache = new Map<string, readonly Queued[]>();
const listeners = new Set<() => void>();
/** One flush at a time per scope; `again` asks the running one to go round once more when it ends. */
const flushing = new Map<string, { again: boolean; done: Promise<void> }>();

function read(scope: string): readonly Queued[] {
  const known = cache.get(scope);
  if (known) return known;
  let items: readonly Queued[] = NOTHING;
  try {
    const stored = JSON.parse(localStorage.getItem(scope) ?? '[]') as Outgoing[];
    if (Array.isArray(stored) && stored.length > 0) items = stored.map((item) => ({ ...item, sending: false }));
  } catch {
    // unreadable (private mode, or a value that is not ours): nothing queued
  }
  cache.set(scope, items);
  return items;
}

function write(scope: string, items: readonly Queued[]): void {
  cache.set(scope, items.length > 0 ? items : NOTHING);
  try {
    if (items.length === 0) localStorage.removeItem(scope);
    else localStorage.setItem(scope, JSON.stringify(items.map(({ sending: _sending, ...item }) => item)));
  } catch {
    // private mode or full: the queue lasts this page only
  }
  listeners.forEach((listener) => listener());
}

const change = (scope: string, key: string, patch: Partial<Queued>) =>
  write(
    scope,
    read(scope).map((item) => (item.key === key ? { ...item, ...patch } : item)),
  );

if (typeof window !== 'undefined') {
  // Another tab of this browser changed a queue: read it again.
  window.addEventListener('storage', (event) => {
    if (event.key !== null && !event.key.startsWith(PREFIX)) return;
    if (event.key === null) cache.clear();
    else cache.delete(event.key);
    listeners.forEach((listener) => listener());
  });
}

/** The messages waiting for a ticket, oldest first, kept current. */
export function useQueuedMessages(userId: string, ticketId: string | undefined): readonly Queued[] {
  const subscribe = useCallback((notify: () => void) => {
    listeners.add(notify);
    return () => void listeners.delete(notify);
  }, []);
  return useSyncExternalStore(subscribe, () => (ticketId ? read(scopeOf(userId, ticketId)) : NOTHING));
}

export function enqueueMessage(userId: string, message: Omit<Outgoing, 'refused'>): void {
  const scope = scopeOf(userId, message.ticketId);
  // Once per key: a message recovered from its interrupted send may also come back from that send.
  if (read(scope).some((item) => item.key === message.key)) return;
  write(scope, [...read(scope), { ...message, refused: null, sending: false }]);
}

const SENDING = 'outbox-sending:';
/** This page's own sends on their way: not recovered from under it. */
const ownSending = new Set<string>();

/**
 * A text message sent at once (online, nothing waiting) is on its way for up to half a minute when the
 * desk does not answer (three tries and their pauses). It is written to this browser's storage first,
 * with its Idempotency-Key, and the returned function forgets it once the try has an outcome (sent,
 * refused, or handed to the queue). A reload or a closed tab in between leaves it there, and the next
 * page puts it in its ticket's queue (`recoverSending`): sent again with the same key, the server
 * answers with the first result if the first try had arrived, so it is never lost and never posted twice.
 */
export function noteSending(userId: string, message: Outgoing): () => void {
  const slot = `${SENDING}${userId}:${message.key}`;
  ownSending.add(message.key);
  try {
    localStorage.setItem(slot, JSON.stringify(message));
  } catch {
    // private mode or full: this try is the page's only copy
  }
  return () => {
    ownSending.delete(message.key);
    try {
      localStorage.removeItem(slot);
    } catch {
      // nothing was stored
    }
  };
}

/** Messages whose send a reload or a closed tab cut short: back in their tickets' queues, in the order written. */
export function recoverSending(userId: string): void {
  const mine = `${SENDING}${userId}:`;
  const found: Array<{ slot: string; message: Outgoing | null }> = [];
  try {
    for (let index = 0; index < localStorage.length; index++) {
      const slot = localStorage.key(index);
      if (!slot?.startsWith(mine) || ownSending.has(slot.slice(mine.length))) continue;
      let message: Outgoing | null = null;
      try {
        message = JSON.parse(localStorage.getItem(slot) ?? 'null') as Outgoing | null;
      } catch {
        // not ours: dropped below
      }
      found.push({ slot, message });
    }
  } catch {
    return;
  }
  found.sort((a, b) => (a.message?.writtenAt ?? '').localeCompare(b.message?.writtenAt ?? ''));
  for (const { slot, message } of found) {
    if (message && typeof message.key === 'string' && typeof message.ticketId === 'string' && typeof message.content === 'string')
      enqueueMessage(userId, message);
    localStorage.removeItem(slot);
  }
}

/** Cancel (waiting) or Discard (refused): never while a try is on its way, whose answer decides. */
export function discardMessage(userId: string, ticketId: string, key: string): void {
  const scope = scopeOf(userId, ticketId);
  write(
    scope,
    read(scope).filter((item) => item.key !== key || item.sending),
  );
}

/** Retry a refused message: it goes back in line with its place and key. */
export function retryMessage(userId: string, ticketId: string, key: string): void {
  change(scopeOf(userId, ticketId), key, { refused: null });
}

async function drain(scope: string, send: (message: Outgoing) => Promise<Delivery>): Promise<void> {
  for (;;) {
    const next = read(scope).find((item) => item.refused === null);
    if (!next) return;
    change(scope, next.key, { sending: true });
    const { sending: _sending, ...message } = next;
    const outcome = await send(message);
    if (outcome === 'sent')
      write(
        scope,
        read(scope).filter((item) => item.key !== next.key),
      );
    else if (outcome === 'unreachable') return change(scope, next.key, { sending: false });
    else change(scope, next.key, { sending: false, refused: outcome.refused });
  }
}

/**
 * Sends a ticket's waiting messages one by one, oldest first, until one gets no answer (it and the
 * rest wait for the next return of the connection). A refused one keeps its reason and the rest go on.
 * A call while a flush runs makes that flush look once more when it ends, so a return of the
 * connection during a try is not missed, and no message is ever on its way twice from this tab.
 */
export function flushOutbox(userId: string, ticketId: string, send: (message: Outgoing) => Promise<Delivery>): Promise<void> {
  const scope = scopeOf(userId, ticketId);
  const running = flushing.get(scope);
  if (running) {
    running.again = true;
    return running.done;
  }
  const state = { again: true, done: Promise.resolve() };
  // Registered before the first try starts, which may end at once (offline): its end unregisters it.
  flushing.set(scope, state);
  state.done = (async () => {
    try {
      while (state.again && navigator.onLine) {
        state.again = false;
        await drain(scope, send);
      }
    } finally {
      flushing.delete(scope);
    }
  })();
  return state.done;
}

/** Every ticket's queue of this user in this browser (the connection came back, whatever screen is open). */
export async function flushAllOutboxes(userId: string, send: (message: Outgoing) => Promise<Delivery>): Promise<void> {
  const mine = `${scopeOf(userId, '')}`;
  const scopes = new Set([...cache.keys()].filter((scope) => scope.startsWith(mine)));
  try {
    for (let index = 0; index < localStorage.length; index++) {
      const scope = localStorage.key(index);
      if (scope?.startsWith(mine)) scopes.add(scope);
    }
  } catch {
    // storage unreadable: the queues of this page are in the cache
  }
  await Promise.all([...scopes].map((scope) => flushOutbox(userId, scope.slice(mine.length), send)));
}
