import { z } from 'zod';
import { createRuleSchema, importRulesSchema, reorderRulesSchema, updateRuleSchema } from '#contract/rules';
import { Rule, RuleDryRun, RuleFirings } from '#contract/responses';
import type { ApiRegistry } from '../openapi/registry';
import { scope } from '../http/scopes';

export function describeRules(docs: ApiRegistry): void {
  const admin = ['admin' as const];
  const token = scope('admin');
  const rule = z.strictObject({ rule: Rule });
  const rules = z.strictObject({ rules: z.array(Rule) });
  docs.route({
    method: 'get',
    path: '/rules',
    token,
    summary: 'The rules in the order they run, with how often each fired',
    access: admin,
    responses: { 200: { description: '{ rules } by order', schema: rules } },
  });
  docs.route({
    method: 'get',
    path: '/rules/:id',
    token,
    summary: 'A rule',
    access: admin,
    responses: { 200: { description: 'The rule', schema: rule } },
  });
  docs.route({
    method: 'post',
    path: '/rules',
    token,
    summary: 'Create a rule (RuleCreated, version 1), last in the order; unknown ids are 400 naming the path, unknown variables 422 UNKNOWN_VARIABLES',
    access: admin,
    body: createRuleSchema,
    responses: { 201: { description: 'The new rule', schema: rule } },
    errors: [422],
  });
  docs.route({
    method: 'put',
    path: '/rules/:id',
    token,
    summary: 'Change a rule, switch it on or off (RuleUpdated with the next version)',
    access: admin,
    body: updateRuleSchema,
    responses: { 200: { description: 'The rule after the change', schema: rule } },
    errors: [422],
  });
  docs.route({
    method: 'delete',
    path: '/rules/:id',
    token,
    summary: 'Delete a rule (RuleDeleted); what it did stays in the tickets’ histories',
    access: admin,
    responses: { 204: { description: 'Deleted' } },
  });
  docs.route({
    method: 'post',
    path: '/rules/order',
    token,
    summary: 'Put the rules in a new order: every rule named once; each one that moves gets its next version',
    access: admin,
    body: reorderRulesSchema,
    responses: { 200: { description: 'The rules in their new order', schema: rules } },
  });
  docs.route({
    method: 'get',
    path: '/rules/export',
    token,
    summary: 'The rules as JSON for review or for another desk: their details in order, without ids or versions',
    access: admin,
    responses: { 200: { description: '{ rules } as POST /rules/import takes them', schema: importRulesSchema } },
  });
  docs.route({
    method: 'post',
    path: '/rules/import',
    token,
    summary: 'Import rules: each is checked first, then created as a new rule (version 1) after the existing ones; nothing is created when one is refused',
    access: admin,
    body: importRulesSchema,
    responses: { 201: { description: 'The rules created', schema: rules } },
    errors: [422],
  });
  docs.route({
    method: 'get',
    path: '/rules/:id/firings',
    token,
    summary: 'How often the rule fired and on which tickets (the latest 50)',
    access: admin,
    responses: { 200: { description: 'The count and the latest runs', schema: RuleFirings } },
  });
  docs.route({
    method: 'get',
    path: '/rules/:id/dry-run',
    token,
    summary: 'The open tickets whose fields meet the rule’s conditions now; for a time rule, the tickets in a wait for it, due or waiting; records nothing',
    access: admin,
    responses: { 200: { description: 'The tickets it would touch', schema: RuleDryRun } },
  });
}
