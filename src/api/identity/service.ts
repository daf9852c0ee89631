import argon2 from 'argon2';
import { reservationDecider, reservationStream } from '../../domain/reservation/reservation';
import { ConflictError, NotFoundError, UnauthorizedError } from '../../domain/shared/errors';
import { type UserChanges, type UserCommand, userDecider } from '../../domain/user/decide';
import type { CreateUserInput, Registration, UpdateUserInput } from '../../domain/user/schema';
import { type UserProfile, userStream } from '../../domain/user/user';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import { USERS, type UserView } from '../../projections/users';
import type { AppDeps } from '../deps';

const HASH_OPTIONS = { type: argon2.argon2id } as const;
/** Verified when the e-mail is unknown, so a wrong address costs the same time as a wrong password. */
let dummyHash: Promise<string> | null = null;
/** A reservation whose owner never came to exist after this long was left by a crash mid-creation. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

export const hashPassword = (password: string) => argon2.hash(password, HASH_OPTIONS);

type UniqueField = 'email' | 'username';
interface Claim {
  kind: UniqueField;
  value: string;
}

const CONFLICTS: Record<UniqueField, { message: string; code: string }> = {
  email: { message: 'An account with this e-mail already exists', code: 'EMAIL_TAKEN' },
  username: { message: 'This username is already taken', code: 'USERNAME_TAKEN' },
};

const loadUser = (deps: AppDeps, userId: string) => loadState(deps.events, userStream(userId), userDecider);

/**
 * Claims an e-mail or username in its reservation stream. Of two concurrent claims exactly one
 * append succeeds. A value still held by an owner that was deleted, moved to another value, or
 * never came to exist (a crash between claim and creation) is taken over rather than lost forever.
 */
async function claim(deps: AppDeps, ownerId: string, { kind, value }: Claim, context: CommandContext): Promise<void> {
  const stream = reservationStream(kind, value);
  const command = { type: 'Reserve' as const, kind, value, ownerId, conflictMessage: CONFLICTS[kind].message, conflictCode: CONFLICTS[kind].code };
  try {
    await handleCommand(deps.events, stream, reservationDecider, command, context);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    const reserved = (await deps.events.readStream(stream, { direction: 'backwards', maxCount: 1 }))[0];
    const holder = reserved?.type === 'ValueReserved' ? (reserved.data as { ownerId: string }).ownerId : null;
    if (!reserved || !holder || !(await abandoned(deps, holder, kind, value, Date.parse(reserved.metadata.occurredAt), context.now))) throw error;
    await handleCommand(deps.events, stream, reservationDecider, { ...command, takeOverFrom: holder }, context);
  }
}

async function abandoned(deps: AppDeps, ownerId: string, kind: UniqueField, value: string, reservedAt: number, now: Date): Promise<boolean> {
  const { state } = await loadUser(deps, ownerId);
  if (state.status === 'deleted') return true;
  if (state.status === 'none') return now.getTime() - reservedAt > ABANDONED_AFTER_MS;
  return state[kind] !== value;
}

const release = (deps: AppDeps, ownerId: string, { kind, value }: Claim, context: CommandContext) =>
  handleCommand(deps.events, reservationStream(kind, value), reservationDecider, { type: 'Release', kind, value, ownerId }, context);

/** Claims every value, runs `work`, and releases what it claimed if anything fails. */
async function withClaims<T>(deps: AppDeps, ownerId: string, claims: Claim[], context: CommandContext, work: () => Promise<T>): Promise<T> {
  const claimed: Claim[] = [];
  try {
    for (const wanted of claims) {
      await claim(deps, ownerId, wanted, context);
      claimed.push(wanted);
    }
    return await work();
  } catch (error) {
    for (const held of claimed) await release(deps, ownerId, held, context);
    throw error;
  }
}

async function projectedUser(deps: AppDeps, userId: string, position: number): Promise<UserView> {
  await deps.projections.waitFor(position);
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
  if (!user) throw new NotFoundError('User');
  return user;
}

async function runUserCommand(deps: AppDeps, userId: string, command: UserCommand, context: CommandContext) {
  return handleCommand(deps.events, userStream(userId), userDecider, command, context);
}

const uniqueClaims = (profile: Pick<UserProfile, 'email' | 'username'>): Claim[] => [
  { kind: 'email', value: profile.email },
  { kind: 'username', value: profile.username },
];

/** Self-registration: always a customer, whatever the request said. */
export async function registerUser(deps: AppDeps, registration: Registration, context: (userId: string) => CommandContext): Promise<UserView> {
  const userId = deps.newId();
  const ctx = context(userId);
  const { password, ...profile } = registration;
  const result = await withClaims(deps, userId, uniqueClaims(profile), ctx, async () =>
    runUserCommand(deps, userId, { type: 'RegisterUser', userId, profile, passwordHash: await hashPassword(password) }, ctx),
  );
  return projectedUser(deps, userId, result.position);
}

/** An admin (or the first start) creates a user with any role. */
export async function createUser(deps: AppDeps, input: CreateUserInput, context: CommandContext): Promise<UserView> {
  const userId = deps.newId();
  const { password, role, isActive, telegramUsername, ...profile } = input;
  const result = await withClaims(deps, userId, uniqueClaims(profile), context, async () =>
    runUserCommand(deps, userId, { type: 'CreateUser', userId, profile, role, isActive, telegramUsername: telegramUsername ?? null, passwordHash: await hashPassword(password) }, context),
  );
  return projectedUser(deps, userId, result.position);
}

/**
 * Applies an admin's edit. A new e-mail or username is claimed before the user changes and the old
 * one released after, so at no moment can two users hold the same value.
 */
export async function updateUser(deps: AppDeps, userId: string, input: UpdateUserInput, context: CommandContext): Promise<UserView> {
  const { state } = await loadUser(deps, userId);
  if (state.status === 'none' || state.status === 'deleted') throw new NotFoundError('User');
  const { password, ...fields } = input;
  const moving = (['email', 'username'] as const).filter((kind) => fields[kind] !== undefined && fields[kind] !== state[kind]);
  const claims = moving.map((kind) => ({ kind, value: fields[kind]! }));
  const result = await withClaims(deps, userId, claims, context, async () => {
    const changes: UserChanges = { ...fields, ...(password !== undefined ? { passwordHash: await hashPassword(password) } : {}) };
    return runUserCommand(deps, userId, { type: 'UpdateUser', userId, actorId: context.actor.userId, changes }, context);
  });
  for (const kind of moving) await release(deps, userId, { kind, value: state[kind] }, context);
  return projectedUser(deps, userId, result.position);
}

export async function deleteUser(deps: AppDeps, userId: string, context: CommandContext): Promise<void> {
  const result = await runUserCommand(deps, userId, { type: 'DeleteUser', userId, actorId: context.actor.userId }, context);
  // The e-mail and username become free again; the user's stream keeps them for the audit trail.
  for (const event of result.events) {
    if (event.type !== 'UserDeleted') continue;
    await release(deps, userId, { kind: 'email', value: event.data.email }, context);
    await release(deps, userId, { kind: 'username', value: event.data.username }, context);
  }
  await deps.projections.waitFor(result.position);
}

/** Checks an e-mail and password; the hash is read from the user's stream, never from a read model. */
export async function verifyCredentials(deps: AppDeps, email: string, password: string): Promise<UserView> {
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ email: email.toLowerCase() });
  const state = user ? (await loadUser(deps, user._id)).state : null;
  const hash = state && (state.status === 'active' || state.status === 'inactive') ? state.passwordHash : await (dummyHash ??= hashPassword('not-a-real-password'));
  const matches = await argon2.verify(hash, password).catch(() => false);
  if (!user || !matches) throw new UnauthorizedError('Invalid email or password', 'INVALID_CREDENTIALS');
  return user;
}
