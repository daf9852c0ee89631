import argon2 from 'argon2';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '#contract/errors';
import { type UserChanges, type UserCommand, userDecider } from '../../domain/user/decide';
import type { CreateUserInput, Registration, Role, UpdateUserInput } from '#contract/users';
import type { Availability } from '#contract/teams';
import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationPreferences, type UserProfile, type UserState, userStream } from '../../domain/user/user';
import { type CommandContext, type Fence, handleCommand, loadState } from '../../platform/commands';
import { USERS, type UserView } from '../../projections/users';
import { runCommand, readYourWrites } from '../commands';
import type { AppDeps } from '../deps';
import { type Claim, type Owners, release, withClaims } from '../reservations';
import { type ClientInfo, type Tokens, startSession } from './sessions';
import { holderOf } from '../../projections/uniqueKeys';
import { SESSIONS, type SessionView } from '../../projections/sessions';
import { loadSystemSettings } from '../../projections/settings';

const HASH_OPTIONS = { type: argon2.argon2id } as const;
/** Verified when the e-mail is unknown, so a wrong address costs the same time as a wrong password. */
let dummyHash: Promise<string> | null = null;

export const hashPassword = (password: string) => argon2.hash(password, HASH_OPTIONS);

type UniqueField = 'email' | 'username';

const CONFLICTS: Record<UniqueField, { conflictMessage: string; conflictCode: string }> = {
  email: { conflictMessage: 'An account with this e-mail already exists', conflictCode: 'EMAIL_TAKEN' },
  username: { conflictMessage: 'This username is already taken', conflictCode: 'USERNAME_TAKEN' },
};

const uniqueClaim = (kind: UniqueField, value: string): Claim => ({ kind, value, ...CONFLICTS[kind] });

const loadUser = (deps: AppDeps, userId: string) => loadState(deps.events, userStream(userId), userDecider);

/** A user holds its e-mail and username (and its Telegram ID, see src/app/telegram); deleting it lets them go. */
export const userOwners: Owners<UserState> = {
  stream: userStream,
  decider: userDecider,
  holds: (state, { kind, value }) => {
    if (state.status !== 'active' && state.status !== 'inactive') return false;
    const held = kind === 'telegram' ? state.telegramId : state[kind as UniqueField];
    return held !== null && held.toLowerCase() === value.toLowerCase();
  },
  gone: (state) => state.status === 'deleted',
};

const withUserClaims = <T>(deps: AppDeps, userId: string, claims: Claim[], context: CommandContext, work: (fences: Fence[]) => Promise<T>) =>
  withClaims(deps, userId, claims, context, userOwners, work);

async function projectedUser(deps: AppDeps, userId: string, position: number): Promise<UserView> {
  await readYourWrites(deps, position);
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
  if (!user) throw new NotFoundError('User');
  return user;
}

async function runUserCommand(deps: AppDeps, userId: string, command: UserCommand, context: CommandContext, fences: Fence[] = []) {
  return handleCommand(deps.events, userStream(userId), userDecider, command, context, { fences });
}

const uniqueClaims = (profile: Pick<UserProfile, 'email' | 'username'>): Claim[] => [
  uniqueClaim('email', profile.email),
  uniqueClaim('username', profile.username),
];

/** Self-registration: always a customer, whatever the request said. */
export async function registerUser(deps: AppDeps, registration: Registration, context: (userId: string) => CommandContext): Promise<UserView> {
  const userId = deps.newId();
  const ctx = context(userId);
  const { password, ...profile } = registration;
  const result = await withUserClaims(deps, userId, uniqueClaims(profile), ctx, async (fences) =>
    runUserCommand(deps, userId, { type: 'RegisterUser', userId, profile, passwordHash: await hashPassword(password) }, ctx, fences),
  );
  return projectedUser(deps, userId, result.position);
}

/** An admin (or the first start, or the e-mail channel: `origin` `email`) creates a user with any role. */
export async function createUser(deps: AppDeps, input: CreateUserInput, context: CommandContext, userId = deps.newId(), origin?: 'email'): Promise<UserView> {
  const { password, role, isActive, telegramUsername, ...profile } = input;
  const result = await withUserClaims(deps, userId, uniqueClaims(profile), context, async (fences) =>
    runUserCommand(
      deps,
      userId,
      {
        type: 'CreateUser',
        userId,
        profile,
        role,
        isActive,
        telegramUsername: telegramUsername ?? null,
        passwordHash: await hashPassword(password),
        ...(origin ? { origin } : {}),
      },
      context,
      fences,
    ),
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
  const claims = moving.map((kind) => uniqueClaim(kind, fields[kind]!));
  const result = await withUserClaims(deps, userId, claims, context, async (fences) => {
    const changes: UserChanges = { ...fields, ...(password !== undefined ? { passwordHash: await hashPassword(password) } : {}) };
    return runUserCommand(deps, userId, { type: 'UpdateUser', userId, actorId: context.actor.userId, changes }, context, fences);
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
  await readYourWrites(deps, result.position);
}

/** Checks an e-mail and password; the hash is read from the user's stream, never from a read model. */
export async function verifyCredentials(deps: AppDeps, email: string, password: string): Promise<UserView> {
  // Two accounts the log gives one e-mail: the first holder signs in (docs/read-models.md).
  const user = await holderOf(deps.readStore.collection<UserView>(USERS), 'email', email.toLowerCase());
  const state = user ? (await loadUser(deps, user._id)).state : null;
  const hash =
    state && (state.status === 'active' || state.status === 'inactive') ? state.passwordHash : await (dummyHash ??= hashPassword('not-a-real-password'));
  const matches = await argon2.verify(hash, password).catch(() => false);
  if (!user || !matches) throw new UnauthorizedError('Invalid email or password', 'INVALID_CREDENTIALS');
  return user;
}

/** Signs in a user whose credentials were verified: records the sign-in, then starts a session. */
export async function signIn(deps: AppDeps, user: UserView, client: ClientInfo): Promise<{ user: UserView } & Tokens> {
  if (!user.isActive) throw new ForbiddenError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
  const actor = { userId: user._id, role: user.role, platform: 'web' as const };
  const context = { actor, now: deps.clock(), correlationId: client.requestId };
  await runCommand(deps, userStream(user._id), userDecider, { type: 'RecordSignIn', userId: user._id, now: context.now.toISOString() }, context);
  const fresh = (await deps.readStore.collection<UserView>(USERS).findOne({ _id: user._id })) ?? user;
  return { user: fresh, ...(await startSession(deps, fresh, client)) };
}

/** Changes some of a staff member's notification preferences; answers all of them as they now stand. */
export async function setNotificationPreferences(
  deps: AppDeps,
  userId: string,
  changes: Partial<NotificationPreferences>,
  context: CommandContext,
): Promise<NotificationPreferences> {
  const users = deps.readStore.collection<UserView>(USERS);
  const current = await users.findOne({ _id: userId });
  if (!current) throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
  const preferences = { ...preferencesOf(current), ...changes };
  await runCommand(deps, userStream(userId), userDecider, { type: 'SetNotificationPreferences', userId, preferences }, context);
  const updated = await users.findOne({ _id: userId });
  if (!updated) throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
  return preferencesOf(updated);
}

/** A user's preferences with those added since their read model document was written at their defaults (no rebuild needed). */
export const preferencesOf = (user: UserView): NotificationPreferences => ({ ...DEFAULT_NOTIFICATION_PREFERENCES, ...user.notificationPreferences });

/** Sets a staff member's availability for automatic assignment (themselves, or a colleague by an admin); answers it as it now stands. */
export async function setAvailability(deps: AppDeps, userId: string, availability: Availability, context: CommandContext): Promise<Availability> {
  const actor = { userId: context.actor.userId, role: context.actor.role as Role };
  const result = await runCommand(
    deps,
    userStream(userId),
    userDecider,
    { type: 'SetAvailability', userId, actor, availability, now: context.now.toISOString() },
    context,
  );
  return result.state.status === 'active' || result.state.status === 'inactive' ? result.state.availability : availability;
}

/**
 * A staff member who signs out of their last session is Offline until they sign in again (docs/teams.md):
 * one device signed out leaves them as they were while another is still signed in. The session just
 * ended is in the sessions model already (the sign-out waits for it), and the model applies the log in
 * order, so of two devices signing out at once the later one sees the other's end and records Offline.
 * A customer's sign-out records nothing.
 */
export async function recordSignOut(deps: AppDeps, userId: string, context: CommandContext): Promise<void> {
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
  const now = context.now.toISOString();
  const open = await deps.readStore.collection<SessionView>(SESSIONS).find({ userId, endedAt: null });
  if (user && open.some((session) => session.expiresAt > now && session.startedPosition > user.sessionsValidAfter)) return;
  await runCommand(deps, userStream(userId), userDecider, { type: 'RecordSignOut', userId, now }, context);
}

/** Activity is recorded at most once a minute: the idle time is counted in minutes, and the log gains at most one event a minute per person. */
const ACTIVITY_EVERY_MS = 60_000;

/** The web app saw its user at work; recorded for Available staff while the desk sets idle staff Away (docs/teams.md). */
export async function recordActivity(deps: AppDeps, userId: string, context: CommandContext): Promise<void> {
  if ((await loadSystemSettings(deps.readStore)).idleAwayMinutes === 0) return;
  const now = context.now.toISOString();
  await runCommand(deps, userStream(userId), userDecider, { type: 'RecordActivity', userId, now, everyMs: ACTIVITY_EVERY_MS }, context);
}
