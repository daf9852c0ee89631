import type { AppDeps } from '../../app/deps';
import { EMAIL_QUEUE, type EmailJob } from '../../app/jobs/email';
import type { PlannedJob } from '../../app/jobs/planned';
import { SLA_QUEUE, type SlaTimerJob, slaTimerId } from '../../app/jobs/sla';
import { raiseSlaWarning } from '../../app/sla/service';
import { isTelegramOnlyEmail } from '../../app/telegram/customers';
import type { RecordedEvent } from '../../platform/eventstore/port';
import type { Job } from '../../platform/queue/port';
import { movesNoClock } from '../../domain/sla/clock';
import { type SlaTicketEntry, SLA_TICKETS, clockEvent, findSlaTicket } from '../../projections/sla';
import { loadSystemSettings } from '../../projections/settings';
import { USERS, type UserView } from '../../projections/users';
import { SLA_TARGET_WORDS, type SlaTarget } from '#contract/sla';
import { publicUrl } from '../email/notifications';
import { oneLine } from '../ticketNotices';
import type { WorkerChannel } from '../channels';
import type { ReactionPage } from '../reactor';

/** The events that start, stop or move a ticket's clocks, and the warnings that mail the agents. */
const CLOCK_EVENTS = ['SlaPolicyApplied', 'SlaPolicyReapplied', 'MessagePosted', 'TicketStatusChanged'];

/** An internal note leaves every clock as it was, so its timers are planned already: no read (docs/sla.md). */
function movesClocks(event: RecordedEvent): boolean {
  if (!CLOCK_EVENTS.includes(event.type)) return false;
  const input = clockEvent(event);
  return !(input && movesNoClock(input));
}

function timer(deps: AppDeps, job: Omit<SlaTimerJob, 'hop'>, hop = 0): PlannedJob {
  const data: SlaTimerJob = { ...job, hop };
  const delayMs = Math.max(0, Math.min(job.at - deps.clock().getTime(), deps.config.SLA_TIMER_MAX_DELAY_MS));
  return { queue: SLA_QUEUE, name: job.kind, data, options: { jobId: slaTimerId(data), delayMs, backoffMs: 5000 } };
}

/** The timers of a ticket's running targets: at the warning share (while ahead) and at the due time. */
function timersOf(deps: AppDeps, entry: SlaTicketEntry): PlannedJob[] {
  return entry.clock.clocks.flatMap((clock) => {
    if (clock.completedAt !== null || clock.runningSince === null || clock.dueAt === null) return [];
    const base = { ticketId: entry._id, target: clock.target, episode: clock.episode };
    return [
      ...(clock.warnAt !== null ? [timer(deps, { ...base, kind: 'warning', at: clock.warnAt })] : []),
      timer(deps, { ...base, kind: 'breach', at: clock.dueAt }),
    ];
  });
}

const staffMail = (
  recipient: UserView,
  ticket: { _id: string; number: number; title: string },
  target: SlaTarget,
  kind: 'warning' | 'breach',
  dueAt: string,
  systemName: string,
  base: string,
): EmailJob => {
  const what = SLA_TARGET_WORDS[target];
  const subject = kind === 'breach' ? `${what} breached on ticket #${ticket.number}` : `${what} due soon on ticket #${ticket.number}`;
  return {
    to: recipient.email,
    ticketId: ticket._id,
    kind: `sla-${kind}`,
    subject: oneLine(`[${systemName}] ${subject}: ${ticket.title}`),
    text: `Hello ${recipient.firstName},\n\n${what} on ticket #${ticket.number} “${oneLine(ticket.title)}” ${kind === 'breach' ? 'was due' : 'is due'} at ${dueAt}.\n\nOpen it: ${base}/tickets/${ticket._id}\n\n— ${systemName}\n`,
  };
};

/**
 * Plans the timers of a ticket whose clocks moved, and the mails of a warning once it is recorded:
 * to the assignee, or to every agent and admin while nobody is assigned. Both through the reactor's
 * checkpoint and ids derived from what they are for, so nothing is planned or sent twice.
 */
async function slaReaction(event: RecordedEvent, deps: AppDeps, page: ReactionPage): Promise<PlannedJob[]> {
  if (movesClocks(event)) {
    // The tickets of every event of the page that moves a clock, in one read (the model includes the whole page).
    const entries = await page.once('sla tickets', async () => {
      const ids = [...new Set(page.events.filter(movesClocks).map((moved) => String(moved.data.ticketId)))];
      // Through what the writer's pages last wrote, where this process writes them: no round trip on MongoDB.
      const found = await deps.projections.reader.collection<SlaTicketEntry>(SLA_TICKETS).find({ _id: { $in: ids } });
      return new Map(found.map((entry) => [entry._id, entry]));
    });
    const entry = entries.get(String(event.data.ticketId));
    return entry ? timersOf(deps, entry) : [];
  }
  if (event.type !== 'SlaWarningRaised') return [];
  const system = await loadSystemSettings(deps.readStore);
  const entry = await findSlaTicket(deps.readStore, String(event.data.ticketId));
  if (!system.emailNotifications || !entry) return [];
  const users = deps.readStore.collection<UserView>(USERS);
  const agentId = event.data.agentId as string | null;
  const recipients = agentId ? await users.find({ _id: agentId, isActive: true }) : await users.find({ role: { $in: ['agent', 'admin'] }, isActive: true });
  const { target, kind, dueAt } = event.data as { target: SlaTarget; kind: 'warning' | 'breach'; dueAt: string };
  return recipients
    .filter((recipient) => !isTelegramOnlyEmail(recipient.email))
    .map((recipient) => ({
      queue: EMAIL_QUEUE,
      name: `sla-${kind}`,
      data: staffMail(recipient, { _id: entry._id, number: entry.number, title: entry.title }, target, kind, dueAt, system.systemName, publicUrl(deps.config)),
      options: { jobId: `email:${event.id}:${recipient._id}`, group: `mailbox:${recipient.email.toLowerCase()}`, backoffMs: 5000 },
    }));
}

/** A timer that is due raises its warning (if it still holds); one that is not due yet waits another hop. */
async function fireTimer(deps: AppDeps, job: Job<SlaTimerJob>): Promise<void> {
  const { ticketId, target, episode, kind, at, hop } = job.data;
  if (deps.clock().getTime() < at) {
    const next = timer(deps, { ticketId, target, episode, kind, at }, hop + 1);
    await deps.queue.add(next.queue, next.name, next.data, next.options);
    return;
  }
  await raiseSlaWarning(deps, ticketId, target, episode, kind);
}

/**
 * The SLA warnings (docs/sla.md). Timers are delayed jobs in the durable queue; on start every
 * running target's timers are planned again from the read model (the same ids: a queue that kept
 * them adds nothing), so a queue that lost them, or a timer planned while no worker ran, is re-armed.
 */
export const slaChannel: WorkerChannel = {
  name: 'sla',
  reaction: slaReaction,
  types: [...CLOCK_EVENTS, 'SlaWarningRaised'],
  reads: ['sla', 'settings', 'users'],
  async start(deps) {
    deps.queue.process<SlaTimerJob>(SLA_QUEUE, (job) => fireTimer(deps, job), { concurrency: 2 });
    let stopped = false;
    // Re-armed once the sla read model has caught up with the log as it was at start (a workers
    // process may start before its read models); in the background, so nothing else waits for it.
    const rearm = async () => {
      const head = await deps.events.headPosition();
      while (!stopped && !(await deps.projections.waitFor(head, 5000, ['sla'])));
      if (stopped) return;
      for (const entry of await deps.readStore.collection<SlaTicketEntry>(SLA_TICKETS).find({ nextDueAt: { $ne: null } }))
        for (const planned of timersOf(deps, entry)) await deps.queue.add(planned.queue, planned.name, planned.data, planned.options);
    };
    const rearming = rearm().catch((error: unknown) =>
      deps.logger.error({ err: error }, 'SLA timers could not be re-armed; they are planned again at the next start'),
    );
    return async () => {
      stopped = true;
      await rearming;
    };
  },
};
