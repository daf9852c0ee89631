import { DEFAULT_SLA_SETTINGS, type SlaFilter, type SlaSettings, type SlaTarget, type TicketSla } from '#contract/sla';
import type { TicketStatus } from '#contract/tickets';
import type { Role } from '#contract/users';
import {
  type AppliedPolicy,
  type ClockEvent,
  type SlaClockState,
  type TargetClock,
  appliedClock,
  currentClocks,
  evolveClock,
  initialClock,
  nextDueAt,
  viewTarget,
} from '../domain/sla/clock';
import type { RecordedEvent } from '../platform/eventstore/port';
import type { BulkOp, Doc, ReadStore } from '../platform/readstore/port';
import { dispatcher } from './events';
import type { Projection } from './runner';

/** One document per ticket that follows a policy: its clocks, folded from its events (docs/sla.md). */
export const SLA_TICKETS = 'sla_tickets_v1';
/** One document per target episode, what the attainment report counts. */
const SLA_EPISODES = 'sla_episodes_v1';
const SLA_SETTINGS = 'sla_settings_v1';

export interface SlaTicketEntry extends Doc {
  number: number;
  title: string;
  categoryId: string;
  customerId: string;
  agentId: string | null;
  teamId: string | null;
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
  /** The ticket's team when the episode ended, or now while it runs (docs/teams.md). */
  teamId: string | null;
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
  if (event.type === 'SlaPolicyReapplied') return { type: 'PolicyChanged', at, policy: event.data.policy as AppliedPolicy };
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
    teamId: entry.teamId,
    target: clock.target,
    episode: clock.episode,
    startedAt: clock.startedAt,
    dueAt: clock.dueAt,
    completedAt: clock.completedAt,
    breachedAt: clock.breachedAt,
    running: clock.completedAt === null,
  }));

interface Page {
  /** The page's tickets as read, then as folded (null: deleted or never known). */
  entries: Map<string, SlaTicketEntry | null>;
  changed: Set<string>;
  deleted: Set<string>;
  /** Episodes whose outcome, due time or agent moved. */
  episodes: Map<string, SlaEpisodeView>;
  settings: SlaSettingsView | null;
}

const withDerived = (entry: SlaTicketEntry): SlaTicketEntry => ({
  ...entry,
  nextDueAt: nextDueAt(entry.clock),
  pausedBreach: entry.clock.clocks.some((clock) => clock.completedAt === null && clock.runningSince === null && clock.breachedAt !== null),
});

/**
 * Folds one event into its ticket's entry, guarded by the stream revision (a replayed event changes
 * nothing), and notes the episodes it touched: those whose clock changed, and every open one when the
 * agent or team changed (those an episode judges).
 */
function advance(page: Page, event: { revision: number; data: { ticketId: string } }, change: (entry: SlaTicketEntry) => Partial<SlaTicketEntry>) {
  const ticketId = String(event.data.ticketId);
  const entry = page.entries.get(ticketId);
  if (!entry || entry._revision >= event.revision) return;
  const next = withDerived({ ...entry, ...change(entry), _revision: event.revision });
  const judgeMoved = next.agentId !== entry.agentId || next.teamId !== entry.teamId;
  const touched = next.clock.clocks.filter(
    (after, index) => JSON.stringify(after) !== JSON.stringify(entry.clock.clocks[index]) || (judgeMoved && after.completedAt === null),
  );
  for (const view of episodeViews(next, touched)) page.episodes.set(view._id, view);
  page.entries.set(ticketId, next);
  page.changed.add(ticketId);
}

const fold = (event: RecordedEvent | { type: string; data: object; metadata: RecordedEvent['metadata'] }) => (entry: SlaTicketEntry) => {
  const input = clockEvent(event as RecordedEvent);
  return input ? { clock: evolveClock(entry.clock, input) } : {};
};

const evolve = dispatcher<Page, void>({
  TicketOpened(event, page) {
    const { ticketId, number, title, categoryId, customerId } = event.data;
    if (page.entries.get(ticketId)) return;
    const entry: SlaTicketEntry = {
      _id: ticketId,
      number,
      title,
      categoryId,
      customerId,
      agentId: null,
      teamId: null,
      status: 'open',
      clock: initialClock(null),
      nextDueAt: null,
      pausedBreach: false,
      _revision: event.revision,
    };
    page.entries.set(ticketId, entry);
    page.changed.add(ticketId);
  },
  // Appended with the opening, at the same moment: the clocks start at the opening, or where a split ticket's customer began waiting.
  SlaPolicyApplied: (event, page) => advance(page, event, () => ({ clock: appliedClock(event.data, Date.parse(event.metadata.occurredAt)) })),
  MessagePosted: (event, page) => advance(page, event, fold(event)),
  SlaPolicyReapplied: (event, page) => advance(page, event, fold(event)),
  // Reports count a ticket's episodes under the category it has now.
  TicketCategoryChanged: (event, page) => advance(page, event, () => ({ categoryId: event.data.categoryId })),
  TicketStatusChanged: (event, page) => advance(page, event, (entry) => ({ ...fold(event)(entry), status: event.data.to })),
  AgentAssignedToTicket: (event, page) => advance(page, event, () => ({ agentId: event.data.agentId })),
  AgentUnassignedFromTicket: (event, page) => advance(page, event, () => ({ agentId: null })),
  TicketTeamChanged: (event, page) => advance(page, event, () => ({ teamId: event.data.teamId })),
  TicketDeleted(event, page) {
    const { ticketId } = event.data;
    page.entries.set(ticketId, null);
    page.changed.delete(ticketId);
    page.deleted.add(ticketId);
    for (const id of page.episodes.keys()) if (id.startsWith(`${ticketId}:`)) page.episodes.delete(id);
  },
  SlaSettingsUpdated(event, page) {
    const { settings, version } = event.data;
    page.settings = { _id: 'settings', ...settings, version, updatedAt: event.metadata.occurredAt, updatedBy: event.metadata.actor?.userId ?? null };
  },
});

/** A page of events: one read of the tickets it touches, one bulk write per collection of what changed. */
async function applySlaPage(events: RecordedEvent[], store: ReadStore): Promise<void> {
  const ids = [...new Set(events.filter((event) => event.type !== 'SlaSettingsUpdated').map((event) => String(event.data.ticketId)))];
  const page: Page = { entries: new Map(), changed: new Set(), deleted: new Set(), episodes: new Map(), settings: null };
  if (ids.length > 0) for (const entry of await tickets(store).find({ _id: { $in: ids } })) page.entries.set(entry._id, entry);
  for (const event of events) evolve.handle(event, page);
  const ticketOps: BulkOp<SlaTicketEntry>[] = [];
  for (const id of page.changed) {
    const entry = page.entries.get(id);
    if (entry) ticketOps.push({ replaceOne: { filter: { _id: id }, replacement: entry, upsert: true } });
  }
  for (const id of page.deleted) ticketOps.push({ deleteOne: { filter: { _id: id } } });
  const episodeOps: BulkOp<SlaEpisodeView>[] = [...page.episodes.values()].map((view) => ({
    replaceOne: { filter: { _id: view._id }, replacement: view, upsert: true },
  }));
  for (const id of page.deleted) episodeOps.push({ deleteMany: { filter: { ticketId: id } } });
  if (episodeOps.length > 0) await episodes(store).bulkWrite(episodeOps);
  if (ticketOps.length > 0) await tickets(store).bulkWrite(ticketOps);
  if (page.settings) await store.collection<SlaSettingsView>(SLA_SETTINGS).replaceOne({ _id: 'settings' }, page.settings, { upsert: true });
}

/** Serves the tickets' due times, Live Tickets' SLA filters and order, and the attainment report (docs/sla.md). */
export const slaProjection: Projection = {
  name: 'sla',
  version: 2,
  collections: [SLA_TICKETS, SLA_EPISODES, SLA_SETTINGS],
  types: evolve.types,
  async setup(store) {
    await tickets(store).createIndex({ keys: { nextDueAt: 1 } });
    // The Breached view's other half (`ticketIdsBySla`): without it that find read every entry, 99 ms at 100,000 tickets.
    await tickets(store).createIndex({ keys: { pausedBreach: 1 } });
    await episodes(store).createIndex({ keys: { ticketId: 1 } });
    await episodes(store).createIndex({ keys: { completedAt: 1 } });
    await episodes(store).createIndex({ keys: { breachedAt: 1 } });
    await episodes(store).createIndex({ keys: { dueAt: 1 } });
  },
  apply: (event, store) => applySlaPage([event], store),
  applyPage: applySlaPage,
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
  // A range of numbers holds no null (MongoDB's type bracketing), so each condition is one seek of an index.
  const filter = which === 'breached' ? { $or: [{ nextDueAt: { $lte: now } }, { pausedBreach: true }] } : { nextDueAt: { $gt: now, $lte: now + 3600_000 } };
  return (await tickets(store).find(filter, { projection: { _id: 1 } })).map((entry) => entry._id);
}

/** The tickets with a running target, earliest due first: the order of Live Tickets' "due" sort. */
export async function ticketIdsByDue(store: ReadStore): Promise<string[]> {
  return (await tickets(store).find({ nextDueAt: { $ne: null } }, { sort: { nextDueAt: 1 }, projection: { _id: 1 } })).map((entry) => entry._id);
}

/**
 * The target episodes that may have been decided within [from, to): completed, breached (stopped after
 * its due time) or due in it (the report decides with its clock which of them count).
 */
export const slaEpisodesDecidedBetween = (store: ReadStore, from: number, to: number) =>
  episodes(store).find({
    $or: [{ completedAt: { $gte: from, $lt: to } }, { breachedAt: { $gte: from, $lt: to } }, { running: true, dueAt: { $gte: from, $lt: to } }],
  });
