import { useSyncExternalStore } from 'react';
import { type Socket, io } from 'socket.io-client';
import type { ResyncAnswer } from '#contract/live';
import { refreshTokens, tokens } from './tokens';

type Listener = (payload: unknown) => void;

/**
 * What a screen must do once the channel is back: `replayed` when the server sent everything that
 * was missed (only presence, which is not in the log, must be asked for again), `refetch` when it
 * could not (too far behind, or no position known), so every view it shows is fetched again.
 */
export type Resynced = 'replayed' | 'refetch';

/**
 * connecting (first time); connected; reconnecting (lost, or back but not yet caught up); paused (the
 * server refused this connection for a while: too many open for the account, or cut off for abuse;
 * `livePauseNotice` says why, and it tries again when the server said to); off (no channel).
 */
export type LiveStatus = 'connecting' | 'connected' | 'reconnecting' | 'paused' | 'off';

/**
 * The one live connection of the app (spec.md section 7): opened after sign-in or a restored
 * session, closed on logout. Screens subscribe through `onLive` whether or not a socket exists yet,
 * so a subscription made before the connection (or across a reconnect) keeps working. Rooms joined
 * with `joinTicket` are joined again after every reconnect, and then the client catches up: every
 * push carries its log position; the client keeps the last one it has seen and, once back, asks the
 * server for what came after it (docs/web.md, "Live updates").
 */
const listeners = new Map<string, Set<Listener>>();
const resyncListeners = new Set<(kind: Resynced) => void>();
const joined = new Map<string, number>();
let socket: Socket | null = null;
let status: LiveStatus = 'off';
/** The server's words while paused. */
let pauseNotice: string | null = null;
let resumeTimer: ReturnType<typeof setTimeout> | undefined;
const statusListeners = new Set<() => void>();
const setStatus = (next: LiveStatus) => {
  if (status === next) return;
  status = next;
  statusListeners.forEach((listener) => listener());
};

/** The last log position this client has seen everything up to (null: not known yet). */
let seen: number | null = null;
/** Pushes at or below this position were covered by the last resync's replay: late copies are dropped. */
let replayedUpTo = 0;
/**
 * While catching up, a live push and its replay can both arrive (the push went out after the rooms
 * were joined, the replay covers it too): each event-and-position is delivered once.
 */
let catchingUpSeen: Set<string> | null = null;

const positionOf = (payload: unknown) => {
  const position = (payload as { position?: unknown } | null)?.position;
  return typeof position === 'number' ? position : null;
};

function deliver(event: string, payload: unknown): void {
  const position = event === 'live_position' ? null : positionOf(payload);
  if (position !== null) {
    if (position <= replayedUpTo) return;
    if (catchingUpSeen) {
      const key = `${event}@${position}`;
      if (catchingUpSeen.has(key)) return;
      catchingUpSeen.add(key);
    }
    seen = Math.max(seen ?? 0, position);
  }
  listeners.get(event)?.forEach((listener) => listener(payload));
}

/** Why live updates are paused, while `useLiveStatus()` is `paused`. */
export function livePauseNotice(): string | null {
  return pauseNotice;
}

/** Handshake refusals that say "not now": the client waits as long as the server says, then tries again. */
const PAUSING_CODES = new Set(['TOO_MANY_CONNECTIONS', 'LIVE_COOLDOWN']);

/**
 * The server refused or cut this connection for a while: say so, and try again once it is over (a
 * little later than asked, so the tabs of one account do not all come back in the same instant).
 */
function pause(current: Socket, notice: string, retryAfterSeconds: number): void {
  pauseNotice = notice;
  clearTimeout(resumeTimer);
  resumeTimer = setTimeout(
    () => {
      if (socket === current && !current.connected) current.connect();
    },
    (Math.max(1, retryAfterSeconds) + Math.random() * 2) * 1000,
  );
  if (socket === current) setStatus('paused');
}

/** Whether the live channel is connected now, for the conversation's Live badge. */
export function useLiveConnected(): boolean {
  return useLiveStatus() === 'connected';
}

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (notify) => {
      statusListeners.add(notify);
      return () => statusListeners.delete(notify);
    },
    () => status,
  );
}

/**
 * Back after a drop: rooms first (so nothing new can slip between the replay and the live pushes),
 * then the replay of what came after the last position seen. Until it is done the app still says
 * "Reconnecting…", so nothing stale is shown as live.
 */
async function catchUp(current: Socket, resumeFrom: number | null): Promise<void> {
  await Promise.all(
    [...joined.keys()].map((ticketId) =>
      current
        .timeout(10_000)
        .emitWithAck('join_ticket', ticketId)
        .catch(() => undefined),
    ),
  );
  let kind: Resynced = 'refetch';
  if (resumeFrom !== null) {
    const answer = (await current
      .timeout(10_000)
      .emitWithAck('resync', { after: resumeFrom })
      .catch(() => null)) as ResyncAnswer | null;
    if (answer?.ok) {
      seen = Math.max(seen ?? 0, answer.position);
      if (answer.complete) {
        replayedUpTo = answer.position;
        kind = 'replayed';
      }
    }
  }
  if (socket !== current || !current.connected) return;
  resyncListeners.forEach((listener) => listener(kind));
  setStatus('connected');
}

export function connectLive(): void {
  if (socket) return;
  const next = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    // A function, so every reconnect presents the newest access token.
    auth: (callback) => callback({ token: tokens.access() }),
  });
  let connectedBefore = false;
  let droppedBefore = false;
  // Kept across a failed catch-up too: a drop in the middle of one resumes from the same point.
  let resumeFrom: number | null = null;
  let catchingUp = false;
  next.onAny(deliver);
  next.on('live_position', ({ position }: { position: number }) => {
    // The channel's starting point (it comes just after `connect`); after a drop, the resync
    // answer says where the client stands instead.
    if (!droppedBefore) seen = Math.max(seen ?? 0, position);
  });
  next.on('connect', () => {
    pauseNotice = null;
    if (status === 'paused') setStatus('reconnecting');
    if (!connectedBefore) {
      connectedBefore = true;
      for (const ticketId of joined.keys()) next.emit('join_ticket', ticketId);
      return setStatus('connected');
    }
    catchingUp = true;
    catchingUpSeen = new Set();
    void catchUp(next, resumeFrom).finally(() => {
      catchingUp = false;
      catchingUpSeen = null;
    });
  });
  next.on('disconnect', () => {
    droppedBefore = true;
    if (!catchingUp) resumeFrom = seen;
    if (socket === next && status !== 'paused') setStatus('reconnecting');
  });
  next.on('connect_error', (error: Error & { data?: { code?: string; retryAfter?: number } }) => {
    console.warn('Live connection failed:', error.message);
    const code = error.data?.code;
    if (code && PAUSING_CODES.has(code)) return pause(next, error.message, error.data?.retryAfter ?? 30);
    // An expired access token is refused at the handshake: refresh once, then let it reconnect.
    if (code === 'TOKEN_EXPIRED' || code === 'INVALID_TOKEN' || code === 'UNAUTHORIZED') {
      void refreshTokens().then((outcome) => {
        if (outcome === 'refreshed' && socket === next) next.connect();
      });
    }
  });
  // The server asks for a fresh token when the one of the handshake runs out, and closes the
  // socket if none comes: then it is reconnected with the refreshed one.
  next.on('reauth_required', () => {
    void refreshTokens().then((outcome) => {
      if (outcome === 'refreshed' && socket === next) next.emit('reauth', { token: tokens.access() });
    });
  });
  next.on('token_expired', () => {
    void refreshTokens().then((outcome) => {
      if (outcome === 'refreshed' && socket === next) next.connect();
    });
  });
  // Cut off for too many events: the server closes the connection next and refuses it until `retryAfter`.
  next.on('live_error', ({ error, retryAfter }: { error: string; retryAfter?: number }) => {
    console.warn('Live channel closed:', error);
    if (retryAfter !== undefined) pause(next, error, retryAfter);
  });
  socket = next;
  setStatus('connecting');
}

/**
 * The browser says the network is back: try at once rather than wait out the reconnection backoff
 * (up to 5 s by default), which is what makes a return feel instant.
 */
if (typeof window !== 'undefined') {
  window.addEventListener('online', () => {
    if (socket && !socket.connected && status !== 'paused') socket.disconnect().connect();
  });
}

export function disconnectLive(): void {
  clearTimeout(resumeTimer);
  pauseNotice = null;
  socket?.disconnect();
  socket = null;
  joined.clear();
  seen = null;
  replayedUpTo = 0;
  setStatus('off');
}

export function onLive<T>(event: string, listener: (payload: T) => void): () => void {
  const set = listeners.get(event) ?? new Set<Listener>();
  set.add(listener as Listener);
  listeners.set(event, set);
  return () => {
    set.delete(listener as Listener);
  };
}

/** Called each time the channel is back and caught up (see `Resynced`). */
export function onLiveResynced(listener: (kind: Resynced) => void): () => void {
  resyncListeners.add(listener);
  return () => resyncListeners.delete(listener);
}

export function emitLive(event: string, payload: unknown): void {
  if (socket?.connected) socket.emit(event, payload);
}

/** Asks the server something over the live channel, once it is connected; rejects after 10 s. */
export function requestLive<T>(event: string, payload: unknown): Promise<T> {
  const current = socket;
  if (!current) return Promise.reject(new Error('The live channel is not open'));
  if (current.connected) return current.timeout(10_000).emitWithAck(event, payload) as Promise<T>;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      current.off('connect', ask);
      reject(new Error('The live channel did not connect'));
    }, 10_000);
    function ask() {
      clearTimeout(timer);
      (current!.timeout(10_000).emitWithAck(event, payload) as Promise<T>).then(resolve, reject);
    }
    current.once('connect', ask);
  });
}

/** Joins a ticket's live room until the returned function is called (counted, for overlapping screens). */
export function joinTicket(ticketId: string): () => void {
  joined.set(ticketId, (joined.get(ticketId) ?? 0) + 1);
  if (joined.get(ticketId) === 1) emitLive('join_ticket', ticketId);
  return () => {
    const left = (joined.get(ticketId) ?? 1) - 1;
    if (left > 0) return void joined.set(ticketId, left);
    joined.delete(ticketId);
    emitLive('leave_ticket', ticketId);
  };
}
