import type { Request, Router } from 'express';
import { NotFoundError } from '#contract/errors';
import { applyMacroSchema, createMacroSchema, listMacrosQuery, updateMacroSchema } from '#contract/macros';
import type { Macro } from '#contract/responses';
import { escapeRegex } from '../../platform/readstore/port';
import { MACROS, type MacroView } from '../../projections/macros';
import { applyMacro, createMacro, deleteMacro, previewMacro, updateMacro } from '../../app/macros/service';
import type { AppDeps } from '../../app/deps';
import { commandContext, currentUser, requireRole } from '../http/auth';
import { scope } from '../http/scopes';
import { parse } from '../http/validate';
import { ticketFor } from '../tickets/views';
import { idOfKey, once } from '../../app/idempotency';
import { projectedTicket } from '../../app/tickets/service';
import { idempotencyKeyOf } from '../http/idempotency';

const toMacro = ({ _revision: _r, ...macro }: MacroView): Macro => macro;

/** Staff only: customers never see macros; a personal macro is its owner's alone (docs/macros.md). */
export const macroRoutes = (deps: AppDeps) => (router: Router) => {
  const collection = () => deps.readStore.collection<MacroView>(MACROS);
  const staff = requireRole('agent', 'admin');
  const visibleTo = (req: Request) => ({ $or: [{ shared: true }, { 'owner._id': currentUser(req).id }] });

  router.get('/macros', scope('tickets:read'), staff, async (req, res) => {
    const { q } = parse(listMacrosQuery, req.query);
    const pattern = q ? { $regex: escapeRegex(q.replace(/^#/, '')), $options: 'i' } : null;
    const filter = pattern ? { $and: [visibleTo(req), { $or: [{ shortcode: pattern }, { name: pattern }] }] } : visibleTo(req);
    const found = await collection().find(filter, { sort: { name: 1 } });
    res.json({ macros: found.map(toMacro) });
  });

  router.get('/macros/:id', scope('tickets:read'), staff, async (req, res) => {
    const found = await collection().findOne({ $and: [{ _id: req.params.id as string }, visibleTo(req)] });
    if (!found) throw new NotFoundError('Macro');
    res.json({ macro: toMacro(found) });
  });

  router.post('/macros', scope('admin'), staff, async (req, res) => {
    const input = parse(createMacroSchema, req.body);
    res.status(201).json({ macro: toMacro(await createMacro(deps, input, commandContext(deps, req))) });
  });

  router.put('/macros/:id', scope('admin'), staff, async (req, res) => {
    const changes = parse(updateMacroSchema, req.body);
    res.json({ macro: toMacro(await updateMacro(deps, req.params.id as string, changes, commandContext(deps, req))) });
  });

  router.delete('/macros/:id', scope('admin'), staff, async (req, res) => {
    await deleteMacro(deps, req.params.id as string, commandContext(deps, req));
    res.status(204).end();
  });

  router.get('/tickets/:id/macros/:macroId/preview', scope('tickets:read'), staff, async (req, res) => {
    res.json(await previewMacro(deps, req.params.id as string, req.params.macroId as string, commandContext(deps, req)));
  });

  router.post('/tickets/:id/macros/:macroId/apply', scope('tickets:write'), staff, async (req, res) => {
    const input = parse(applyMacroSchema, req.body ?? {});
    const [ticketId, macroId] = [req.params.id as string, req.params.macroId as string];
    const key = idempotencyKeyOf(req, { ticketId, macroId, ...input });
    const context = commandContext(deps, req);
    // The messages' ids come from the key, so a retry racing the first finds them posted, and its other steps find the ticket as they leave it.
    const messageIdOf = key ? (index: number) => idOfKey(key, `message-${index}`) : undefined;
    const ticket = await once(deps, key, context, {
      create: async () => projectedTicket(deps, ticketId, await applyMacro(deps, ticketId, macroId, input, context, messageIdOf)),
      idOf: (applied) => applied._id,
      answer: (appliedTo) => projectedTicket(deps, appliedTo, 0),
      earlier: async () => null,
    });
    res.json({ ticket: ticketFor(ticket, currentUser(req)) });
  });
};
