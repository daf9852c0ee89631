import { Router } from 'express';
import { z } from 'zod';
import { ForbiddenError } from '../../domain/shared/errors';
import { userDecider } from '../../domain/user/decide';
import { userStream } from '../../domain/user/user';
import { handleCommand } from '../../platform/commands';
import { USERS, type UserView, publicUser } from '../../projections/users';
import type { AppDeps } from '../deps';
import { currentUser, requireRole, signAccessToken } from '../http/auth';
import { parse } from '../http/validate';
import { verifyCredentials } from './service';

const loginSchema = z
  .object({
    email: z.string({ message: 'Email is required' }).trim().min(1, 'Email is required').max(254),
    password: z.string({ message: 'Password is required' }).min(1, 'Password is required').max(1024),
  })
  .strict();

export const identityRoutes = (deps: AppDeps) => (router: Router) => {
  router.post('/auth/login', async (req, res) => {
    const { email, password } = parse(loginSchema, req.body);
    const user = await verifyCredentials(deps, email, password);
    if (!user.isActive) throw new ForbiddenError('This account has been deactivated', 'ACCOUNT_DEACTIVATED');
    const actor = { userId: user._id, role: user.role, platform: 'web' as const };
    const result = await handleCommand(deps.events, userStream(user._id), userDecider, { type: 'RecordSignIn', userId: user._id }, { actor, now: deps.clock() });
    await deps.projections.waitFor(result.position);
    const fresh = (await deps.readStore.collection<UserView>(USERS).findOne({ _id: user._id })) ?? user;
    res.json({ user: publicUser(fresh), accessToken: signAccessToken(deps.jwtSecret, fresh) });
  });

  router.get('/auth/profile', requireRole(), async (req, res) => {
    const user = await deps.readStore.collection<UserView>(USERS).findOne({ _id: currentUser(req).id });
    res.json({ user: user ? publicUser(user) : null });
  });
};
