import type { Request, Router } from 'express';
import { cannedStream } from '../../domain/canned/canned';
import { type CannedCommand, cannedDecider } from '../../domain/canned/decide';
import { createCannedSchema, listCannedQuery, suggestionsQuery, updateCannedSchema } from '../../domain/canned/schema';
import { NotFoundError, ValidationError } from '../../domain/shared/errors';
import type { Role } from '../../domain/user/user';
import { type CommandContext, handleCommand, loadState } from '../../platform/commands';
import { type Filter, escapeRegex } from '../../platform/readstore/port';
import { CANNED, type CannedView } from '../../projections/canned';
import { CATEGORIES } from '../../projections/categories';
import type { AppDeps } from '../../app/deps';
import { commandContext, requireRole } from '../http/auth';
import { findPage } from '../http/paging';
import { parse } from '../http/validate';
import { ABANDONED_AFTER_MS, type AbandonedCheck, type Claim, release, withClaims } from '../../app/reservations';

const shortcodeClaim = (shortcode: string): Claim => ({
  kind: 'shortcode',
  value: shortcode,
  conflictMessage: `A canned message with the shortcode #${shortcode} already exists`,
  conflictCode: 'SHORTCODE_TAKEN',
});

/** spec.md section 9: canned messages sort by usage count, most used first, then by shortcode. */
const BY_USAGE = { usageCount: -1, shortcode: 1 } as const;

export const toCanned = ({ _revision: _r, updatedAt: _u, ...canned }: CannedView) => canned;

export const cannedRoutes = (deps: AppDeps) => (router: Router) => {
  const collection = () => deps.readStore.collection<CannedView>(CANNED);
  const staff = requireRole('agent', 'admin');
  const loadCanned = (id: string) => loadState(deps.events, cannedStream(id), cannedDecider);
  const abandoned =
    (now: Date): AbandonedCheck =>
    async (holderId, { value }, reservedAt) => {
      const { state } = await loadCanned(holderId);
      if (state.status === 'deleted') return true;
      if (state.status === 'none') return now.getTime() - reservedAt.getTime() > ABANDONED_AFTER_MS;
      return state.shortcode !== value;
    };
  const run = (id: string, command: CannedCommand, context: CommandContext) => handleCommand(deps.events, cannedStream(id), cannedDecider, command, context);
  const answer = async (id: string, position: number) => {
    await deps.projections.waitFor(position);
    const found = await collection().findOne({ _id: id });
    if (!found) throw new NotFoundError('Canned message');
    return { cannedMessage: toCanned(found) };
  };
  const checkCategory = async (categoryId: string | null | undefined) => {
    if (!categoryId) return;
    if (!(await deps.readStore.collection(CATEGORIES).findOne({ _id: categoryId }))) {
      throw new ValidationError('The chosen category does not exist', [{ path: 'category', message: 'The chosen category does not exist' }]);
    }
  };
  const id = (req: Request) => req.params.id as string;

  router.get('/canned-messages', staff, async (req, res) => {
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

  router.get('/canned-messages/suggestions', staff, async (req, res) => {
    const { q, limit } = parse(suggestionsQuery, req.query);
    const found = await collection().find(q ? { shortcode: { $regex: `^${escapeRegex(q)}` } } : {}, { sort: BY_USAGE, limit });
    res.json({ suggestions: found.map(toCanned) });
  });

  router.get('/canned-messages/:id', staff, async (req, res) => {
    const found = await collection().findOne({ _id: id(req) });
    if (!found) throw new NotFoundError('Canned message');
    res.json({ cannedMessage: toCanned(found) });
  });

  router.post('/canned-messages', staff, async (req, res) => {
    const { category, ...input } = parse(createCannedSchema, req.body);
    await checkCategory(category);
    const cannedId = deps.newId();
    const context = commandContext(deps, req);
    const result = await withClaims(deps, cannedId, [shortcodeClaim(input.shortcode)], context, abandoned(context.now), () =>
      run(cannedId, { type: 'CreateCannedMessage', cannedId, createdBy: context.actor.userId, details: { ...input, categoryId: category } }, context),
    );
    res.status(201).json(await answer(cannedId, result.position));
  });

  router.put('/canned-messages/:id', staff, async (req, res) => {
    const { category, ...changes } = parse(updateCannedSchema, req.body);
    await checkCategory(category);
    const cannedId = id(req);
    const context = commandContext(deps, req);
    const { state } = await loadCanned(cannedId);
    if (state.status !== 'active') throw new NotFoundError('Canned message');
    const moving = changes.shortcode !== undefined && changes.shortcode !== state.shortcode;
    const claims = moving ? [shortcodeClaim(changes.shortcode!)] : [];
    const result = await withClaims(deps, cannedId, claims, context, abandoned(context.now), () =>
      run(cannedId, { type: 'UpdateCannedMessage', cannedId, changes: { ...changes, ...(category !== undefined ? { categoryId: category } : {}) } }, context),
    );
    if (moving) await release(deps, cannedId, shortcodeClaim(state.shortcode), context);
    res.json(await answer(cannedId, result.position));
  });

  router.put('/canned-messages/:id/usage', staff, async (req, res) => {
    const context = commandContext(deps, req);
    const result = await run(id(req), { type: 'UseCannedMessage', cannedId: id(req), usedBy: context.actor.userId }, context);
    res.json(await answer(id(req), result.position));
  });

  router.delete('/canned-messages/:id', staff, async (req, res) => {
    const context = commandContext(deps, req);
    const result = await run(id(req), { type: 'DeleteCannedMessage', cannedId: id(req), actorRole: context.actor.role as Role }, context);
    for (const event of result.events) {
      if (event.type === 'CannedMessageDeleted') await release(deps, id(req), shortcodeClaim(event.data.shortcode), context);
    }
    await deps.projections.waitFor(result.position);
    res.status(204).end();
  });
};
