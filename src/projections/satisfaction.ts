import { DEFAULT_SATISFACTION_SETTINGS, type SatisfactionChannel, type SatisfactionSettings } from '#contract/satisfaction';
import type { SatisfactionFilter } from '#contract/tickets';
import { RATING_WINDOW_MS } from '../domain/satisfaction/satisfaction';
import type { Doc, ReadStore } from '../platform/readstore/port';
import { withHeldWrites } from './buffered';
import { handledBy } from './events';
import type { Projection } from './runner';

/** One document per resolution (episode) of a ticket: what the reports count. */
const SATISFACTION_EPISODES = 'satisfaction_episodes_v1';
/** One document per ticket: what a new episode needs to know (category, agent, customer), and the revision guard. */
const SATISFACTION_TICKETS = 'satisfaction_tickets_v1';
const SATISFACTION_SETTINGS = 'satisfaction_settings_v1';

export interface EpisodeView extends Doc {
  ticketId: string;
  number: number;
  title: string;
  episode: number;
  customerId: string;
  categoryId: string;
  /** The ticket's agent when it was resolved: the one the rating judges. */
  agentId: string | null;
  /** The ticket's team when it was resolved (docs/teams.md), null for none. */
  teamId: string | null;
  resolvedAt: string;
  endedAt: string | null;
  ended: 'reopened' | 'closed' | null;
  score: number | null;
  comment: string | null;
  channel: SatisfactionChannel | null;
  ratedAt: string | null;
  commentedAt: string | null;
}

interface TicketEntry extends Doc {
  number: number;
  title: string;
  customerId: string;
  categoryId: string;
  agentId: string | null;
  teamId: string | null;
  episode: number;
  /** The latest rating of the ticket (Live Tickets' column and filters), null before any. */
  score: number | null;
  /** When the open, unrated episode was resolved; null when none waits for a rating. */
  awaitingSince: string | null;
  _revision: number;
}

export type SatisfactionSettingsView = Doc & SatisfactionSettings & { updatedAt: string | null; updatedBy: string | null };

const episodeId = (ticketId: string, episode: number) => `${ticketId}:${episode}`;

const tickets = (store: ReadStore) => store.collection<TicketEntry>(SATISFACTION_TICKETS);
const episodes = (store: ReadStore) => store.collection<EpisodeView>(SATISFACTION_EPISODES);

/**
 * Runs `write` for a ticket event this read model has not applied yet (the ticket entry's revision
 * guards it), then moves the guard: a replayed event changes nothing, and one interrupted between
 * the two writes is applied again whole (every write here sets values, none adds to them).
 */
async function once(
  store: ReadStore,
  event: { data: { ticketId: string }; revision: number },
  write: (entry: TicketEntry) => Promise<Partial<TicketEntry> | void>,
) {
  const id = String(event.data.ticketId);
  const known = entriesOfPage.get(store);
  const entry = known ? (known.get(id) ?? null) : await tickets(store).findOne({ _id: id });
  if (!entry || entry._revision >= event.revision) return;
  const changes = (await write(entry)) ?? {};
  known?.set(id, { ...entry, ...changes, _revision: event.revision });
  await tickets(store).updateOne({ _id: entry._id, _revision: { $lt: event.revision } }, { $set: { ...changes, _revision: event.revision } });
}

/**
 * The ticket entries of the page being applied, by the page's store: read in one query before the
 * page, and kept as its events change them, so an event reads none (its writes are held and sent
 * once for the page, src/projections/buffered.ts). Absent when an event is applied alone.
 */
const entriesOfPage = new WeakMap<ReadStore, Map<string, TicketEntry | null>>();

/** Serves the ticket's survey, the dashboard's CSAT figures and the CSV export (docs/satisfaction.md). */
export const satisfactionProjection: Projection = {
  name: 'satisfaction',
  version: 3,
  collections: [SATISFACTION_EPISODES, SATISFACTION_TICKETS, SATISFACTION_SETTINGS],
  async setup(store) {
    await episodes(store).createIndex({ keys: { resolvedAt: -1 } });
    await episodes(store).createIndex({ keys: { ticketId: 1 } });
    // The bot looks up a customer's rating awaiting its comment on every plain text they send.
    await episodes(store).createIndex({ keys: { customerId: 1, ratedAt: -1 } });
  },
  ...handledBy({
    async TicketOpened(event, store) {
      const { ticketId, number, title, customerId, categoryId } = event.data;
      const entry: Omit<TicketEntry, '_id'> = {
        number,
        title,
        customerId,
        categoryId,
        agentId: null,
        teamId: null,
        episode: 0,
        score: null,
        awaitingSince: null,
        _revision: event.revision,
      };
      await tickets(store).updateOne({ _id: ticketId }, { $setOnInsert: { ...entry } }, { upsert: true });
      const known = entriesOfPage.get(store);
      if (known && !known.get(ticketId)) known.set(ticketId, { _id: ticketId, ...entry });
    },
    AgentAssignedToTicket: (event, store) => once(store, event, async () => ({ agentId: event.data.agentId })),
    AgentUnassignedFromTicket: (event, store) => once(store, event, async () => ({ agentId: null })),
    TicketTeamChanged: (event, store) => once(store, event, async () => ({ teamId: event.data.teamId })),
    TicketStatusChanged: (event, store) =>
      once(store, event, async (entry) => {
        const at = event.metadata.occurredAt;
        if (event.data.to === 'resolved') {
          const episode = entry.episode + 1;
          const view: EpisodeView = {
            _id: episodeId(entry._id, episode),
            ticketId: entry._id,
            number: entry.number,
            title: entry.title,
            episode,
            customerId: entry.customerId,
            categoryId: entry.categoryId,
            agentId: entry.agentId,
            teamId: entry.teamId,
            resolvedAt: at,
            endedAt: null,
            ended: null,
            score: null,
            comment: null,
            channel: null,
            ratedAt: null,
            commentedAt: null,
          };
          await episodes(store).replaceOne({ _id: view._id }, view, { upsert: true });
          return { episode, score: null, awaitingSince: at };
        }
        if (entry.episode > 0)
          await episodes(store).updateOne(
            { _id: episodeId(entry._id, entry.episode), ended: null },
            { $set: { ended: event.data.to === 'closed' ? 'closed' : 'reopened', endedAt: at } },
          );
        return { awaitingSince: null };
      }),
    SatisfactionRated: (event, store) =>
      once(store, event, async (entry) => {
        const { score, channel, episode } = event.data;
        await episodes(store).updateOne({ _id: episodeId(entry._id, episode) }, { $set: { score, channel, ratedAt: event.metadata.occurredAt } });
        return { score, awaitingSince: null };
      }),
    SatisfactionCommented: (event, store) =>
      once(store, event, async (entry) => {
        const { comment, episode } = event.data;
        await episodes(store).updateOne({ _id: episodeId(entry._id, episode) }, { $set: { comment, commentedAt: event.metadata.occurredAt } });
      }),
    // A deleted ticket leaves the reports with everything else of it.
    async TicketDeleted(event, store) {
      await episodes(store).deleteMany({ ticketId: event.data.ticketId });
      await tickets(store).deleteOne({ _id: event.data.ticketId });
      entriesOfPage.get(store)?.set(event.data.ticketId, null);
    },
    async SatisfactionSettingsUpdated(event, store) {
      const settings = store.collection(SATISFACTION_SETTINGS);
      await settings.updateOne({ _id: 'settings' }, { $setOnInsert: { ...DEFAULT_SATISFACTION_SETTINGS, _revision: -1 } }, { upsert: true });
      await settings.updateOne(
        { _id: 'settings', _revision: { $lt: event.revision } },
        { $set: { ...event.data.changes, updatedAt: event.metadata.occurredAt, updatedBy: event.metadata.actor?.userId ?? null, _revision: event.revision } },
      );
    },
  }),
  /** A page: the entries of its tickets in one read, then its writes held and sent in one bulk write per collection. */
  async applyPage(events, store) {
    const ids = [...new Set(events.map((event) => event.data.ticketId).filter((id): id is string => typeof id === 'string'))];
    const found = ids.length === 0 ? [] : await tickets(store).find({ _id: { $in: ids } });
    const known = new Map<string, TicketEntry | null>(found.map((entry) => [entry._id, entry]));
    await withHeldWrites(
      store,
      async (page) => {
        entriesOfPage.set(page, known);
        for (const event of events) await satisfactionProjection.apply(event, page);
      },
      // The ticket entries hold the guard of the episodes' writes.
      [SATISFACTION_TICKETS],
    );
  },
};

export async function loadSatisfactionSettings(store: ReadStore): Promise<SatisfactionSettingsView> {
  const found = await store.collection<SatisfactionSettingsView & { _revision?: number }>(SATISFACTION_SETTINGS).findOne({ _id: 'settings' });
  if (!found) return { _id: 'settings', ...DEFAULT_SATISFACTION_SETTINGS, updatedAt: null, updatedBy: null };
  const { _revision: _r, ...settings } = found;
  return settings;
}

/** Who a ticket belongs to, as this read model knows it (null for no such ticket, or a deleted one). */
export async function ticketCustomer(store: ReadStore, ticketId: string): Promise<string | null> {
  return (await tickets(store).findOne({ _id: ticketId }))?.customerId ?? null;
}

/** A ticket's latest episode (null before its first resolution). */
export async function latestEpisode(store: ReadStore, ticketId: string): Promise<EpisodeView | null> {
  const [latest] = await episodes(store).find({ ticketId }, { sort: { episode: -1 }, limit: 1 });
  return latest ?? null;
}

export const findEpisode = (store: ReadStore, ticketId: string, episode: number) => episodes(store).findOne({ _id: episodeId(ticketId, episode) });

/** The episodes resolved within [from, to), newest first. */
export const episodesResolvedBetween = (store: ReadStore, from: string, to: string) =>
  episodes(store).find({ resolvedAt: { $gte: from, $lt: to } }, { sort: { resolvedAt: -1 } });

/** The customer's latest rating given on Telegram since `since` that has no comment yet (what "Anything to add?" asked about). */
export async function telegramRatingAwaitingComment(store: ReadStore, customerId: string, since: string): Promise<EpisodeView | null> {
  const [found] = await episodes(store).find(
    { customerId, channel: 'telegram', comment: null, ended: null, ratedAt: { $gte: since } },
    { sort: { ratedAt: -1 }, limit: 1 },
  );
  return found ?? null;
}

/** The tickets a Live Tickets filter picks: waiting for a rating (within the 7 days), rated, or rated 1 or 2. */
export async function ticketIdsBySatisfaction(store: ReadStore, which: SatisfactionFilter, now: Date): Promise<string[]> {
  const filter =
    which === 'awaiting'
      ? { awaitingSince: { $gte: new Date(now.getTime() - RATING_WINDOW_MS).toISOString() } }
      : which === 'low'
        ? { score: { $lte: 2 } }
        : { score: { $ne: null } };
  return (await tickets(store).find(filter, { projection: { _id: 1 } })).map((entry) => entry._id);
}

/** A customer's tickets whose latest resolution waits for their rating (within the 7 days), most recently resolved first. */
export async function awaitingRatingOf(store: ReadStore, customerId: string, now: Date) {
  const since = new Date(now.getTime() - RATING_WINDOW_MS).toISOString();
  const found = await tickets(store).find({ customerId, awaitingSince: { $gte: since } }, { sort: { awaitingSince: -1 } });
  return found.map((entry) => ({ ticketId: entry._id, number: entry.number, title: entry.title, resolvedAt: entry.awaitingSince! }));
}

/** The latest rating of each of these tickets, for the Live Tickets column. */
export async function latestRatings(store: ReadStore, ticketIds: string[]) {
  const found = await tickets(store).find({ _id: { $in: ticketIds } });
  return found.map((entry) => ({
    ticketId: entry._id,
    score: entry.score ?? null,
    awaiting: entry.awaitingSince !== null && entry.awaitingSince !== undefined,
  }));
}
