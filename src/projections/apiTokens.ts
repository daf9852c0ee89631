import type { ApiTokenScope } from '#contract/apiTokens';
import type { Doc } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

export const API_TOKENS = 'api_tokens_v1';

/** What the admin's tokens tab lists: never the secret nor its digest. */
export interface ApiTokenView extends Doc {
  label: string;
  userId: string;
  scopes: ApiTokenScope[];
  expiresAt: string | null;
  createdAt: string;
  createdBy: string | null;
  /** Moved by the uses' own stream, so only ever forwards, whatever the order of processes. */
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
  /** Revision of the token's own stream applied last. */
  _revision: number;
}

export const apiTokensProjection: Projection = {
  name: 'apiTokens',
  version: 1,
  collections: [API_TOKENS],
  ...handledBy({
    async ApiTokenCreated(event, store) {
      const { tokenId, label, userId, scopes, expiresAt } = event.data;
      const view = {
        label,
        userId,
        scopes,
        expiresAt,
        createdAt: event.metadata.occurredAt,
        createdBy: event.metadata.actor?.userId ?? null,
        lastUsedAt: null,
        revokedAt: null,
        revokedBy: null,
        _revision: event.revision,
      };
      await store.collection<ApiTokenView>(API_TOKENS).updateOne({ _id: tokenId }, { $setOnInsert: view }, { upsert: true });
    },
    async ApiTokenUsed(event, store) {
      await store
        .collection<ApiTokenView>(API_TOKENS)
        .updateOne({ _id: event.data.tokenId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: event.data.at } }] }, { $set: { lastUsedAt: event.data.at } });
    },
    async ApiTokenRevoked(event, store) {
      await store
        .collection<ApiTokenView>(API_TOKENS)
        .updateOne(
          { _id: event.data.tokenId, _revision: { $lt: event.revision } },
          { $set: { revokedAt: event.metadata.occurredAt, revokedBy: event.metadata.actor?.userId ?? null, _revision: event.revision } },
        );
    },
  }),
};
