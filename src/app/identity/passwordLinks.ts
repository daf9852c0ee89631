import { createHash, createHmac } from 'node:crypto';
import { NotFoundError } from '#contract/errors';
import { type PasswordLinkReason, userStream } from '../../domain/user/user';
import { userDecider } from '../../domain/user/decide';
import type { CommandContext } from '../../platform/commands';
import { USERS, type UserView } from '../../projections/users';
import { runCommand } from '../commands';
import type { AppDeps } from '../deps';
import { hashPassword } from './service';

/** How long a password link can be used: a week, as a customer may read the mail days later. */
const PASSWORD_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A link's token: `<userId>.<linkId>.<HMAC of both under the server's secret>`. Nothing stores it: the
 * user's stream keeps its SHA-256 digest, and the mail job carries the user and link ids, from which
 * the sender computes it again (docs/identity.md). Only the server that holds the secret can make one.
 */
export const passwordLinkToken = (deps: Pick<AppDeps, 'jwtSecret'>, userId: string, linkId: string) =>
  `${userId}.${linkId}.${createHmac('sha256', deps.jwtSecret).update(`password-link\u0000${userId}\u0000${linkId}`).digest('base64url')}`;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Records a new password link for a user (the actor: an admin, or the e-mail channel); the e-mail channel mails it. */
export async function issuePasswordLink(
  deps: AppDeps,
  userId: string,
  reason: PasswordLinkReason,
  context: CommandContext,
  linkId = deps.newId(),
): Promise<{ expiresAt: string }> {
  const now = context.now;
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_TTL_MS).toISOString();
  const tokenHash = digest(passwordLinkToken(deps, userId, linkId));
  await runCommand(
    deps,
    userStream(userId),
    userDecider,
    { type: 'IssuePasswordLink', userId, linkId, tokenHash, now: now.toISOString(), expiresAt, reason },
    context,
  );
  return { expiresAt };
}

/**
 * Sets the password of the link's user: unknown tokens are 404, a used, replaced or expired link 410.
 * The user is the actor (the token proves who they are); every session of theirs ends.
 */
export async function setPasswordWithLink(deps: AppDeps, token: string, password: string, requestId?: string): Promise<UserView> {
  const userId = token.split('.')[0] ?? '';
  const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: userId });
  if (!user) throw new NotFoundError('Password link');
  const context: CommandContext = {
    actor: { userId, role: user.role, platform: 'web' },
    now: deps.clock(),
    ...(requestId ? { correlationId: requestId } : {}),
  };
  await runCommand(
    deps,
    userStream(userId),
    userDecider,
    { type: 'SetPasswordWithLink', userId, tokenHash: digest(token), passwordHash: await hashPassword(password), now: context.now.toISOString() },
    context,
  );
  return user;
}
