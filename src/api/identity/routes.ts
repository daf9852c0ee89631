import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Router } from 'express';
import { UnauthorizedError } from '#contract/errors';
import type { Actor } from '../../platform/eventstore/port';
import { activitySchema, availabilitySchema } from '#contract/teams';
import { loginSchema, logoutSchema, notificationPreferencesSchema, refreshSchema, registerSchema, setPasswordSchema } from '#contract/users';
import { setPasswordWithLink } from '../../app/identity/passwordLinks';
import { USERS, type UserView, publicUser } from '../../projections/users';
import type { AppDeps } from '../../app/deps';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import {
  preferencesOf,
  recordActivity,
  recordSignOut,
  registerUser,
  setAvailability,
  setNotificationPreferences,
  signIn,
  verifyCredentials,
} from '../../app/identity/service';
import { type ClientInfo, endSession, endSessionOfRefreshToken, refreshSession, startSession } from '../../app/identity/sessions';
import { LoginThrottle } from './throttle';
import { noToken, open } from '../http/scopes';

const clientOf = (req: Request): ClientInfo => ({ ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null, requestId: req.requestId });

export const identityRoutes = (deps: AppDeps) => (router: Router) => {
  const throttle = new LoginThrottle(deps.limiters);
  const users = () => deps.readStore.collection<UserView>(USERS);
  const loadUser = async (userId: string) => {
    const user = await users().findOne({ _id: userId });
    if (!user) throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN');
    return user;
  };

  router.post('/auth/register', noToken, async (req, res) => {
    const registration = parse(registerSchema, req.body);
    const user = await registerUser(deps, registration, (userId) => ({
      actor: { userId, role: 'customer', platform: 'web' },
      now: deps.clock(),
      correlationId: req.requestId,
    }));
    const tokens = await startSession(deps, user, clientOf(req));
    res.status(201).json({ user: publicUser(user), ...tokens });
  });

  router.post('/auth/login', noToken, async (req, res) => {
    const { email, password } = parse(loginSchema, req.body);
    const ip = req.ip ?? 'unknown';
    const attempt = await throttle.admit(email, ip);
    if (attempt.waitMs > 0) await sleep(attempt.waitMs);
    let user: UserView;
    try {
      user = await verifyCredentials(deps, email, password);
    } catch (error) {
      const wrong = error instanceof UnauthorizedError;
      await throttle.settle(attempt, wrong ? 'failed' : 'abandoned');
      throw wrong && attempt.refusal ? attempt.refusal : error;
    }
    await throttle.settle(attempt, 'succeeded');
    const { user: signedIn, ...tokens } = await signIn(deps, user, clientOf(req));
    res.json({ user: publicUser(signedIn), ...tokens });
  });

  /** The page of an e-mailed password link (docs/identity.md): public, as the token proves who is asking. */
  router.post('/auth/set-password', noToken, async (req, res) => {
    const { token, password } = parse(setPasswordSchema, req.body);
    await setPasswordWithLink(deps, token, password, req.requestId);
    res.status(204).end();
  });

  router.post('/auth/refresh', noToken, async (req, res) => {
    const { refreshToken } = parse(refreshSchema, req.body);
    res.json(await refreshSession(deps, refreshToken, req.requestId));
  });

  /** Ends the session of the refresh token sent, or else of the access token used. */
  router.post('/auth/logout', noToken, async (req, res) => {
    const { refreshToken } = parse(logoutSchema, req.body);
    let actor: Actor;
    if (refreshToken !== undefined) {
      actor = await endSessionOfRefreshToken(deps, refreshToken, req.requestId);
    } else {
      const user = currentUser(req);
      actor = { userId: user.id, role: user.role, platform: 'web' };
      await endSession(deps, user.sessionId, 'logout', actor, req.requestId);
    }
    // Staff who sign out are Offline (docs/teams.md): they take no automatic assignment until they sign in again.
    await recordSignOut(deps, actor.userId, { actor, now: deps.clock(), correlationId: req.requestId });
    res.status(204).end();
  });

  /** The web app saw its user at work (at most once a minute): the idle time that sets staff Away starts again (docs/teams.md). */
  router.post('/auth/activity', noToken, requireRole('agent', 'admin'), async (req, res) => {
    parse(activitySchema, req.body ?? {});
    await recordActivity(deps, currentUser(req).id, commandContext(deps, req));
    res.status(204).end();
  });

  router.get('/auth/profile', open, requireRole(), async (req, res) => {
    res.json({ user: publicUser(await loadUser(currentUser(req).id)) });
  });

  router.get('/auth/notifications/preferences', noToken, requireRole('agent', 'admin'), async (req, res) => {
    const user = await loadUser(currentUser(req).id);
    res.json({ notificationPreferences: preferencesOf(user) });
  });

  /** Staff's own availability for automatic assignment (docs/teams.md). */
  router.get('/auth/availability', noToken, requireRole('agent', 'admin'), async (req, res) => {
    res.json({ availability: (await loadUser(currentUser(req).id)).availability });
  });

  router.put('/auth/availability', noToken, requireRole('agent', 'admin'), async (req, res) => {
    const { availability } = parse(availabilitySchema, req.body);
    res.json({ availability: await setAvailability(deps, currentUser(req).id, availability, commandContext(deps, req)) });
  });

  router.put('/auth/notifications/preferences', noToken, requireRole('agent', 'admin'), async (req, res) => {
    const changes = parse(notificationPreferencesSchema, req.body);
    res.json({ notificationPreferences: await setNotificationPreferences(deps, currentUser(req).id, changes, commandContext(deps, req)) });
  });
};
