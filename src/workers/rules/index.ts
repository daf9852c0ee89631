import { forgetEnabledRules, runRules } from '../../app/rules/engine';
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
    if (RULE_CHANGES.includes(event.type)) forgetEnabledRules(deps);
    else await runRules(deps, event);
    return [];
  },
  types: [...RULE_TRIGGER_TYPES, 'RuleFired', ...RULE_CHANGES],
  reads: ['rules', 'tickets', 'teams', 'users', 'categories', 'settings'],
  // A process that gains the workers' lease missed the rule changes the reactor went through elsewhere.
  async start(deps, lease) {
    const off = lease.onChange(() => forgetEnabledRules(deps));
    return async () => off();
  },
};
