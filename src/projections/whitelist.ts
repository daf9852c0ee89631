import type { AccessRequestEvent, WhitelistEvent } from '../domain/whitelist/whitelist';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import type { Projection } from './runner';
import type { AccessRequest, WhitelistEntry } from '#contract/responses';

export const WHITELIST = 'whitelist_v1';
export const ACCESS_REQUESTS = 'access_requests_v1';

export interface WhitelistEntryView extends Doc {
  telegramId: string;
  username: string;
  firstName: string;
  lastName: string;
  notes: string;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  _revision: number;
}

export interface AccessRequestView extends Doc {
  telegramId: string;
  username: string;
  firstName: string;
  lastName: string;
  firstAttemptAt: string;
  lastAttemptAt: string;
  attemptCount: number;
  lastMessage: string;
  _revision: number;
}

export const toWhitelistEntry = ({ _revision: _r, updatedAt: _u, ...entry }: WhitelistEntryView): WhitelistEntry => entry;
export const toAccessRequest = ({ _revision: _r, ...request }: AccessRequestView): AccessRequest => request;

/** Whitelist entries keyed by their record id, and the pending access requests. */
export const whitelistProjection: Projection = {
  name: 'whitelist',
  version: 1,
  collections: [WHITELIST, ACCESS_REQUESTS],
  async setup(store: ReadStore) {
    await store.collection(WHITELIST).createIndex({ keys: { telegramId: 1 }, unique: true });
    await store.collection(ACCESS_REQUESTS).createIndex({ keys: { telegramId: 1 }, unique: true });
  },
  async apply(recorded: RecordedEvent, store: ReadStore) {
    const at = recorded.metadata.occurredAt;
    const rev = recorded.revision;
    if (recorded.streamId.startsWith('whitelist-')) {
      const event = recorded as unknown as RecordedEvent & WhitelistEvent;
      const entries = store.collection<WhitelistEntryView>(WHITELIST);
      switch (event.type) {
        case 'WhitelistEntryAdded': {
          const { entryId, source: _source, ...fields } = event.data;
          // A re-added Telegram ID is a new record; the deleted one is already gone.
          await entries.deleteMany({ telegramId: fields.telegramId, _id: { $ne: entryId } });
          await entries.updateOne({ _id: entryId }, { $setOnInsert: { ...fields, createdAt: at, updatedAt: at, _revision: rev } }, { upsert: true });
          return;
        }
        case 'WhitelistEntryUpdated':
          await entries.updateOne({ _id: event.data.entryId, _revision: { $lt: rev } }, { $set: { ...event.data.changes, updatedAt: at, _revision: rev } });
          return;
        case 'WhitelistEntryDeleted':
          await entries.deleteOne({ _id: event.data.entryId });
          return;
      }
    }
    if (recorded.streamId.startsWith('accessrequest-')) {
      const event = recorded as unknown as RecordedEvent & AccessRequestEvent;
      const requests = store.collection<AccessRequestView>(ACCESS_REQUESTS);
      if (event.type !== 'AccessAttempted') {
        await requests.deleteOne({ _id: event.data.requestId });
        return;
      }
      const { requestId, telegramId, username, firstName, lastName, message } = event.data;
      await requests.updateOne(
        { _id: requestId },
        { $setOnInsert: { telegramId, firstAttemptAt: at, attemptCount: 0, _revision: -1 } },
        { upsert: true },
      );
      await requests.updateOne(
        { _id: requestId, _revision: { $lt: rev } },
        { $set: { username, firstName, lastName, lastAttemptAt: at, lastMessage: message, _revision: rev }, $inc: { attemptCount: 1 } },
      );
    }
  },
};
