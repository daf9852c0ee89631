import type { SessionEndReason } from '../domain/session/session';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
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
  ...handledBy({
    async SessionStarted(event, store) {
      const { sessionId, userId, expiresAt, ip, userAgent } = event.data;
      const view: Omit<SessionView, '_id'> = {
        userId,
        startedPosition: event.position,
        startedAt: event.metadata.occurredAt,
        lastRefreshedAt: null,
        expiresAt,
        endedAt: null,
        endReason: null,
        ip,
        userAgent,
        _revision: event.revision,
      };
      await store.collection<SessionView>(SESSIONS).updateOne({ _id: sessionId }, { $setOnInsert: view }, { upsert: true });
    },
    async RefreshTokenRotated(event, store) {
      const guarded = { _id: event.data.sessionId, _revision: { $lt: event.revision } };
      await store
        .collection<SessionView>(SESSIONS)
        .updateOne(guarded, { $set: { lastRefreshedAt: event.metadata.occurredAt, expiresAt: event.data.expiresAt, _revision: event.revision } });
    },
    async SessionEnded(event, store) {
      const guarded = { _id: event.data.sessionId, _revision: { $lt: event.revision } };
      await store
        .collection<SessionView>(SESSIONS)
        .updateOne(guarded, { $set: { endedAt: event.metadata.occurredAt, endReason: event.data.reason, _revision: event.revision } });
    },
  }),
};
