import { API_TOKEN_SCOPES } from '#contract/apiTokens';
import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import { type ApiTokenCreatedData, type ApiTokenEvent, type ApiTokenState, evolveApiToken, initialApiTokenState } from './apiToken';

export type ApiTokenCommand = ({ type: 'CreateApiToken'; now: string } & ApiTokenCreatedData) | { type: 'RevokeApiToken' };

export function decideApiToken(command: ApiTokenCommand, state: ApiTokenState): ApiTokenEvent[] {
  switch (command.type) {
    case 'CreateApiToken': {
      if (state.status !== 'none') throw new ConflictError('This API token already exists', 'API_TOKEN_EXISTS');
      const { type: _type, now, ...data } = command;
      if (data.scopes.length === 0 || data.scopes.some((scope) => !API_TOKEN_SCOPES.includes(scope)))
        throw new ValidationError('Give the token at least one known scope', [{ path: 'scopes', message: 'Unknown or missing scope' }]);
      if (data.expiresAt !== null && Date.parse(data.expiresAt) <= Date.parse(now))
        throw new ValidationError('expiresAt must be in the future', [{ path: 'expiresAt', message: 'Must be in the future' }]);
      if (!/^[0-9a-f]{64}$/.test(data.secretHash)) throw new ValidationError('The secret must be stored as its SHA-256 digest');
      return [{ type: 'ApiTokenCreated', data }];
    }
    case 'RevokeApiToken':
      if (state.status === 'none') throw new NotFoundError('API token');
      if (state.status === 'revoked') return [];
      return [{ type: 'ApiTokenRevoked', data: { tokenId: state.tokenId } }];
  }
}

export const apiTokenDecider: Decider<ApiTokenCommand, ApiTokenEvent, ApiTokenState> = {
  decide: decideApiToken,
  evolve: evolveApiToken,
  initialState: initialApiTokenState,
};

/** A use of a token that authenticated: nothing to decide, it is a fact to record. */
export const apiTokenUseDecider: Decider<{ type: 'RecordApiTokenUse'; tokenId: string; at: string }, ApiTokenEvent, null> = {
  decide: ({ tokenId, at }) => [{ type: 'ApiTokenUsed', data: { tokenId, at } }],
  evolve: (state) => state,
  initialState: null,
};
