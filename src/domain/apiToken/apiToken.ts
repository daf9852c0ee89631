import type { ApiTokenScope } from '#contract/apiTokens';
import type { DomainEvent } from '../shared/decider';

/** One stream per API token: its creation and revocation, read on every call the token makes, so it stays short. */
export const apiTokenStream = (tokenId: string) => `apitoken-${tokenId}`;
/** Its uses (at most one a minute per process) on a stream of their own: the "last use" the admin sees. */
export const apiTokenUseStream = (tokenId: string) => `apitokenuse-${tokenId}`;

export interface ApiTokenCreatedData {
  tokenId: string;
  label: string;
  /** The user the token acts as: its calls have this user's role, narrowed by the scopes. */
  userId: string;
  scopes: ApiTokenScope[];
  expiresAt: string | null;
  /** SHA-256 of the secret, hex: the secret itself is shown once and stored nowhere. */
  secretHash: string;
}

export type ApiTokenEvent =
  | DomainEvent<'ApiTokenCreated', ApiTokenCreatedData>
  | DomainEvent<'ApiTokenUsed', { tokenId: string; at: string }>
  | DomainEvent<'ApiTokenRevoked', { tokenId: string }>;

export type ApiTokenState =
  { status: 'none' } | ({ status: 'active' | 'revoked'; lastUsedAt: string | null } & Omit<ApiTokenCreatedData, 'secretHash'> & { secretHash: string });

export const initialApiTokenState: ApiTokenState = { status: 'none' };

export function evolveApiToken(state: ApiTokenState, event: ApiTokenEvent): ApiTokenState {
  switch (event.type) {
    case 'ApiTokenCreated':
      return { status: 'active', lastUsedAt: null, ...event.data };
    case 'ApiTokenUsed':
      return state.status === 'none' ? state : { ...state, lastUsedAt: event.data.at };
    case 'ApiTokenRevoked':
      return state.status === 'none' ? state : { ...state, status: 'revoked' };
  }
}
