import type { SlaSettings, SlaTarget } from '#contract/sla';
import { ValidationError } from '#contract/errors';
import type { Priority } from '#contract/tickets';
import type { AppliedPolicy } from '../../domain/sla/clock';
import { choosePolicy } from '../../domain/sla/policy';
import { SLA_SETTINGS_STREAM, slaSettingsDecider } from '../../domain/sla/settings';
import { type SlaWarningKind, slaWarningDecider } from '../../domain/sla/warnings';
import { ticketStream } from '../../domain/ticket/ticket';
import type { CommandContext } from '../../platform/commands';
import { foldStream } from '../../platform/commands';
import { CATEGORIES } from '../../projections/categories';
import { runCommand } from '../commands';
import type { AppDeps } from '../deps';

/**
 * The policy a new ticket follows, from the settings stream itself (not a read model that may lag):
 * a ticket opened after a change follows the new version, one opened before keeps the old one.
 */
export async function policyForNewTicket(deps: AppDeps, categoryId: string, priority: Priority): Promise<AppliedPolicy | null> {
  const { state } = await foldStream(deps.events, SLA_SETTINGS_STREAM, slaSettingsDecider);
  return choosePolicy(state.settings, state.version, categoryId, priority);
}

/** Saves the calendars and policies (checked against the contract's schema) as the next version; a policy for a category that does not exist is refused. */
export async function updateSlaSettings(deps: AppDeps, settings: SlaSettings, context: CommandContext) {
  const categories = new Set((await deps.readStore.collection(CATEGORIES).find({}, { projection: { _id: 1 } })).map((category) => category._id));
  const issues = settings.policies.flatMap((policy, index) =>
    policy.categoryId !== null && !categories.has(policy.categoryId)
      ? [{ path: `policies.${index}.categoryId`, message: `No category ${policy.categoryId}` }]
      : [],
  );
  if (issues.length > 0) throw new ValidationError(issues[0]!.message, issues);
  await runCommand(deps, SLA_SETTINGS_STREAM, slaSettingsDecider, { type: 'UpdateSlaSettings', settings }, context);
}

/**
 * Records a warning or breach of a target if it holds at the injected clock's now, once: the ticket
 * stream's optimistic concurrency makes two processes whose timers fire together append it once.
 */
export async function raiseSlaWarning(deps: AppDeps, ticketId: string, target: SlaTarget, episode: number, warning: SlaWarningKind): Promise<void> {
  const now = deps.clock();
  const context: CommandContext = { actor: { userId: 'system', role: 'system', platform: 'system' }, now };
  await runCommand(deps, ticketStream(ticketId), slaWarningDecider, { type: 'RaiseSlaWarning', target, episode, warning, now }, context);
}
