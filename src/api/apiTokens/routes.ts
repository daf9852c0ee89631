import type { Router } from 'express';
import { type ApiToken, createApiTokenSchema } from '#contract/apiTokens';
import type { AppDeps } from '../../app/deps';
import { createApiToken, findApiToken, revokeApiToken } from '../../app/apiTokens/service';
import { API_TOKENS, type ApiTokenView } from '../../projections/apiTokens';
import { USERS, type UserView } from '../../projections/users';
import { commandContext, requireRole } from '../http/auth';
import { parse } from '../http/validate';
import { noToken } from '../http/scopes';

/** API tokens for integrations (docs/integrations.md): admins only, and never through a token (`noToken`: a token cannot mint, list or revoke tokens). */
export const apiTokenRoutes = (deps: AppDeps) => (router: Router) => {
  const admin = requireRole('admin');

  const present = async (views: ApiTokenView[]): Promise<ApiToken[]> => {
    const owners = await deps.readStore.collection<UserView>(USERS).find({ _id: { $in: [...new Set(views.map((view) => view.userId))] } });
    const byId = new Map(owners.map((owner) => [owner._id, owner]));
    const now = deps.clock().getTime();
    return views.map(({ _revision: _r, _id, ...view }) => {
      const owner = byId.get(view.userId);
      const expired = view.expiresAt !== null && Date.parse(view.expiresAt) <= now;
      return {
        _id,
        ...view,
        owner: owner ? { username: owner.username, name: `${owner.firstName} ${owner.lastName}`.trim(), role: owner.role } : null,
        status: view.revokedAt !== null ? 'revoked' : expired ? 'expired' : 'active',
      };
    });
  };

  router.get('/api-tokens', noToken, admin, async (_req, res) => {
    const views = await deps.readStore.collection<ApiTokenView>(API_TOKENS).find({}, { sort: { createdAt: -1, _id: 1 } });
    res.json({ tokens: await present(views) });
  });

  router.post('/api-tokens', noToken, admin, async (req, res) => {
    const input = parse(createApiTokenSchema, req.body);
    const { token, secret } = await createApiToken(deps, input, commandContext(deps, req));
    const [shown] = await present([token]);
    res.status(201).json({ token: shown, secret, message: 'Copy the secret now: it is shown only this once' });
  });

  router.delete('/api-tokens/:id', noToken, admin, async (req, res) => {
    await findApiToken(deps, req.params.id as string);
    const [shown] = await present([await revokeApiToken(deps, req.params.id as string, commandContext(deps, req))]);
    res.json({ token: shown, message: 'API token revoked' });
  });
};
