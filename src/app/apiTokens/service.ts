import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_TOKEN_PREFIX, type ApiTokenScope, type CreateApiTokenInput } from '#contract/apiTokens';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '#contract/errors';
import { apiTokenStream, apiTokenUseStream } from '../../domain/apiToken/apiToken';
import { apiTokenDecider, apiTokenUseDecider } from '../../domain/apiToken/decide';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import type { RecordedEvent } from '../../platform/eventstore/port';
import { API_TOKENS, type ApiTokenView } from '../../projections/apiTokens';
import { USERS, type UserView } from '../../projections/users';
import { runCommand } from '../commands';
import { createUser } from '../identity/service';
import type { AppDeps } from '../deps';

/** A use is recorded at most once a minute per token and process: the "last use" the admin sees. */
const TOKEN_USE_RECORD_MS = 60_000;

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** `sdt_<token id>_<43 characters of randomness>`: the id finds the token's stream, the whole string is the secret. */
const TOKEN_FORMAT = /^sdt_([0-9a-f-]{36})_[A-Za-z0-9_-]{43}$/;

/** What a token stands for when it is valid: its owner and what it may do. */
export interface ApiTokenIdentity {
  tokenId: string;
  label: string;
  scopes: ApiTokenScope[];
  user: UserView;
}

export const tokenNotAllowed = () => new ForbiddenError('An API token cannot be used for this; sign in as a person', 'TOKEN_NOT_ALLOWED');

async function activeUser(deps: Pick<AppDeps, 'readStore'>, userId: string): Promise<UserView> {
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
  if (!user) throw new NotFoundError('User');
  return user;
}

/**
 * A named service account: a user of its own (so its actions, names and role work as anyone's),
 * with a password nobody is told, so it acts only through its tokens.
 */
async function createServiceAccount(deps: AppDeps, account: { name: string; role: 'agent' | 'admin' }, context: CommandContext): Promise<UserView> {
  const username = `svc_${account.name}`;
  return createUser(
    deps,
    {
      username,
      email: `${username}@service-accounts.invalid`,
      firstName: account.name,
      lastName: '(service account)',
      password: randomBytes(32).toString('base64url'),
      role: account.role,
      isActive: true,
    },
    context,
  ).catch((error: unknown) => {
    // Its username and address are made from the name: taken means the name is.
    if (error instanceof ConflictError && (error.code === 'EMAIL_TAKEN' || error.code === 'USERNAME_TAKEN'))
      throw new ConflictError(
        `A service account named ${account.name} already exists; give its tokens to it by userId, or choose another name`,
        'SERVICE_ACCOUNT_TAKEN',
      );
    throw error;
  });
}

/**
 * Creates a token; answers its view and the secret, which is shown this once and kept only as a digest.
 * A person makes it, never a token: a token made through another would outlive that one's revocation.
 */
export async function createApiToken(deps: AppDeps, input: CreateApiTokenInput, context: CommandContext): Promise<{ token: ApiTokenView; secret: string }> {
  if (context.actor.token) throw tokenNotAllowed();
  const user = input.serviceAccount
    ? await createServiceAccount(deps, input.serviceAccount, context)
    : await activeUser(deps, input.userId!).catch(() => {
        throw new ValidationError('userId must be the id of a user', [{ path: 'userId', message: 'No such user' }]);
      });
  if (!user.isActive) throw new ValidationError('A token cannot act for a deactivated user', [{ path: 'userId', message: 'Deactivated' }]);
  const tokenId = deps.newId();
  const secret = `${API_TOKEN_PREFIX}${tokenId}_${randomBytes(32).toString('base64url')}`;
  await runCommand(
    deps,
    apiTokenStream(tokenId),
    apiTokenDecider,
    {
      type: 'CreateApiToken',
      now: context.now.toISOString(),
      tokenId,
      label: input.label,
      userId: user._id,
      scopes: input.scopes,
      expiresAt: input.expiresAt,
      secretHash: digest(secret),
    },
    context,
  );
  return { token: await findApiToken(deps, tokenId), secret };
}

export async function findApiToken(deps: Pick<AppDeps, 'readStore'>, tokenId: string): Promise<ApiTokenView> {
  const token = await deps.readStore.collection<ApiTokenView>(API_TOKENS).findOne({ _id: tokenId });
  if (!token) throw new NotFoundError('API token');
  return token;
}

export async function revokeApiToken(deps: AppDeps, tokenId: string, context: CommandContext): Promise<ApiTokenView> {
  await findApiToken(deps, tokenId);
  await runCommand(deps, apiTokenStream(tokenId), apiTokenDecider, { type: 'RevokeApiToken' }, context);
  return findApiToken(deps, tokenId);
}

const lastRecorded = new Map<string, number>();

/**
 * Checks a presented API token against its own stream in the event log on every call, not a read
 * model or a cache: a revocation written by any process is seen by every other at its next call.
 * The owner comes from the read model, so a deactivated owner or a changed role holds at once too.
 */
export async function authenticateApiToken(deps: AppDeps, presented: string): Promise<ApiTokenIdentity> {
  const invalid = new UnauthorizedError('Invalid API token', 'INVALID_TOKEN');
  const tokenId = TOKEN_FORMAT.exec(presented)?.[1];
  if (!tokenId) throw invalid;
  const { state, events } = await loadState(deps.events, apiTokenStream(tokenId), apiTokenDecider);
  if (state.status === 'none' || !timingSafeEqual(Buffer.from(digest(presented), 'hex'), Buffer.from(state.secretHash, 'hex'))) throw invalid;
  if (state.status === 'revoked') throw new UnauthorizedError('This API token has been revoked', 'TOKEN_REVOKED');
  const now = deps.clock();
  if (state.expiresAt !== null && Date.parse(state.expiresAt) <= now.getTime()) throw new UnauthorizedError('This API token has expired', 'TOKEN_EXPIRED');
  await checkMaker(deps, events, now);
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: state.userId });
  if (!user) throw invalid;
  if (!user.isActive) throw new UnauthorizedError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  recordUse(deps, tokenId, now, { id: tokenId, label: state.label }, user);
  return { tokenId, label: state.label, scopes: state.scopes, user };
}

/**
 * A token made through another token (which the API once allowed) ends with its maker: refused once
 * the maker is revoked or expired, however long the chain, as the maker's own revocation meant.
 */
async function checkMaker(deps: AppDeps, events: RecordedEvent[], now: Date): Promise<void> {
  const makerId = events[0]?.metadata.actor?.token?.id;
  if (makerId === undefined) return;
  const maker = await loadState(deps.events, apiTokenStream(makerId), apiTokenDecider);
  if (maker.state.status !== 'active') throw new UnauthorizedError('The API token that made this one has been revoked', 'TOKEN_REVOKED');
  if (maker.state.expiresAt !== null && Date.parse(maker.state.expiresAt) <= now.getTime())
    throw new UnauthorizedError('The API token that made this one has expired', 'TOKEN_EXPIRED');
  await checkMaker(deps, maker.events, now);
}

/** Records the use in the background: a failed record never fails the call it describes. */
function recordUse(deps: AppDeps, tokenId: string, now: Date, token: { id: string; label: string }, user: UserView): void {
  const last = lastRecorded.get(tokenId) ?? 0;
  if (now.getTime() - last < TOKEN_USE_RECORD_MS) return;
  lastRecorded.set(tokenId, now.getTime());
  if (lastRecorded.size > 10_000) lastRecorded.clear();
  const context: CommandContext = { actor: { userId: user._id, role: user.role, platform: 'api', token }, now };
  handleCommand(deps.events, apiTokenUseStream(tokenId), apiTokenUseDecider, { type: 'RecordApiTokenUse', tokenId, at: now.toISOString() }, context).catch(
    (error: unknown) => deps.logger.warn({ err: error, tokenId }, 'could not record the use of an API token'),
  );
}
