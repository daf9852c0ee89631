import { ConflictError, NotFoundError, ValidationError } from '#contract/errors';
import { decideApiToken } from './decide';
import { type ApiTokenEvent, evolveApiToken, initialApiTokenState } from './apiToken';

const CREATE = {
  type: 'CreateApiToken' as const,
  now: '2026-01-01T00:00:00Z',
  tokenId: 't1',
  label: 'Sync',
  userId: 'u1',
  scopes: ['tickets:read' as const],
  expiresAt: null,
  secretHash: 'a'.repeat(64),
};
const after = (events: ApiTokenEvent[]) => events.reduce(evolveApiToken, initialApiTokenState);

describe('API token', () => {
  it('when created, then only the digest is recorded, and a second creation is a conflict', () => {
    const created = decideApiToken(CREATE, initialApiTokenState);
    expect(created).toEqual([
      { type: 'ApiTokenCreated', data: { tokenId: 't1', label: 'Sync', userId: 'u1', scopes: ['tickets:read'], expiresAt: null, secretHash: 'a'.repeat(64) } },
    ]);
    expect(() => decideApiToken(CREATE, after(created))).toThrow(ConflictError);
  });

  it('when the expiry is past, a scope unknown or the secret not a digest, then it is refused', () => {
    expect(() => decideApiToken({ ...CREATE, expiresAt: '2025-01-01T00:00:00Z' }, initialApiTokenState)).toThrow(ValidationError);
    expect(() => decideApiToken({ ...CREATE, scopes: ['root' as never] }, initialApiTokenState)).toThrow(ValidationError);
    expect(() => decideApiToken({ ...CREATE, secretHash: 'sdt_plain_secret' }, initialApiTokenState)).toThrow(ValidationError);
  });

  it('when revoked, then a second revocation changes nothing; an unknown token is not found', () => {
    const created = decideApiToken(CREATE, initialApiTokenState);
    const revoked = decideApiToken({ type: 'RevokeApiToken' }, after(created));
    expect(after([...created, ...revoked]).status).toBe('revoked');
    expect(decideApiToken({ type: 'RevokeApiToken' }, after([...created, ...revoked]))).toEqual([]);
    expect(() => decideApiToken({ type: 'RevokeApiToken' }, initialApiTokenState)).toThrow(NotFoundError);
  });
});
