import type { RecordedEvent } from '../platform/eventstore/port';
import type { Metrics } from '../platform/metrics';
import type { ReadStore } from '../platform/readstore/port';
import { type PersonEntry, findPerson } from '../projections/directory';
import type { ProjectionRunner } from '../projections/runner';
import { SESSIONS, type SessionView } from '../projections/sessions';
import { type SystemSettingsView, loadSystemSettings } from '../projections/settings';
import { USERS, type UserView } from '../projections/users';

/** Users, sessions and names kept per cache: the active ones of a busy desk, at a few hundred bytes each. */
const MOST_KEPT = 20_000;

type Deps = { readStore: ReadStore; projections: ProjectionRunner; metrics: Pick<Metrics, 'requestCacheReads'> };

/**
 * One read model document per key, kept in this process between requests. A value is dropped when an
 * event that changes it is applied (`onApplied`: the read models include it by then, so the next read
 * is fresh), never on a timer. A read that an event overtook is not kept. While the process does not
 * follow the log live (starting, or a runner between leading and following), no event tells it what
 * changed: the cache is emptied and every lookup reads, counted as `behind`.
 */
class ReadCache<V> {
  private readonly values = new Map<string, V>();
  /** Bumped by every invalidation of the key (and by a clear): a read started before it is not kept. */
  private readonly changes = new Map<string, number>();
  private cleared = 0;

  constructor(
    private readonly name: string,
    private readonly deps: Deps,
  ) {}

  async get(key: string, read: () => Promise<V>): Promise<V> {
    const trusted = this.deps.projections.isLive;
    if (!trusted && (this.values.size > 0 || this.changes.size > 0)) this.clear();
    const kept = trusted ? this.values.get(key) : undefined;
    if (kept !== undefined) return kept;
    this.deps.metrics.requestCacheReads.inc({ cache: this.name, reason: trusted ? 'cold' : 'behind' });
    const change = this.changes.get(key) ?? 0;
    const cleared = this.cleared;
    const value = await read();
    if (trusted && this.deps.projections.isLive && cleared === this.cleared && change === (this.changes.get(key) ?? 0)) {
      if (this.values.size >= MOST_KEPT) this.values.delete(this.values.keys().next().value!);
      this.values.set(key, value);
    }
    return value;
  }

  invalidate(key: string): void {
    this.values.delete(key);
    this.changes.set(key, (this.changes.get(key) ?? 0) + 1);
    // Counters of keys no longer held matter only to reads in flight: bounded like the values.
    if (this.changes.size > MOST_KEPT) this.changes.delete(this.changes.keys().next().value!);
  }

  clear(): void {
    this.values.clear();
    this.changes.clear();
    this.cleared += 1;
  }
}

/**
 * What every request reads, kept per process (docs/read-models.md "Request caches"): the system
 * settings (rate limit and maintenance checks), the signed-in user and session, and the names a
 * posted message carries. On MongoDB these were five reads of every request; now none in steady state.
 */
export interface RequestCaches {
  settings(): Promise<SystemSettingsView>;
  user(userId: string): Promise<UserView | null>;
  session(sessionId: string): Promise<SessionView | null>;
  person(userId: string): Promise<PersonEntry>;
  /** Drops what is kept for a user (user, name) and a session: what an applied event naming them does. */
  forget(named: { userId?: unknown; sessionId?: unknown }): void;
}

const byRunner = new WeakMap<ProjectionRunner, RequestCaches>();

export function requestCaches(deps: Deps): RequestCaches {
  const known = byRunner.get(deps.projections);
  if (known) return known;
  const settings = new ReadCache<SystemSettingsView>('settings', deps);
  const users = new ReadCache<UserView | null>('users', deps);
  const sessions = new ReadCache<SessionView | null>('sessions', deps);
  const people = new ReadCache<PersonEntry>('people', deps);
  const caches: RequestCaches = {
    settings: () => settings.get('system', () => loadSystemSettings(deps.readStore)),
    user: (userId) => users.get(userId, () => deps.readStore.collection<UserView>(USERS).findOne({ _id: userId })),
    session: (sessionId) => sessions.get(sessionId, () => deps.readStore.collection<SessionView>(SESSIONS).findOne({ _id: sessionId })),
    person: (userId) => people.get(userId, () => findPerson(deps.readStore, userId)),
    forget: ({ userId, sessionId }) => {
      if (typeof userId === 'string') {
        users.invalidate(userId);
        people.invalidate(userId);
      }
      if (typeof sessionId === 'string') sessions.invalidate(sessionId);
    },
  };
  // Any event naming a user or a session may change its documents (users, directory, sessions): the keys it names are dropped.
  deps.projections.onApplied((event: RecordedEvent) => {
    if (event.type === 'SystemSettingsUpdated') settings.invalidate('system');
    caches.forget(event.data as { userId?: unknown; sessionId?: unknown });
  });
  byRunner.set(deps.projections, caches);
  return caches;
}
