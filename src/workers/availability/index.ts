import type { AppDeps } from '../../app/deps';
import { AVAILABILITY_QUEUE, type AvailabilityJob } from '../../app/jobs/availability';
import type { PlannedJob } from '../../app/jobs/planned';
import { fillTeam, returnAbsentAgentTickets } from '../../app/tickets/assignment';
import { userDecider } from '../../domain/user/decide';
import { userStream } from '../../domain/user/user';
import { type CommandContext, handleCommand } from '../../platform/commands';
import type { RecordedEvent } from '../../platform/eventstore/port';
import type { Job } from '../../platform/queue/port';
import { loadSystemSettings } from '../../projections/settings';
import { teamIdsOf } from '../../projections/teams';
import { TICKETS, type TicketView } from '../../projections/tickets';
import { USERS, type UserView } from '../../projections/users';
import type { WorkerChannel } from '../channels';
import type { ReactionPage } from '../reactor';

const SYSTEM: CommandContext['actor'] = { userId: 'system', role: 'system', platform: 'system' };

/** The events that start an idle time or an Offline, and those that free an agent's capacity or bring one to a team. */
const TYPES = [
  'StaffActivitySeen',
  'AvailabilitySet',
  'TicketStatusChanged',
  'AgentUnassignedFromTicket',
  'AgentAssignedToTicket',
  'TicketTeamChanged',
  'TeamMemberAdded',
  'TeamAssignmentSet',
];

type Timer = Extract<AvailabilityJob, { kind: 'idle' | 'grace' }>;

/** When a timer is due by the settings as they are now; null when the setting is off (0). */
async function dueAt(deps: AppDeps, job: Timer): Promise<number | null> {
  const settings = await loadSystemSettings(deps.readStore);
  if (job.kind === 'idle') return settings.idleAwayMinutes > 0 ? Date.parse(job.since) + settings.idleAwayMinutes * 60_000 : null;
  return settings.offlineGraceSeconds > 0 ? Date.parse(job.offlineAt) + settings.offlineGraceSeconds * 1000 : null;
}

/** A timer waits in hops of at most SLA_TIMER_MAX_DELAY_MS, each looking at the clock and the setting again. */
function timer(deps: AppDeps, job: Timer, at: number): PlannedJob {
  const delayMs = Math.max(0, Math.min(at - deps.clock().getTime(), deps.config.SLA_TIMER_MAX_DELAY_MS));
  const what = job.kind === 'idle' ? `${job.userId}:${job.since}` : job.offlineEventId;
  return { queue: AVAILABILITY_QUEUE, name: job.kind, data: job, options: { jobId: `${job.kind}:${what}:${job.hop}`, delayMs, backoffMs: 5000 } };
}

const fill = (event: RecordedEvent, teamId: string): PlannedJob => ({
  queue: AVAILABILITY_QUEUE,
  name: 'fill',
  data: { kind: 'fill', teamId } satisfies AvailabilityJob,
  // One team's fills one after another: each would claim the same oldest tickets.
  options: { jobId: `fill:${event.id}:${teamId}`, group: `team:${teamId}`, backoffMs: 5000 },
});

/** The agent whose open tickets an event of a ticket lessened, if any. */
async function freedAgent(event: RecordedEvent, deps: AppDeps): Promise<string | null> {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'TicketStatusChanged': {
      if (data.to !== 'resolved' && data.to !== 'closed') return null;
      const ticket = await deps.readStore.collection<TicketView>(TICKETS).findOne({ _id: String(data.ticketId) });
      return ticket?.assignedAgent?._id ?? null;
    }
    case 'AgentUnassignedFromTicket':
      // A returned ticket is given again by the return itself.
      return data.returned ? null : String(data.agentId);
    case 'AgentAssignedToTicket':
      return typeof data.previousAgentId === 'string' ? data.previousAgentId : null;
    default:
      return null;
  }
}

async function plan(event: RecordedEvent, deps: AppDeps, page: ReactionPage): Promise<PlannedJob[]> {
  const data = event.data as Record<string, unknown>;
  const userId = String(data.userId);
  const settings = await page.once('settings', () => loadSystemSettings(deps.readStore));
  const teamsOf = async (agentId: string) => (await teamIdsOf(deps.readStore, agentId)).map((teamId) => fill(event, teamId));
  switch (event.type) {
    case 'StaffActivitySeen': {
      const job: Timer = { kind: 'idle', userId, since: String(data.at), hop: 0 };
      return settings.idleAwayMinutes > 0 ? [timer(deps, job, Date.parse(job.since) + settings.idleAwayMinutes * 60_000)] : [];
    }
    case 'AvailabilitySet': {
      if (data.availability === 'offline') {
        const job: Timer = { kind: 'grace', userId, offlineEventId: event.id, offlineAt: event.metadata.occurredAt, hop: 0 };
        return settings.offlineGraceSeconds > 0 ? [timer(deps, job, Date.parse(job.offlineAt) + settings.offlineGraceSeconds * 1000)] : [];
      }
      if (data.availability !== 'available') return [];
      const idle: PlannedJob[] =
        typeof data.at === 'string' && settings.idleAwayMinutes > 0
          ? [timer(deps, { kind: 'idle', userId, since: data.at, hop: 0 }, Date.parse(data.at) + settings.idleAwayMinutes * 60_000)]
          : [];
      return [...idle, ...(await teamsOf(userId))];
    }
    case 'TeamMemberAdded':
    case 'TeamAssignmentSet':
      return [fill(event, String(data.teamId))];
    case 'TicketTeamChanged':
      // A routed new ticket is assigned as it opens; a ticket put in a team later waits there like any other.
      return data.teamId && data.reason !== 'category-routing' ? [fill(event, String(data.teamId))] : [];
    default: {
      const agentId = await freedAgent(event, deps);
      return agentId ? teamsOf(agentId) : [];
    }
  }
}

/** A due idle timer sets Away; a due grace timer returns the tickets, if the Offline that planned it still stands. */
async function run(deps: AppDeps, job: Job<AvailabilityJob>): Promise<void> {
  const data = job.data;
  if (data.kind === 'fill') {
    await fillTeam(deps, data.teamId, job.id);
    return;
  }
  const due = await dueAt(deps, data);
  if (due === null) return;
  if (deps.clock().getTime() < due) {
    const next = timer(deps, { ...data, hop: data.hop + 1 }, due);
    await deps.queue.add(next.queue, next.name, next.data, next.options);
    return;
  }
  const context: CommandContext = { actor: SYSTEM, now: deps.clock(), causationId: job.id };
  if (data.kind === 'idle') {
    const minutes = (await loadSystemSettings(deps.readStore)).idleAwayMinutes;
    await handleCommand(
      deps.events,
      userStream(data.userId),
      userDecider,
      { type: 'SetAwayWhenIdle', userId: data.userId, since: data.since, minutes },
      context,
    );
    return;
  }
  const lastChange = (await deps.events.readStream(userStream(data.userId))).findLast((event) => event.type === 'AvailabilitySet');
  if (lastChange?.id !== data.offlineEventId) return;
  await returnAbsentAgentTickets(deps, data.userId, (await loadSystemSettings(deps.readStore)).offlineGraceSeconds, job.id);
}

/** How many of a member's events are read at a time, newest first, looking for the last that moved their availability or idle time. */
const LOOK_BACK = 100;

/** A member's last `AvailabilitySet` or `StaffActivitySeen`, read from the end of their stream. */
async function lastMove(deps: AppDeps, userId: string): Promise<RecordedEvent | null> {
  for (let from: number | undefined; ;) {
    const events = await deps.events.readStream(userStream(userId), {
      direction: 'backwards',
      maxCount: LOOK_BACK,
      ...(from === undefined ? {} : { fromRevision: from }),
    });
    const found = events.find((event) => event.type === 'AvailabilitySet' || event.type === 'StaffActivitySeen');
    if (found) return found;
    const oldest = events.at(-1);
    if (events.length < LOOK_BACK || !oldest || oldest.revision === 0) return null;
    from = oldest.revision - 1;
  }
}

/**
 * The timer a member's stream says should be waiting, with the id the event that started it planned (a queue
 * that kept it adds nothing): a grace timer for an Offline that still stands, an idle timer from the last
 * activity seen or the return to Available (activity is only seen while Available). Away starts none.
 */
async function standingTimers(deps: AppDeps, userId: string, settings: { idleAwayMinutes: number; offlineGraceSeconds: number }): Promise<PlannedJob[]> {
  const last = await lastMove(deps, userId);
  if (!last) return [];
  const data = last.data as Record<string, unknown>;
  if (last.type === 'AvailabilitySet' && data.availability === 'offline') {
    if (settings.offlineGraceSeconds === 0) return [];
    const job: Timer = { kind: 'grace', userId, offlineEventId: last.id, offlineAt: last.metadata.occurredAt, hop: 0 };
    return [timer(deps, job, Date.parse(job.offlineAt) + settings.offlineGraceSeconds * 1000)];
  }
  const idle = last.type === 'StaffActivitySeen' || data.availability === 'available';
  // A return to Available recorded before it carried its time starts no idle time, as it did not then.
  if (!idle || typeof data.at !== 'string' || settings.idleAwayMinutes === 0) return [];
  return [timer(deps, { kind: 'idle', userId, since: data.at, hop: 0 }, Date.parse(data.at) + settings.idleAwayMinutes * 60_000)];
}

/**
 * Plans again the timers of every active staff member once the read models have caught up with the log
 * as it was at start: a queue that lost its jobs (Redis flushed or replaced, the embedded queue's file
 * gone), or timers planned while no worker ran, would otherwise leave an idle agent Available and an
 * Offline agent's tickets with them for good.
 */
async function rearm(deps: AppDeps, stopped: () => boolean): Promise<void> {
  const head = await deps.events.headPosition();
  while (!stopped() && !(await deps.projections.waitFor(head, 5000, ['users', 'settings'])));
  if (stopped()) return;
  const settings = await loadSystemSettings(deps.readStore);
  if (settings.idleAwayMinutes === 0 && settings.offlineGraceSeconds === 0) return;
  const staff = await deps.readStore.collection<UserView>(USERS).find({ role: { $in: ['agent', 'admin'] }, isActive: true });
  for (const member of staff) {
    if (stopped()) return;
    for (const planned of await standingTimers(deps, member._id, settings)) await deps.queue.add(planned.queue, planned.name, planned.data, planned.options);
  }
}

/**
 * Availability's side of the log (docs/teams.md): the idle timers that set staff Away, the grace timers that
 * return an Offline agent's tickets to their teams, and the fills that give a team's waiting tickets when
 * capacity frees. Timers are delayed jobs of the durable queue, planned with ids derived from the events, so a
 * replay plans nothing twice and a restart keeps them; on start they are planned again from the staff's streams
 * (the same ids), so a queue that lost them re-arms them; what they change is decided on the streams, so a job
 * run by two processes changes things once.
 */
export const availabilityChannel: WorkerChannel = {
  name: 'availability',
  reaction: async (event, deps, page) => (TYPES.includes(event.type) ? plan(event, deps, page) : []),
  types: TYPES,
  reads: ['settings', 'teams', 'tickets'],
  async start(deps) {
    deps.queue.process<AvailabilityJob>(AVAILABILITY_QUEUE, (job) => run(deps, job), { concurrency: 2 });
    let stopped = false;
    // In the background, so nothing else waits for it.
    const rearming = rearm(deps, () => stopped).catch((error: unknown) =>
      deps.logger.error({ err: error }, 'Availability timers could not be re-armed; they are planned again at the next start'),
    );
    return async () => {
      stopped = true;
      await rearming;
    };
  },
};
