import type { Router } from 'express';
import { NotFoundError } from '#contract/errors';
import { createRuleSchema, importRulesSchema, reorderRulesSchema, updateRuleSchema } from '#contract/rules';
import type { Rule } from '#contract/responses';
import { RULES, type RuleView } from '../../projections/rules';
import { orderedRules } from '../../app/rules/engine';
import { createRule, deleteRule, dryRunRule, exportRules, importRules, reorderRules, ruleFirings, updateRule } from '../../app/rules/service';
import type { AppDeps } from '../../app/deps';
import { commandContext, requireRole } from '../http/auth';
import { scope } from '../http/scopes';
import { parse } from '../http/validate';

const toRule = ({ _revision: _r, _firedPosition: _f, ...rule }: RuleView): Rule => rule;

/** Admins only: rules act on every ticket of the desk (docs/automation.md). */
export const ruleRoutes = (deps: AppDeps) => (router: Router) => {
  const admin = requireRole('admin');

  router.get('/rules', scope('admin'), admin, async (_req, res) => {
    res.json({ rules: (await orderedRules(deps)).map(toRule) });
  });

  router.get('/rules/export', scope('admin'), admin, async (req, res) => {
    res.json(await exportRules(deps, commandContext(deps, req)));
  });

  router.post('/rules/import', scope('admin'), admin, async (req, res) => {
    const { rules } = parse(importRulesSchema, req.body);
    res.status(201).json({ rules: (await importRules(deps, rules, commandContext(deps, req))).map(toRule) });
  });

  router.post('/rules/order', scope('admin'), admin, async (req, res) => {
    const { ids } = parse(reorderRulesSchema, req.body);
    res.json({ rules: (await reorderRules(deps, ids, commandContext(deps, req))).map(toRule) });
  });

  router.get('/rules/:id', scope('admin'), admin, async (req, res) => {
    const found = await deps.readStore.collection<RuleView>(RULES).findOne({ _id: req.params.id as string });
    if (!found) throw new NotFoundError('Rule');
    res.json({ rule: toRule(found) });
  });

  router.post('/rules', scope('admin'), admin, async (req, res) => {
    const input = parse(createRuleSchema, req.body);
    res.status(201).json({ rule: toRule(await createRule(deps, input, commandContext(deps, req))) });
  });

  router.put('/rules/:id', scope('admin'), admin, async (req, res) => {
    const changes = parse(updateRuleSchema, req.body);
    res.json({ rule: toRule(await updateRule(deps, req.params.id as string, changes, commandContext(deps, req))) });
  });

  router.delete('/rules/:id', scope('admin'), admin, async (req, res) => {
    await deleteRule(deps, req.params.id as string, commandContext(deps, req));
    res.status(204).end();
  });

  router.get('/rules/:id/firings', scope('admin'), admin, async (req, res) => {
    res.json(await ruleFirings(deps, req.params.id as string, commandContext(deps, req)));
  });

  router.get('/rules/:id/dry-run', scope('admin'), admin, async (req, res) => {
    res.json(await dryRunRule(deps, req.params.id as string, commandContext(deps, req)));
  });
};
