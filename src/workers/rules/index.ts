import { enabledTimeRules, forgetEnabledRules, runRules } from '../../app/rules/engine';
import { RULE_TIMER_QUEUE, type RuleTimerJob, fireRuleTimer, timersOfRule, timersOfTicket } from '../../app/rules/time';
import { isTimeRule } from '../../domain/rule/time';
import { RULES, type RuleView } from '../../projections/rules';
import { EMAIL_QUEUE, type EmailJob } from '../../app/jobs/email';
import type { PlannedJob } from '../../app/jobs/planned';
import { isTelegramOnlyEmail } from '../../app/telegram/customers';
import { RULE_TRIGGER_TYPES } from '../../domain/rule/run';
import type { RuleFiredData } from '../../domain/ticket/ticket';
import type { AppDeps } from '../../app/deps';
import { type RecordedEvent, recordedAs } from '../../platform/eventstore/port';
import { loadSystemSettings } from '../../projections/settings';
import { TEAMS, type TeamView } from '../../projections/teams';
import { USERS, type UserView } from '../../projections/users';
import { publicUrl } from '../email/notifications';
import { oneLine } from '../ticketNotices';
import type { WorkerChannel } from '../channels';

/** The staff a rule's notices reach: a team's active members, or the one agent. */
async function recipientsOf(deps: AppDeps, fired: RuleFiredData): Promise<Array<{ user: UserView; text: string }>> {
  const users = deps.readStore.collection<UserView>(USERS);
  const found: Array<{ user: UserView; text: string }> = [];
  for (const notice of fired.notify) {
    const ids = notice.to === 'agent' ? [notice.agentId] : ((await deps.readStore.collection<TeamView>(TEAMS).findOne({ _id: notice.teamId }))?.members ?? []);
    for (const user of await users.find({ _id: { $in: ids }, isActive: true, role: { $in: ['agent', 'admin'] } })) found.push({ user, text: notice.text });
  }
  return found;
}

/** A rule's notices to staff, by e-mail as the desk's SLA warnings are, one job per recipient with an id from the `RuleFired` event. */
async function noticesOf(recorded: RecordedEvent, deps: AppDeps): Promise<PlannedJob[]> {
  const fired = recordedAs<{ type: 'RuleFired'; data: RuleFiredData }>(recorded).data;
  if (fired.notify.length === 0) return [];
  const system = await loadSystemSettings(deps.readStore);
  if (!system.emailNotifications) return [];
  const base = publicUrl(deps.config);
  return (await recipientsOf(deps, fired))
    .filter(({ user }) => !isTelegramOnlyEmail(user.email))
    .map(({ user, text }): PlannedJob => {
      const mail: EmailJob = {
        to: user.email,
        ticketId: fired.ticketId,
        kind: 'rule-notice',
        subject: oneLine(`[${system.systemName}] Rule "${fired.rule.name}" on ticket #${fired.number}`),
        text: `Hello ${user.firstName},\n\n${text}\n\nOpen it: ${base}/tickets/${fired.ticketId}\n\n— ${system.systemName}\n`,
      };
      return {
        queue: EMAIL_QUEUE,
        name: 'rule-notice',
        data: mail,
        options: { jobId: `email:${recorded.id}:${user._id}`, group: `mailbox:${user.email.toLowerCase()}`, backoffMs: 5000 },
      };
    });
}

/** A rule created, changed (switched on or off, moved) or deleted: the next ticket event reads the rules again. */
const RULE_CHANGES: readonly string[] = ['RuleCreated', 'RuleUpdated', 'RuleDeleted'];

/** The ticket events that may start or end a time rule's wait: those that change what its conditions read. */
const WAIT_EVENTS: readonly string[] = [
  'TicketOpened',
  'TicketStatusChanged',
  'TicketPriorityChanged',
  'AgentAssignedToTicket',
  'AgentUnassignedFromTicket',
  'TicketTeamChanged',
  'TicketCategoryChanged',
  'TicketTagAdded',
  'TicketTagRemoved',
  'TicketMergedInto',
  'TicketMergeIntoUndone',
];

/** The timers of a time rule just created or changed (switched on, its wait or conditions changed): every ticket's wait, at its new version. */
async function timersOfChangedRule(deps: AppDeps, ruleId: string): Promise<PlannedJob[]> {
  const rule = await deps.readStore.collection<RuleView>(RULES).findOne({ _id: ruleId });
  return rule && rule.enabled && isTimeRule(rule) ? timersOfRule(deps, rule) : [];
}

/** Re-armed once the read models caught up with the log as it was at start: a queue that lost timers, or a wait due while no process ran, is planned again. */
async function rearm(deps: AppDeps, stopped: () => boolean): Promise<void> {
  const head = await deps.events.headPosition();
  while (!stopped() && !(await deps.projections.waitFor(head, 5000, ['rules', 'tickets'])));
  if (stopped()) return;
  for (const rule of await deps.readStore.collection<RuleView>(RULES).find({ enabled: true }))
    if (isTimeRule(rule))
      for (const planned of await timersOfRule(deps, rule)) await deps.queue.add(planned.queue, planned.name, planned.data, planned.options);
}

/**
 * Triggers (docs/automation.md): the notifications reactor, in the one process holding the workers'
 * lease, runs the rules on each ticket event a trigger listens to, in log order, then plans the
 * notices of the runs it recorded. The runs' claims are in the tickets' streams, so a replay after a
 * restart or a second process reacting to the same event runs nothing twice.
 */
export const rulesChannel: WorkerChannel = {
  name: 'rules',
  async reaction(event, deps) {
    if (event.type === 'RuleFired') return noticesOf(event, deps);
    if (RULE_CHANGES.includes(event.type)) {
      forgetEnabledRules(deps);
      return event.type === 'RuleDeleted' ? [] : timersOfChangedRule(deps, String(event.data.ruleId));
    }
    if (RULE_TRIGGER_TYPES.includes(event.type as (typeof RULE_TRIGGER_TYPES)[number])) await runRules(deps, event);
    if (!WAIT_EVENTS.includes(event.type) || !event.streamId.startsWith('ticket-')) return [];
    return timersOfTicket(deps, String(event.data.ticketId), await enabledTimeRules(deps));
  },
  types: [...new Set([...RULE_TRIGGER_TYPES, ...WAIT_EVENTS, 'RuleFired', ...RULE_CHANGES])],
  reads: ['rules', 'tickets', 'teams', 'users', 'categories', 'settings'],
  // A process that gains the workers' lease missed the rule changes the reactor went through elsewhere.
  // Every process takes due time rules' timers (their runs are claimed in the tickets' streams).
  async start(deps, lease) {
    const off = lease.onChange(() => forgetEnabledRules(deps));
    deps.queue.process<RuleTimerJob>(RULE_TIMER_QUEUE, (job) => fireRuleTimer(deps, job.data), { concurrency: 2 });
    let stopped = false;
    const rearming = rearm(deps, () => stopped).catch((error: unknown) =>
      deps.logger.error({ err: error }, 'Time rules could not be re-armed; they are planned again at the next start'),
    );
    return async () => {
      off();
      stopped = true;
      await rearming;
    };
  },
};
