import { DEFAULT_SLA_SETTINGS, type SlaFilter, type SlaSettings, type SlaTarget, type TicketSla } from '#contract/sla';
import type { TicketStatus } from '#contract/tickets';
import type { Role } from '#contract/users';
import { type ClockEvent, type SlaClockState, type TargetClock, currentClocks, evolveClock, initialClock, nextDueAt, viewTarget } from '../domain/sla/clock';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { handledBy } from './events';
import type { Projection } from './runner';

/** One document per ticket that follows a policy: its clocks, folded from its events (docs/sla.md). */
export const SLA_TICKETS = 'sla_tickets_v1';
/** One document per target episode, what the attainment report counts. */
export const SLA_EPISODES = 'sla_episodes_v1';
export const SLA_SETTINGS = 'sla_settings_v1';

export interface SlaTicketEntry extends Doc {
  number: number;
  title: string;
  categoryId: string;
  customerId: string;
  agentId: string | null;
  status: TicketStatus;
  clock: SlaClockState;
  /** The earliest due time of a running target (ms), for the filters and the order; null when none runs. */
  nextDueAt: number | null;
  /** A target breached before a pause and still waiting: breached whatever the time. */
  pausedBreach: boolean;
  _revision: number;
}

export interface SlaEpisodeView extends Doc {
  ticketId: string;
  number: number;
  title: string;
  categoryId: string;
  /** The ticket's agent when the episode ended, or now while it runs: the one the target judges. */
  agentId: string | null;
  target: SlaTarget;
  episode: number;
  startedAt: number;
  dueAt: number | null;
  completedAt: number | null;
  breachedAt: number | null;
  running: boolean;
}

export type SlaSettingsView = Doc & SlaSettings & { version: number; updatedAt: string | null; updatedBy: string | null };

const tickets = (store: ReadStore) => store.collection<SlaTicketEntry>(SLA_TICKETS);
const episodes = (store: ReadStore) => store.collection<SlaEpisodeView>(SLA_EPISODES);

/** The ticket events as the clock folds them. */
export function clockEvent(event: RecordedEvent): ClockEvent | null {
  const at = Date.parse(event.metadata.occurredAt);
  if (event.type === 'TicketOpened') return { type: 'TicketOpened', at };
  if (event.type === 'TicketStatusChanged') return { type: 'TicketStatusChanged', at, to: event.data.to as TicketStatus };
  if (event.type === 'MessagePosted')
    return { type: 'MessagePosted', at, senderRole: event.data.senderRole as Role, isInternal: Boolean(event.data.isInternal) };
  return null;
}

const episodeViews = (entry: Omit<SlaTicketEntry, '_revision'>, clocks: TargetClock[]): SlaEpisodeView[] =>
  clocks.map((clock) => ({
    _id: `${entry._id}:${clock.target}:${clock.episode}`,
    ticketId: entry._id,
    number: entry.number,
    title: entry.title,
    categoryId: entry.categoryId,
    agentId: entry.agentId,
    target: clock.target,
    episode: clock.episode,
    startedAt: clock.startedAt,
    dueAt: clock.dueAt,
    completedAt: clock.completedAt,
    breachedAt: clock.breachedAt,
    running: clock.completedAt === null,
  }));

/** Writes the entry with its clock folded one event further, and the episodes that event touched; guarded by the stream revision. */
async function advance(store: ReadStore, event: { revision: number; data: { ticketId: string } }, change: (entry: SlaTicketEntry) => Partial<SlaTicketEntry>) {
  const entry = await tickets(store).findOne({ _id: String(event.data.ticketId) });
  if (!entry || entry._revision >= event.revision) return;
  const next = { ...entry, ...change(entry) };
  const clock = next.clock;
  const touched = clock.clocks.filter((after, index) => JSON.stringify(after) !== JSON.stringify(entry.clock.clocks[index]) || after.completedAt === null);
  const fields = {
    ...next,
    nextDueAt: nextDueAt(clock),
    pausedBreach: clock.clocks.some((c) => c.completedAt === null && c.runningSince === null && c.breachedAt !== null),
  };
  for (const view of episodeViews(fields, touched)) await episodes(store).replaceOne({ _id: view._id }, view, { upsert: true });
  const { _id: ticketId, ...rest } = fields;
  await tickets(store).updateOne({ _id: ticketId, _revision: { $lt: event.revision } }, { $set: { ...rest, _revision: event.revision } });
}

const fold = (event: RecordedEvent | { type: string; data: object; metadata: RecordedEvent['metadata'] }) => (entry: SlaTicketEntry) => {
  const input = clockEvent(event as RecordedEvent);
  return input ? { clock: evolveClock(entry.clock, input) } : {};
};

/** Serves the tickets' due times, Live Tickets' SLA filters and order, and the attainment report (docs/sla.md). */
export const slaProjection: Projection = {
  name: 'sla',
  version: 1,
  collections: [SLA_TICKETS, SLA_EPISODES, SLA_SETTINGS],
  async setup(store) {
    await tickets(store).createIndex({ keys: { nextDueAt: 1 } });
    await episodes(store).createIndex({ keys: { ticketId: 1 } });
    await episodes(store).createIndex({ keys: { startedAt: -1 } });
  },
  ...handledBy({
    async TicketOpened(event, store) {
      const { ticketId, number, title, categoryId, customerId } = event.data;
      const entry: Omit<SlaTicketEntry, '_id'> = {
        number,
        title,
        categoryId,
        customerId,
        agentId: null,
        status: 'open',
        clock: initialClock(null),
        nextDueAt: null,
        pausedBreach: false,
        _revision: event.revision,
      };
      await tickets(store).updateOne({ _id: ticketId }, { $setOnInsert: { ...entry } }, { upsert: true });
    },
    // Appended with the opening, at the same moment: the clocks start at the opening.
    SlaPolicyApplied: (event, store) =>
      advance(store, event, () => ({
        clock: evolveClock(initialClock(event.data.policy), { type: 'TicketOpened', at: Date.parse(event.metadata.occurredAt) }),
      })),
    MessagePosted: (event, store) => advance(store, event, fold(event)),
    TicketStatusChanged: (event, store) => advance(store, event, (entry) => ({ ...fold(event)(entry), status: event.data.to })),
    AgentAssignedToTicket: (event, store) => advance(store, event, () => ({ agentId: event.data.agentId })),
    AgentUnassignedFromTicket: (event, store) => advance(store, event, () => ({ agentId: null })),
    async TicketDeleted(event, store) {
      await episodes(store).deleteMany({ ticketId: event.data.ticketId });
      await tickets(store).deleteOne({ _id: event.data.ticketId });
    },
    async SlaSettingsUpdated(event, store) {
      const { settings, version } = event.data;
      await store
        .collection<SlaSettingsView>(SLA_SETTINGS)
        .replaceOne(
          { _id: 'settings' },
          { _id: 'settings', ...settings, version, updatedAt: event.metadata.occurredAt, updatedBy: event.metadata.actor?.userId ?? null },
          { upsert: true },
        );
    },
  }),
};

export async function loadSlaSettings(store: ReadStore): Promise<SlaSettingsView> {
  return (
    (await store.collection<SlaSettingsView>(SLA_SETTINGS).findOne({ _id: 'settings' })) ?? {
      _id: 'settings',
      ...DEFAULT_SLA_SETTINGS,
      version: 0,
      updatedAt: null,
      updatedBy: null,
    }
  );
}

/** A ticket's SLA as it stands at `now`; null when it follows no policy. */
export function slaOf(clock: SlaClockState, now: number): TicketSla | null {
  const { policy } = clock;
  if (!policy) return null;
  const next = nextDueAt(clock);
  return {
    policyId: policy.policyId,
    policyName: policy.policyName,
    version: policy.version,
    calendarName: policy.calendarName,
    paused: policy.pauseStatuses.includes(clock.status) && clock.clocks.some((c) => c.completedAt === null),
    nextDueAt: next === null ? null : new Date(next).toISOString(),
    targets: currentClocks(clock).map((target) => viewTarget(target, now)),
  };
}

/** The SLA of each of these tickets (those that follow a policy), for Live Tickets' chips. */
export async function slaOfTickets(store: ReadStore, ticketIds: string[], now: number) {
  const found = await tickets(store).find({ _id: { $in: ticketIds } });
  return found.flatMap((entry) => {
    const sla = slaOf(entry.clock, now);
    return sla ? [{ ticketId: entry._id, sla }] : [];
  });
}

export const findSlaTicket = (store: ReadStore, ticketId: string) => tickets(store).findOne({ _id: ticketId });

/** Live Tickets' SLA filters: a target breached now, or one due within the hour. */
export async function ticketIdsBySla(store: ReadStore, which: SlaFilter, now: number): Promise<string[]> {
  const filter =
    which === 'breached' ? { $or: [{ nextDueAt: { $ne: null, $lte: now } }, { pausedBreach: true }] } : { nextDueAt: { $gt: now, $lte: now + 3600_000 } };
  return (await tickets(store).find(filter, { projection: { _id: 1 } })).map((entry) => entry._id);
}

/** The tickets with a running target, earliest due first: the order of Live Tickets' "due" sort. */
export async function ticketIdsByDue(store: ReadStore): Promise<string[]> {
  return (await tickets(store).find({ nextDueAt: { $ne: null } }, { sort: { nextDueAt: 1 }, projection: { _id: 1 } })).map((entry) => entry._id);
}

/** The target episodes that started before `to` (the report decides which of them count for the period). */
export const slaEpisodesStartedBefore = (store: ReadStore, to: number) => episodes(store).find({ startedAt: { $lt: to } }, { sort: { startedAt: -1 } });
