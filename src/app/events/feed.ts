import { setTimeout as sleep } from 'node:timers/promises';
import { CLOUD_EVENT_TYPE_PREFIX, type CloudEvent, FEED_EVENT_TYPES, type FeedEventType } from '#contract/events';
import { RateLimitedError } from '#contract/errors';
import { type Role, isStaff } from '#contract/users';
import type { TicketEvent } from '../../domain/ticket/ticket';
import type { EventStore, RecordedEvent } from '../../platform/eventstore/port';
import { type TicketRecorded, isAboutNote, isStaffOnly } from '../../projections/history';
import type { AppDeps } from '../deps';

/**
 * The ticket events the feed carries: the contract's list. Merges, splits and links are left out
 * for now: their data carry copies of messages (notes, another customer's words) whose visibility
 * differs per reader, and the feed has no per-reader redaction of them yet (docs/integrations.md).
 */
type NotInFeed =
  | 'TicketMergedInto'
  | 'TicketMergedFrom'
  | 'TicketMergeIntoUndone'
  | 'TicketMergeFromUndone'
  | 'MessagesMovedOut'
  | 'MessagesMovedIn'
  | 'TicketLinked'
  | 'TicketUnlinked';
const FEED_TYPES: Record<Exclude<TicketEvent['type'], NotInFeed>, true> = Object.fromEntries(FEED_EVENT_TYPES.map((type) => [type, true])) as Record<
  FeedEventType,
  true
>;
const TICKET_STREAM = /^ticket-(.+)$/;

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
 * The long polls each user holds in this process: each waiting poll costs a reading of the log's
 * head every 200 ms, so one user's thousand polls would slow everyone's.
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

/** Per request: what the viewer's rules need to know of each ticket seen (its customer and internal notes). */
class TicketFacts {
  private readonly known = new Map<string, Promise<{ customerId: string | null; internal: Set<string> }>>();
  constructor(private readonly events: EventStore) {}

  of(streamId: string) {
    let facts = this.known.get(streamId);
    if (!facts) {
      facts = this.events.readStream(streamId).then((stream) => {
        const internal = new Set<string>();
        for (const event of stream)
          if (event.type === 'MessagePosted' && (event.data as { isInternal?: boolean }).isInternal) internal.add(event.data.messageId as string);
        const opened = stream.find((event) => event.type === 'TicketOpened');
        return { customerId: opened ? (opened.data.customerId as string) : null, internal };
      });
      this.known.set(streamId, facts);
    }
    return facts;
  }
}

/** The CloudEvents 1.0 document of a ticket event: its id is the event's position in the log. */
function toCloudEvent(event: RecordedEvent, source: string): CloudEvent {
  const ticketId = TICKET_STREAM.exec(event.streamId)?.[1] ?? event.streamId;
  return {
    specversion: '1.0',
    id: String(event.position),
    source,
    type: `${CLOUD_EVENT_TYPE_PREFIX}${event.type}`,
    subject: ticketId,
    time: event.metadata.occurredAt,
    datacontenttype: 'application/json',
    ticketrevision: event.revision,
    data: event.data,
  };
}

const cloudEventSource = (deps: Pick<AppDeps, 'config'>) => `${deps.config.PUBLIC_URL ?? 'urn:support-desk'}`.replace(/\/$/, '');

/** Whether this viewer may see this ticket event. */
async function visibleTo(viewer: FeedViewer, event: RecordedEvent, facts: TicketFacts): Promise<boolean> {
  const { customerId, internal } = await facts.of(event.streamId);
  const recorded = event as TicketRecorded;
  if (!isStaff(viewer.role)) return customerId === viewer.id && !isStaffOnly(recorded, internal);
  return viewer.notes || !isAboutNote(recorded, internal);
}

/** Whether the feed carries this event to this viewer: a ticket event of the feed's types, one of the wanted ones, that the viewer may see. */
const carries = async (viewer: FeedViewer, event: RecordedEvent, wanted: ReadonlySet<string> | null, facts: TicketFacts): Promise<boolean> =>
  TICKET_STREAM.test(event.streamId) && event.type in FEED_TYPES && (!wanted || wanted.has(event.type)) && (await visibleTo(viewer, event, facts));

const wantedOf = (types: readonly FeedEventType[] | undefined) => (types && types.length > 0 ? new Set<string>(types) : null);

/**
 * The feed's item at a position, as this viewer with these types would have read it; null when the
 * feed does not carry that event to them. `position` must be one the store reported (an event's):
 * a webhook's redelivery checks it against its own delivery log first.
 */
export async function feedItemAt(
  deps: Pick<AppDeps, 'events' | 'config'>,
  viewer: FeedViewer,
  position: number,
  types: readonly FeedEventType[],
): Promise<CloudEvent | null> {
  const [event] = await deps.events.readAll({ from: position, maxCount: 1 });
  if (!event || event.position !== position) return null;
  return (await carries(viewer, event, wantedOf(types), new TicketFacts(deps.events))) ? toCloudEvent(event, cloudEventSource(deps)) : null;
}

const PAGE = 500;
/** At most this many log events are read per call; `next` then says where the next call goes on. */
const MAX_SCANNED = 5_000;

/**
 * The ticket events after a position that this viewer may see, as CloudEvents, in log order, and
 * the position to go on from. When nothing is new, waits up to `waitMs` for the log to grow (a
 * long-poll), checking its head, so an event appended by any process on the same log is seen.
 */
export async function readFeed(
  deps: Pick<AppDeps, 'events' | 'config'>,
  firstViewer: FeedViewer,
  request: FeedRequest,
): Promise<{ events: CloudEvent[]; next: number }> {
  const deadline = Date.now() + request.waitMs;
  let viewer = firstViewer;
  let facts = new TicketFacts(deps.events);
  const source = cloudEventSource(deps);
  const wanted = wantedOf(request.types);
  let next = request.after;
  for (;;) {
    const found: CloudEvent[] = [];
    let scanned = 0;
    while (found.length < request.limit && scanned < MAX_SCANNED) {
      const page = await deps.events.readAll({ after: next, maxCount: PAGE });
      if (page.length === 0) break;
      for (const event of page) {
        scanned += 1;
        if (await carries(viewer, event, wanted, facts)) found.push(toCloudEvent(event, source));
        next = event.position;
        if (found.length >= request.limit) break;
      }
    }
    if (found.length > 0 || scanned >= MAX_SCANNED || Date.now() >= deadline || request.signal?.aborted) return { events: found, next };
    // Nothing new for this viewer: wait for the log's head to move past what was read.
    while (Date.now() < deadline && !request.signal?.aborted && (await deps.events.headPosition()) <= next)
      await sleep(Math.min(200, Math.max(1, deadline - Date.now())));
    if (request.viewerNow) viewer = await request.viewerNow();
    // Tickets read before the wait may have gained notes since.
    facts = new TicketFacts(deps.events);
  }
}
