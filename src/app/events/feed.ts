import { CLOUD_EVENT_TYPE_PREFIX, type CloudEvent, type FeedEventType } from '#contract/events';
import { RateLimitedError } from '#contract/errors';
import { type Role, isStaff } from '#contract/users';
import type { RecordedEvent } from '../../platform/eventstore/port';
import type { Filter } from '../../platform/readstore/port';
import { FEED_ENTRIES, type FeedEntryView, feedProjection, ticketOfStream } from '../../projections/feed';
import type { AppDeps } from '../deps';

/** Who reads the feed: a customer sees their own tickets only, without staff-only events; staff see notes only with `notes`. */
export interface FeedViewer {
  id: string;
  role: Role;
  notes: boolean;
}

export interface FeedRequest {
  after: number;
  limit: number;
  types?: readonly FeedEventType[];
  /** How long to wait for a first event when nothing is new (long-poll); 0 answers at once. */
  waitMs: number;
  signal?: AbortSignal;
  /**
   * After each wait, before reading on: the viewer as they are now. It throws (401) when they may no
   * longer read (token revoked or expired, session ended, account deactivated while the poll waited).
   */
  viewerNow?: () => Promise<FeedViewer>;
}

/** How many long polls (`wait` above 0) one user may hold at once in one process; more are refused 429. */
export const LONG_POLLS_PER_USER = 5;
/** What a refused long poll is told to wait before trying again. */
const LONG_POLL_RETRY_AFTER_SECONDS = 5;

/**
 * The long polls each user holds in this process: each waiting poll holds a connection and a waiter
 * of the projection runner, so one user's thousand polls would slow everyone's.
 */
export class LongPollLimit {
  private readonly held = new Map<string, number>();

  constructor(private readonly perUser = LONG_POLLS_PER_USER) {}

  /** Takes one of the user's places, or refuses (429 with Retry-After); the function answered gives it back. */
  take(userId: string): () => void {
    const count = this.held.get(userId) ?? 0;
    if (count >= this.perUser)
      throw new RateLimitedError(
        `At most ${this.perUser} long polls of the event feed at once per user: wait for one to answer, or poll with wait=0`,
        LONG_POLL_RETRY_AFTER_SECONDS,
      );
    this.held.set(userId, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(userId) ?? 1) - 1;
      if (left > 0) this.held.set(userId, left);
      else this.held.delete(userId);
    };
  }
}

/** The CloudEvents 1.0 document of a ticket event: its id is the event's position in the log. */
function toCloudEvent(event: RecordedEvent, source: string): CloudEvent {
  return {
    specversion: '1.0',
    id: String(event.position),
    source,
    type: `${CLOUD_EVENT_TYPE_PREFIX}${event.type}`,
    subject: ticketOfStream(event.streamId) ?? event.streamId,
    time: event.metadata.occurredAt,
    datacontenttype: 'application/json',
    ticketrevision: event.revision,
    data: event.data,
  };
}

const cloudEventSource = (deps: Pick<AppDeps, 'config'>) => `${deps.config.PUBLIC_URL ?? 'urn:support-desk'}`.replace(/\/$/, '');

type FeedDeps = Pick<AppDeps, 'events' | 'config' | 'readStore' | 'projections'>;

/** The feed index's entries this viewer may see, of the wanted types (all when none are named). */
function visibleTo(viewer: FeedViewer, types: readonly FeedEventType[] | undefined): Filter {
  const rule: Filter = !isStaff(viewer.role) ? { customerId: viewer.id, staffOnly: false } : viewer.notes ? {} : { aboutNote: false };
  return types && types.length > 0 ? { ...rule, type: { $in: [...types] } } : rule;
}

/** The events of these entries, read one by one at their positions: as many reads as items answered, whatever else the log holds. */
async function itemsOf(deps: FeedDeps, entries: FeedEntryView[]): Promise<CloudEvent[]> {
  const source = cloudEventSource(deps);
  const items: CloudEvent[] = [];
  for (const entry of entries) {
    const [event] = await deps.events.readAll({ from: entry.position, maxCount: 1 });
    if (event?.position === entry.position) items.push(toCloudEvent(event, source));
  }
  return items;
}

/**
 * The feed's item at a position, as this viewer with these types would have read it; null when the
 * feed does not carry that event to them (not in the feed's index, or not visible to them).
 */
export async function feedItemAt(deps: FeedDeps, viewer: FeedViewer, position: number, types: readonly FeedEventType[]): Promise<CloudEvent | null> {
  const entry = await deps.readStore.collection<FeedEntryView>(FEED_ENTRIES).findOne({ _id: String(position), ...visibleTo(viewer, types) });
  return entry ? ((await itemsOf(deps, [entry]))[0] ?? null) : null;
}

const FEED = [feedProjection.name];

/**
 * The ticket events after a position that this viewer may see, as CloudEvents, in log order, and
 * the position to go on from. They come from the feed's index (src/projections/feed.ts): a range of
 * the viewer's own entries, so the cost is the events answered, not the log's size. When nothing is
 * new, waits up to `waitMs` for the feed's read model to pass the position (a long poll woken by
 * the projection runner, which follows appends by any process on the same log).
 */
export async function readFeed(deps: FeedDeps, firstViewer: FeedViewer, request: FeedRequest): Promise<{ events: CloudEvent[]; next: number }> {
  const deadline = Date.now() + request.waitMs;
  const entries = deps.readStore.collection<FeedEntryView>(FEED_ENTRIES);
  let viewer = firstViewer;
  for (;;) {
    // Read first: every entry up to it is written, so `next` never passes one not yet indexed.
    const indexed = deps.projections.appliedBy(FEED);
    const found = await entries.find(
      { position: { $gt: request.after, $lte: indexed }, ...visibleTo(viewer, request.types) },
      { sort: { position: 1 }, limit: request.limit },
    );
    if (found.length > 0 || Date.now() >= deadline || request.signal?.aborted) {
      const next = found.length === request.limit ? found.at(-1)!.position : Math.max(request.after, indexed);
      return { events: await itemsOf(deps, found), next };
    }
    await deps.projections.waitFor(Math.max(request.after, indexed) + 1, deadline - Date.now(), FEED, request.signal);
    if (request.viewerNow) viewer = await request.viewerNow();
  }
}
