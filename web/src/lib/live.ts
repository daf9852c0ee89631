import { useSyncExternalStore } from 'react';
import { type Socket, io } from 'socket.io-client';
import { refreshTokens, tokens } from './tokens';

type Listener = (payload: unknown) => void;

/**
 * The one live connection of the app (spec.md section 7): opened after sign-in or a restored
 * session, closed on logout. Screens subscribe through `onLive` whether or not a socket exists yet,
 * so a subscription made before the connection (or across a reconnect) keeps working. Rooms joined
 * with `joinTicket` are joined again after every reconnect.
 */
const listeners = new Map<string, Set<Listener>>();
const joined = new Map<string, number>();
let socket: Socket | null = null;
const statusListeners = new Set<() => void>();
const statusChanged = () => statusListeners.forEach((listener) => listener());

/** Whether the live channel is connected now, for the conversation's Live badge. */
export function useLiveConnected(): boolean {
  return useSyncExternalStore(
    (notify) => {
      statusListeners.add(notify);
      return () => statusListeners.delete(notify);
    },
    () => socket?.connected ?? false,
  );
}

export function connectLive(): void {
  if (socket) return;
  const next = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    // A function, so every reconnect presents the newest access token.
    auth: (callback) => callback({ token: tokens.access() }),
  });
  next.onAny((event: string, payload: unknown) => listeners.get(event)?.forEach((listener) => listener(payload)));
  next.on('connect', () => {
    for (const ticketId of joined.keys()) next.emit('join_ticket', ticketId);
    statusChanged();
  });
  next.on('disconnect', statusChanged);
  next.on('connect_error', (error) => {
    console.warn('Live connection failed:', error.message);
    // An expired access token is refused at the handshake: refresh once, then let it reconnect.
    if (/token|auth/i.test(error.message)) {
      void refreshTokens().then((refreshed) => {
        if (refreshed && socket === next) next.connect();
      });
    }
  });
  socket = next;
}

export function disconnectLive(): void {
  socket?.disconnect();
  socket = null;
  joined.clear();
  statusChanged();
}

export function onLive<T>(event: string, listener: (payload: T) => void): () => void {
  const set = listeners.get(event) ?? new Set<Listener>();
  set.add(listener as Listener);
  listeners.set(event, set);
  return () => {
    set.delete(listener as Listener);
  };
}

export function emitLive(event: string, payload: unknown): void {
  if (socket?.connected) socket.emit(event, payload);
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
