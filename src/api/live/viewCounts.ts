import { Counter } from 'prom-client';
import type { Server, Socket } from 'socket.io';
import type { SavedView } from '#contract/responses';
import { isStaff } from '#contract/users';
import type { ViewCounts, ViewFilters } from '#contract/views';
import type { AppDeps } from '../../app/deps';
import type { RecordedEvent } from '../../platform/eventstore/port';
import { ioYielder } from '../../platform/yielding';
import { teamIdsOf } from '../../projections/teams';
import type { AuthUser } from '../http/auth';
import { countView, countsPerViewer, visibleViews } from '../views/visible';
import type { LiveGuard } from './guard';

/** A view is counted again at most this often, however many changes touch it meanwhile. */
const RECOUNT_EVERY_MS = 500;
/** Counting may take at most this share of the time: a round that took long is followed by a longer pause. */
const COUNTING_SHARE = 0.2;

/**
 * When the next round of counts may start, after one that started at `startedAt` and took `tookMs`:
 * RECOUNT_EVERY_MS later, or later still when counting took more than COUNTING_SHARE of that time
 * (a large desk's per-viewer counts at 100,000 tickets took 260 ms a round, half of every 500 ms).
 */
export const nextRoundAt = (startedAt: number, tookMs: number): number => startedAt + Math.max(RECOUNT_EVERY_MS, tookMs / COUNTING_SHARE);
/**
 * A round gives the event loop back after each count that ran past this: on SQLite a count is a
 * synchronous query (10-25 ms at 100,000 tickets), and awaiting it yields to nothing but promises, so
 * the 14 counts of ten agents' views held every request and push for 260 ms at once.
 */
const YIELD_AFTER_MS = 4;
/** Service-level views change with the clock, not only with events: counted again this often while watched. */
const SLA_RECOUNT_MS = 30_000;

/**
 * What a view's count is kept under in one round: its filters, whatever their order, so views with the same
 * filters (each agent's own copy of a view, a default view saved again) are counted once; with the viewer's id
 * when the count depends on who asks.
 */
export const countKey = (filters: ViewFilters, userId: string): string => {
  const key = JSON.stringify(Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : 1)));
  return countsPerViewer(filters) ? `${key}:${userId}` : key;
};

/** A socket showing Live Tickets: the views its user sees, and the counts it was last sent. */
interface Watcher {
  socket: Socket;
  views: SavedView[];
  sent: Map<string, number>;
}

type Touches = (filters: ViewFilters) => boolean;
const everything: Touches = () => true;
/** A message moves only who waits, what the words match and the service levels (a first reply meets a target). */
const byMessage: Touches = (filters) => filters.waiting !== undefined || filters.q !== undefined || filters.sla !== undefined;
const bySla: Touches = (filters) => filters.sla !== undefined;

/** Which views an event may change the count of; null for none. Chat is most of the log, and it touches few views. */
function touchedBy(recorded: RecordedEvent): Touches | null {
  if (recorded.type === 'MessagePosted' || recorded.type === 'MessageEdited') return byMessage;
  if (recorded.type === 'MessagesRead') return null;
  if (recorded.type.startsWith('Sla')) return bySla;
  return recorded.streamId.startsWith('ticket-') ? everything : null;
}

/** Events after which who sees which view may differ: views saved, changed or deleted, teams' members, roles. */
const RESCOPING = new Set(['ViewCreated', 'ViewUpdated', 'ViewDeleted', 'TeamMemberAdded', 'TeamMemberRemoved', 'TeamArchived', 'UserRoleChanged']);

/**
 * The counts beside Live Tickets' views (docs/views.md), pushed as `view_counts` to the sockets that
 * `watch_views`. An applied event marks only the views whose filters it can affect; marked views are
 * counted at most every RECOUNT_EVERY_MS, once per view (or per viewer, for "me", "my teams" and
 * words), and a socket is sent only the counts that changed.
 */
export function attachViewCounts(io: Server, deps: AppDeps, guard: LiveGuard): () => void {
  const watchers = new Map<string, Watcher>();
  const dirty = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let nextRun = 0;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const userOf = (watcher: Watcher) => watcher.socket.data.user as AuthUser;
  // What the live counts cost: the count queries they run (docs/views.md).
  const queries = new Counter({
    name: 'desk_view_counts_total',
    help: "Count queries run for Live Tickets' live view counts",
    registers: [deps.metrics.registry],
  });
  const count = (filters: ViewFilters, user: AuthUser) => {
    queries.inc();
    return countView(deps, filters, user);
  };

  async function load(watcher: Watcher): Promise<void> {
    const user = userOf(watcher);
    watcher.views = await visibleViews(deps, { userId: user.id, role: user.role, teamIds: await teamIdsOf(deps.readStore, user.id) });
  }

  async function recount(viewIds: ReadonlySet<string> | 'all', among: Iterable<Watcher>): Promise<void> {
    const counted = new Map<string, number>();
    const breathe = ioYielder(YIELD_AFTER_MS);
    for (const watcher of among) {
      const user = userOf(watcher);
      const changed: Record<string, number> = {};
      for (const view of watcher.views) {
        if (viewIds !== 'all' && !viewIds.has(view._id)) continue;
        const key = countKey(view.filters, user.id);
        let value = counted.get(key);
        if (value === undefined) {
          value = await count(view.filters, user);
          counted.set(key, value);
          await breathe();
        }
        if (watcher.sent.get(view._id) === value) continue;
        watcher.sent.set(view._id, value);
        changed[view._id] = value;
      }
      if (Object.keys(changed).length > 0 && watcher.socket.connected) watcher.socket.emit('view_counts', { counts: changed } satisfies ViewCounts);
    }
  }

  /** Work runs one piece at a time, so counts reach a socket in the order they were taken. */
  const queue = (work: () => Promise<void>) => {
    running = running.then(work).catch((error: unknown) => deps.logger.error({ err: error }, 'view counts failed'));
  };

  function schedule(): void {
    // While a round runs (nextRun unknown yet), its end schedules what was marked meanwhile.
    if (stopped || timer || dirty.size === 0 || nextRun === Number.POSITIVE_INFINITY) return;
    timer = setTimeout(round, Math.max(0, nextRun - Date.now()));
  }

  /** One round of counts, unless the last one, which may have ended since this was planned, asks for a longer pause. */
  function round(): void {
    timer = null;
    if (Date.now() < nextRun) return schedule();
    const startedAt = Date.now();
    // Until this round ends, no other starts: its end sets when the next may.
    nextRun = Number.POSITIVE_INFINITY;
    const viewIds = new Set(dirty);
    dirty.clear();
    queue(async () => {
      try {
        await recount(viewIds, [...watchers.values()]);
      } finally {
        nextRun = nextRoundAt(startedAt, Date.now() - startedAt);
        schedule();
      }
    });
  }

  function mark(touches: Touches): void {
    for (const watcher of watchers.values()) for (const view of watcher.views) if (!dirty.has(view._id) && touches(view.filters)) dirty.add(view._id);
    schedule();
  }

  /** Who sees which view may have changed: each watcher's list is read again, and told to refetch when it differs. */
  const rescope = () =>
    queue(async () => {
      for (const [socketId, watcher] of watchers) {
        if (!isStaff(userOf(watcher).role)) {
          watchers.delete(socketId);
          continue;
        }
        const before = JSON.stringify(watcher.views);
        await load(watcher);
        if (JSON.stringify(watcher.views) === before) continue;
        watcher.socket.emit('views_changed');
        await recount('all', [watcher]);
      }
    });

  io.on('connection', (socket) => {
    socket.on('watch_views', (_payload: unknown, ack: unknown) => {
      const answer = typeof ack === 'function' ? (ack as (answer: object) => void) : () => undefined;
      const user = socket.data.user as AuthUser;
      guard
        .spend(socket, user.id, 'join')
        .then((allowed) => {
          if (!allowed) return;
          if (!isStaff(user.role)) return answer({ ok: false, error: 'Only staff see view counts' });
          const watcher: Watcher = { socket, views: [], sent: new Map() };
          watchers.set(socket.id, watcher);
          queue(async () => {
            await load(watcher);
            await recount('all', [watcher]);
            answer({ ok: true });
          });
        })
        .catch((error: unknown) => deps.logger.error({ err: error }, 'watch_views failed'));
    });
    socket.on('unwatch_views', () => watchers.delete(socket.id));
    socket.on('disconnect', () => watchers.delete(socket.id));
  });

  const stop = deps.projections.onApplied((recorded) => {
    if (watchers.size === 0) return;
    if (RESCOPING.has(recorded.type)) return rescope();
    const touches = touchedBy(recorded);
    if (touches) mark(touches);
  });
  const clock = setInterval(() => mark(bySla), SLA_RECOUNT_MS);
  clock.unref();
  return () => {
    stopped = true;
    stop();
    clearInterval(clock);
    if (timer) clearTimeout(timer);
  };
}
