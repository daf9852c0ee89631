import type { SessionEndReason, SessionEvent } from '../domain/session/session';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';

export const SESSIONS = 'sessions_v1';

/** One sign-in (refresh-token family); every authenticated call checks that its session is open. */
export interface SessionView extends Doc {
  userId: string;
  /** Global position of SessionStarted: compared with the user's `sessionsValidAfter`. */
  startedPosition: number;
  startedAt: string;
  lastRefreshedAt: string | null;
  expiresAt: string;
  endedAt: string | null;
  endReason: SessionEndReason | null;
  ip: string | null;
  userAgent: string | null;
  _revision: number;
}

export const sessionsProjection: Projection = {
  name: 'sessions',
  version: 1,
  collections: [SESSIONS],
  async setup(store: ReadStore) {
    await store.collection(SESSIONS).createIndex({ keys: { userId: 1 } });
  },
  async apply(recorded: RecordedEvent, store: ReadStore) {
    if (!recorded.streamId.startsWith('session-')) return;
    const event = recorded as unknown as RecordedEvent & SessionEvent;
    const sessions = store.collection<SessionView>(SESSIONS);
    const at = recorded.metadata.occurredAt;
    const rev = recorded.revision;
    const guarded = { _id: event.data.sessionId, _revision: { $lt: rev } };
    switch (event.type) {
      case 'SessionStarted': {
        const { sessionId, userId, expiresAt, ip, userAgent } = event.data;
        const view: Omit<SessionView, '_id'> = {
          userId,
          startedPosition: recorded.position,
          startedAt: at,
          lastRefreshedAt: null,
          expiresAt,
          endedAt: null,
          endReason: null,
          ip,
          userAgent,
          _revision: rev,
        };
        await sessions.updateOne({ _id: sessionId }, { $setOnInsert: view }, { upsert: true });
        return;
      }
      case 'RefreshTokenRotated':
        await sessions.updateOne(guarded, { $set: { lastRefreshedAt: at, expiresAt: event.data.expiresAt, _revision: rev } });
        return;
      case 'SessionEnded':
        await sessions.updateOne(guarded, { $set: { endedAt: at, endReason: event.data.reason, _revision: rev } });
        return;
    }
  },
};
