import argon2 from 'argon2';
import { reservationDecider, reservationStream } from '../../domain/reservation/reservation';
import { UnauthorizedError } from '../../domain/shared/errors';
import { userDecider } from '../../domain/user/decide';
import { type Role, type UserProfile, userStream } from '../../domain/user/user';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import { USERS, type UserView } from '../../projections/users';
import type { AppDeps } from '../deps';

const HASH_OPTIONS = { type: argon2.argon2id } as const;
/** Verified when the e-mail is unknown, so a wrong address costs the same time as a wrong password. */
let dummyHash: Promise<string> | null = null;

export const hashPassword = (password: string) => argon2.hash(password, HASH_OPTIONS);

/**
 * Creates a user after claiming the e-mail and username reservations, so that of two concurrent
 * creations with the same e-mail exactly one can succeed. A failure releases what was claimed.
 */
export async function createUser(
  deps: AppDeps,
  input: { profile: UserProfile; role: Role; isActive: boolean; password: string },
  context: CommandContext,
): Promise<UserView> {
  const userId = deps.newId();
  const profile = { ...input.profile, email: input.profile.email.toLowerCase(), username: input.profile.username.toLowerCase() };
  const claims = [
    { kind: 'email', value: profile.email, conflictMessage: 'An account with this e-mail already exists', conflictCode: 'EMAIL_TAKEN' },
    { kind: 'username', value: profile.username, conflictMessage: 'This username is already taken', conflictCode: 'USERNAME_TAKEN' },
  ];
  const claimed: typeof claims = [];
  try {
    for (const claim of claims) {
      await handleCommand(deps.events, reservationStream(claim.kind, claim.value), reservationDecider, { type: 'Reserve', ownerId: userId, ...claim }, context);
      claimed.push(claim);
    }
    const passwordHash = await hashPassword(input.password);
    const result = await handleCommand(
      deps.events,
      userStream(userId),
      userDecider,
      { type: 'CreateUser', userId, profile, role: input.role, isActive: input.isActive, passwordHash },
      context,
    );
    await deps.projections.waitFor(result.position);
  } catch (error) {
    for (const claim of claimed) {
      await handleCommand(deps.events, reservationStream(claim.kind, claim.value), reservationDecider, { type: 'Release', kind: claim.kind, value: claim.value, ownerId: userId }, context);
    }
    throw error;
  }
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
  if (!user) throw new Error(`user ${userId} was created but is not projected yet`);
  return user;
}

/** Checks an e-mail and password; the hash is read from the user's stream, never from a read model. */
export async function verifyCredentials(deps: AppDeps, email: string, password: string): Promise<UserView> {
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ email: email.toLowerCase() });
  const state = user ? (await loadState(deps.events, userStream(user._id), userDecider)).state : null;
  const hash = state && state.status !== 'none' ? state.passwordHash : await (dummyHash ??= hashPassword('not-a-real-password'));
  const matches = await argon2.verify(hash, password).catch(() => false);
  if (!user || !matches) throw new UnauthorizedError('Invalid email or password', 'INVALID_CREDENTIALS');
  return user;
}
