import type { Request, Router } from 'express';
import { createCannedSchema, listCannedQuery, suggestionsQuery, updateCannedSchema } from '#contract/canned';
import { NotFoundError } from '#contract/errors';
import { type Filter, escapeRegex } from '../../platform/readstore/port';
import { CANNED, type CannedView } from '../../projections/canned';
import { createCanned, deleteCanned, updateCanned, useCanned } from '../../app/canned/service';
import type { AppDeps } from '../../app/deps';
import { commandContext, requireRole } from '../http/auth';
import { idempotencyKeyOf } from '../http/idempotency';
import { createdIn, idOfKey, once } from '../../app/idempotency';
import { cannedStream } from '../../domain/canned/canned';
import { findPage } from '../http/paging';
import { parse } from '../http/validate';
import type { CannedMessage } from '#contract/responses';
import { scope } from '../http/scopes';

/** docs/product.md section 9: canned messages sort by usage count, most used first, then by shortcode. */
const BY_USAGE = { usageCount: -1, shortcode: 1 } as const;

const toCanned = ({ _revision: _r, updatedAt: _u, _since: _s, ...canned }: CannedView): CannedMessage => canned;

export const cannedRoutes = (deps: AppDeps) => (router: Router) => {
  const collection = () => deps.readStore.collection<CannedView>(CANNED);
  const staff = requireRole('agent', 'admin');
  const id = (req: Request) => req.params.id as string;

  router.get('/canned-messages', scope('tickets:read'), staff, async (req, res) => {
    const { q, category, ...page } = parse(listCannedQuery, req.query);
    const filter: Filter = {};
    if (category) filter['category._id'] = category;
    if (q) {
      const pattern = { $regex: escapeRegex(q), $options: 'i' };
      filter.$or = [{ shortcode: pattern }, { title: pattern }, { content: pattern }];
    }
    const { items, pagination } = await findPage(collection(), filter, BY_USAGE, page);
    res.json({ cannedMessages: items.map(toCanned), pagination });
  });

  router.get('/canned-messages/suggestions', scope('tickets:read'), staff, async (req, res) => {
    const { q, limit } = parse(suggestionsQuery, req.query);
    const found = await collection().find(q ? { shortcode: { $regex: `^${escapeRegex(q)}` } } : {}, { sort: BY_USAGE, limit });
    res.json({ suggestions: found.map(toCanned) });
  });

  router.get('/canned-messages/:id', scope('tickets:read'), staff, async (req, res) => {
    const found = await collection().findOne({ _id: id(req) });
    if (!found) throw new NotFoundError('Canned message');
    res.json({ cannedMessage: toCanned(found) });
  });

  router.post('/canned-messages', scope('admin'), staff, async (req, res) => {
    const input = parse(createCannedSchema, req.body);
    const key = idempotencyKeyOf(req, input);
    const cannedId = key ? idOfKey(key, 'canned') : deps.newId();
    const created = await once(deps, key, commandContext(deps, req), {
      create: () => createCanned(deps, input, commandContext(deps, req), cannedId),
      idOf: (canned) => canned._id,
      answer: (createdId) => collection().findOne({ _id: createdId }),
      earlier: () => createdIn(deps, cannedStream(cannedId), cannedId),
    });
    res.status(201).json({ cannedMessage: toCanned(created) });
  });

  router.put('/canned-messages/:id', scope('admin'), staff, async (req, res) => {
    const changes = parse(updateCannedSchema, req.body);
    res.json({ cannedMessage: toCanned(await updateCanned(deps, id(req), changes, commandContext(deps, req))) });
  });

  router.put('/canned-messages/:id/usage', scope('admin'), staff, async (req, res) => {
    res.json({ cannedMessage: toCanned(await useCanned(deps, id(req), commandContext(deps, req))) });
  });

  router.delete('/canned-messages/:id', scope('admin'), staff, async (req, res) => {
    await deleteCanned(deps, id(req), commandContext(deps, req));
    res.status(204).end();
  });
};
