import type { Router } from 'express';
import { NotFoundError } from '#contract/errors';
import { createUserSchema, listUsersQuery, updateUserSchema } from '#contract/users';
import { ROLES } from '#contract/users';
import { type Filter, escapeRegex } from '../../platform/readstore/port';
import { USERS, type UserView, publicUser } from '../../projections/users';
import type { AppDeps } from '../../app/deps';
import { commandContext, requireRole } from '../http/auth';
import { idempotencyKeyOf } from '../http/idempotency';
import { createdIn, idOfKey, once } from '../../app/idempotency';
import { userStream } from '../../domain/user/user';
import { parse } from '../http/validate';
import { createUser, deleteUser, updateUser } from '../../app/identity/service';
import { scope } from '../http/scopes';
import { issuePasswordLink } from '../../app/identity/passwordLinks';

const DAY_MS = 24 * 60 * 60 * 1000;

/** User administration (docs/product.md section 6: admins only). */
export const userRoutes = (deps: AppDeps) => (router: Router) => {
  const users = () => deps.readStore.collection<UserView>(USERS);
  const load = async (id: string) => {
    const user = await users().findOne({ _id: id });
    if (!user) throw new NotFoundError('User');
    return user;
  };
  const admin = requireRole('admin');

  router.get('/users/stats', scope('admin'), admin, async (_req, res) => {
    const weekAgo = new Date(deps.clock().getTime() - 7 * DAY_MS).toISOString();
    const [total, active, newThisWeek, activeAgents, activeStaff, ...perRole] = await Promise.all([
      users().count(),
      users().count({ isActive: true }),
      users().count({ createdAt: { $gte: weekAgo } }),
      users().count({ role: 'agent', isActive: true }),
      users().count({ role: { $in: ['agent', 'admin'] }, isActive: true }),
      ...ROLES.map((role) => users().count({ role })),
    ]);
    const byRole = Object.fromEntries(ROLES.map((role, index) => [role, perRole[index] ?? 0]));
    res.json({ total, active, inactive: total - active, byRole, activeAgents, activeStaff, newThisWeek });
  });

  router.get('/users', scope('admin'), admin, async (req, res) => {
    const { page, limit, role, q, isActive } = parse(listUsersQuery, req.query);
    const filter: Filter = {};
    if (role) filter.role = role;
    if (isActive) filter.isActive = isActive === 'true';
    if (q) {
      const pattern = { $regex: escapeRegex(q), $options: 'i' };
      filter.$or = [{ username: pattern }, { email: pattern }, { firstName: pattern }, { lastName: pattern }];
    }
    const [total, found] = await Promise.all([
      users().count(filter),
      users().find(filter, { sort: { createdAt: -1, _id: 1 }, skip: (page - 1) * limit, limit }),
    ]);
    res.json({ users: found.map(publicUser), pagination: { page, limit, total, pages: Math.ceil(total / limit) } });
  });

  router.get('/users/:id', scope('admin'), admin, async (req, res) => {
    res.json({ user: publicUser(await load(req.params.id as string)) });
  });

  router.post('/users', scope('admin'), admin, async (req, res) => {
    const input = parse(createUserSchema, req.body);
    const key = idempotencyKeyOf(req, input);
    const userId = key ? idOfKey(key, 'user') : deps.newId();
    const user = await once(deps, key, commandContext(deps, req), {
      create: () => createUser(deps, input, commandContext(deps, req), userId),
      idOf: (created) => created._id,
      answer: load,
      earlier: () => createdIn(deps, userStream(userId), userId),
    });
    res.status(201).json({ user: publicUser(user) });
  });

  router.put('/users/:id', scope('admin'), admin, async (req, res) => {
    const input = parse(updateUserSchema, req.body);
    const user = await updateUser(deps, req.params.id as string, input, commandContext(deps, req));
    res.json({ user: publicUser(user) });
  });

  /** Mails the user a link to set their password (docs/identity.md); a few an hour per user. */
  router.post('/users/:id/password-link', scope('admin'), admin, async (req, res) => {
    const user = await load(req.params.id as string);
    const { expiresAt } = await issuePasswordLink(deps, user._id, 'admin', commandContext(deps, req));
    res.status(201).json({ sentTo: user.email, expiresAt });
  });

  router.delete('/users/:id', scope('admin'), admin, async (req, res) => {
    await deleteUser(deps, req.params.id as string, commandContext(deps, req));
    res.status(204).end();
  });
};
