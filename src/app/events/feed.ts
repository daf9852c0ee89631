import { CLOUD_EVENT_TYPE_PREFIX, type CloudEvent, type FeedEventType } from '#contract/events';
import { RateLimitedError } from '#contract/errors';
import { type Role, isStaff } from '#contract/users';
import type { RecordedEvent } from '../../platform/eventstore/port';
import { customerPositions, feedProjection, feedTickets, inFeed, ticketOfStream } from '../../projections/feed';
import { type TicketRecorded, isAboutNote, isStaffOnly } from '../../projections/history';
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
type TicketFacts = Awaited<ReturnType<typeof feedTickets>>;

const wantedOf = (types: readonly FeedEventType[] | undefined) => (types && types.length > 0 ? new Set<string>(types) : null);

/** Whether the feed carries this event to this viewer: a ticket event of the feed's types, one of the wanted ones, that the viewer may see (a ticket the feed's read model does not know is seen by nobody). */
function carries(viewer: FeedViewer, event: RecordedEvent, wanted: ReadonlySet<string> | null, facts: TicketFacts): boolean {
  if (!inFeed(event) || (wanted && !wanted.has(event.type))) return false;
  const ticket = facts.get(ticketOfStream(event.streamId)!);
  if (!ticket) return false;
  const recorded = event as TicketRecorded;
  if (!isStaff(viewer.role)) return ticket.customerId === viewer.id && !isStaffOnly(recorded, ticket.notes);
  return viewer.notes || !isAboutNote(recorded, ticket.notes);
}

const factsOf = (deps: FeedDeps, events: RecordedEvent[]) =>
  feedTickets(
    deps.readStore,
    events.filter(inFeed).map((event) => ticketOfStream(event.streamId)!),
  );

/**
 * The feed's item at a position, as this viewer with these types would have read it; null when the
 * feed does not carry that event to them.
 */
export async function feedItemAt(deps: FeedDeps, viewer: FeedViewer, position: number, types: readonly FeedEventType[]): Promise<CloudEvent | null> {
  const [event] = await deps.events.readAll({ from: position, maxCount: 1 });
  if (!event || event.position !== position || !inFeed(event)) return null;
  return carries(viewer, event, wantedOf(types), await factsOf(deps, [event])) ? toCloudEvent(event, cloudEventSource(deps)) : null;
}

const PAGE = 500;
/** At most this many log events are read per staff call; `next` then says where the next call goes on. */
const MAX_SCANNED = 5_000;

interface FeedPage {
  events: CloudEvent[];
  next: number;
  /** Everything the feed's read model covers was looked at: nothing more until it moves. */
  exhausted: boolean;
}

/** A customer's page: their own positions from the feed's read model, each event read at its position. */
async function customerPage(deps: FeedDeps, viewer: FeedViewer, request: FeedRequest, indexed: number): Promise<FeedPage> {
  const positions = await customerPositions(deps.readStore, viewer.id);
  const wanted = wantedOf(request.types);
  const source = cloudEventSource(deps);
  const found: CloudEvent[] = [];
  let low = 0;
  for (let high = positions.length; low < high;) {
    const middle = (low + high) >> 1;
    if (positions[middle]! <= request.after) low = middle + 1;
    else high = middle;
  }
  for (let i = low; i < positions.length && positions[i]! <= indexed; i++) {
    const [event] = await deps.events.readAll({ from: positions[i]!, maxCount: 1 });
    if (event && event.position === positions[i] && (!wanted || wanted.has(event.type))) found.push(toCloudEvent(event, source));
    if (found.length >= request.limit) return { events: found, next: positions[i]!, exhausted: false };
  }
  return { events: found, next: Math.max(request.after, indexed), exhausted: true };
}

/** A staff page: the log after the position, up to where the feed's read model has got, with its ticket facts (customer, notes) from the read model. */
async function staffPage(deps: FeedDeps, viewer: FeedViewer, request: FeedRequest, indexed: number): Promise<FeedPage> {
  const wanted = wantedOf(request.types);
  const source = cloudEventSource(deps);
  const found: CloudEvent[] = [];
  let next = request.after;
  let scanned = 0;
  while (found.length < request.limit && scanned < MAX_SCANNED) {
    const page = await deps.events.readAll({ after: next, maxCount: PAGE });
    // Not past the read model: an event after it may be about a note it does not know yet.
    const within = page.filter((event) => event.position <= indexed);
    if (within.length === 0) return { events: found, next: Math.max(next, indexed), exhausted: true };
    const facts = await factsOf(deps, within);
    for (const event of within) {
      scanned += 1;
      if (carries(viewer, event, wanted, facts)) found.push(toCloudEvent(event, source));
      next = event.position;
      if (found.length >= request.limit) break;
    }
  }
  return { events: found, next, exhausted: false };
}

const FEED = [feedProjection.name];

/**
 * The ticket events after a position that this viewer may see, as CloudEvents, in log order, and
 * the position to go on from. A customer's come from their positions in the feed's read model
 * (src/projections/feed.ts), so the cost is their own events, not the log's size; staff read the
 * log after the position with the tickets' customers and notes from the same read model (no ticket
 * stream is read). When nothing is new, waits up to `waitMs` for the feed's read model to pass the
 * position (a long poll woken by the projection runner, which follows appends by any process).
 */
export async function readFeed(deps: FeedDeps, firstViewer: FeedViewer, request: FeedRequest): Promise<{ events: CloudEvent[]; next: number }> {
  const deadline = Date.now() + request.waitMs;
  let viewer = firstViewer;
  for (let last = false; ;) {
    // Read first: the read model covers every event up to it, so `next` never passes one it does not know.
    const indexed = deps.projections.appliedBy(FEED);
    const page = isStaff(viewer.role) ? await staffPage(deps, viewer, request, indexed) : await customerPage(deps, viewer, request, indexed);
    if (page.events.length > 0 || !page.exhausted || last || Date.now() >= deadline || request.signal?.aborted) return { events: page.events, next: page.next };
    // Not reached: the wait ran out, the caller left, or the process is stopping; one more read answers.
    last = !(await deps.projections.waitFor(page.next + 1, deadline - Date.now(), FEED, request.signal));
    if (request.viewerNow) viewer = await request.viewerNow();
  }
}
