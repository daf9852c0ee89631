import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
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

/** A request approved, rejected or removed is no longer pending. */
async function dropRequest(store: ReadStore, requestId: string) {
  await store.collection<AccessRequestView>(ACCESS_REQUESTS).deleteOne({ _id: requestId });
}

/** Whitelist entries keyed by their record id, and the pending access requests. */
export const whitelistProjection: Projection = {
  name: 'whitelist',
  version: 1,
  collections: [WHITELIST, ACCESS_REQUESTS],
  async setup(store: ReadStore) {
    await store.collection(WHITELIST).createIndex({ keys: { telegramId: 1 }, unique: true });
    await store.collection(ACCESS_REQUESTS).createIndex({ keys: { telegramId: 1 }, unique: true });
  },
  ...handledBy({
    async WhitelistEntryAdded(event, store) {
      const entries = store.collection<WhitelistEntryView>(WHITELIST);
      const { entryId, source: _source, ...fields } = event.data;
      const at = event.metadata.occurredAt;
      // A re-added Telegram ID is a new record; the deleted one is already gone.
      await entries.deleteMany({ telegramId: fields.telegramId, _id: { $ne: entryId } });
      await entries.updateOne({ _id: entryId }, { $setOnInsert: { ...fields, createdAt: at, updatedAt: at, _revision: event.revision } }, { upsert: true });
    },
    async WhitelistEntryUpdated(event, store) {
      const rev = event.revision;
      await store
        .collection<WhitelistEntryView>(WHITELIST)
        .updateOne(
          { _id: event.data.entryId, _revision: { $lt: rev } },
          { $set: { ...event.data.changes, updatedAt: event.metadata.occurredAt, _revision: rev } },
        );
    },
    async WhitelistEntryDeleted(event, store) {
      await store.collection<WhitelistEntryView>(WHITELIST).deleteOne({ _id: event.data.entryId });
    },
    async AccessAttempted(event, store) {
      const requests = store.collection<AccessRequestView>(ACCESS_REQUESTS);
      const { requestId, telegramId, username, firstName, lastName, message } = event.data;
      const at = event.metadata.occurredAt;
      await requests.updateOne({ _id: requestId }, { $setOnInsert: { telegramId, firstAttemptAt: at, attemptCount: 0, _revision: -1 } }, { upsert: true });
      await requests.updateOne(
        { _id: requestId, _revision: { $lt: event.revision } },
        { $set: { username, firstName, lastName, lastAttemptAt: at, lastMessage: message, _revision: event.revision }, $inc: { attemptCount: 1 } },
      );
    },
    AccessRequestApproved: (event, store) => dropRequest(store, event.data.requestId),
    AccessRequestRejected: (event, store) => dropRequest(store, event.data.requestId),
    AccessRequestRemoved: (event, store) => dropRequest(store, event.data.requestId),
  }),
};
