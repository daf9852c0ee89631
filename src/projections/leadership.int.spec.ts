import { seeded } from '../../test/support/seeded';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import type { Lease } from '../platform/lease';
import { MemoryReadStore } from '../platform/readstore/memory';
import { type Collection, type ReadStore, TransientStoreError } from '../platform/readstore/port';
import { faults } from './faults';
import { CHECKPOINTS, type Projection, ProjectionRunner } from './runner';

/**
 * Leadership under interleavings of faults: two and three runners share one read store and a
 * lease the test hands out; a seeded scheduler draws, step after step, a takeover (the old holder
 * not told, as after a stall past the ttl), a takeover in the middle of a page, a loss told late, a
 * lease lost and won again at once, a failed renewal, a store away for a few calls, a checkpoint
 * save that fails, a clean stop and a restart, and events appended. After each step the processes
 * settle and these must hold: at most one process writes under an epoch; no process writes under an
 * epoch once it heard it lost it; the holder applies (leading, caught up with the log); every other
 * process follows; at the end every event is in the read model and none was recorded as a fault.
 */

const SEEN = 'seen_v1';
/** One document per event, so a skipped event is a missing document. */
const seen: Projection = {
  name: 'seen',
  version: 1,
  collections: [SEEN],
  async apply(event, store) {
    await store.collection(SEEN).updateOne({ _id: `e${event.position}` }, { $set: { position: event.position } }, { upsert: true });
  },
};

/** Who holds the lease, as the lease's store sees it. */
class Authority {
  holder: ScriptedLease | null = null;
  epoch = 0;
}

/** A lease the scheduler hands out; a holder hears it lost the lease only when told (its next renewal). */
class ScriptedLease implements Lease {
  held = false;
  epoch = 0;
  renewed = true;
  /** Epochs this process heard it lost. */
  readonly lost = new Set<number>();
  private readonly listeners = new Set<(held: boolean) => Promise<void> | void>();

  constructor(private readonly authority: Authority) {}

  /** Taken or renewed within half the ttl: nobody else can hold it (a takeover comes after an expiry). */
  get surelyHeld(): boolean {
    return this.held && this.renewed && this.authority.holder === this;
  }
  onChange(listener: (held: boolean) => Promise<void> | void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  start(): Promise<void> {
    return Promise.resolve();
  }
  stop(): Promise<void> {
    if (this.authority.holder === this) this.authority.holder = null;
    this.change(false);
    return Promise.resolve();
  }
  giveBack(): Promise<void> {
    return this.stop();
  }
  change(held: boolean): void {
    if (held === this.held) return;
    if (!held) this.lost.add(this.epoch);
    this.held = held;
    for (const listener of this.listeners) void listener(held);
  }
  take(): void {
    this.change(false);
    this.authority.epoch += 1;
    this.authority.holder = this;
    this.epoch = this.authority.epoch;
    this.renewed = true;
    this.change(true);
  }
}

/** Faults of one process's connection to the shared store. */
interface Faults {
  /** The next this many calls fail as a store that is away. */
  down: number;
  checkpointFails: boolean;
  /** The next write of the read model fails as a store that is away. */
  seenFails: boolean;
  /** Runs once before the next write of a read model (a takeover in the middle of a page). */
  beforeWrite: (() => void) | null;
}

interface Write {
  process: number;
  epoch: number;
}

const WRITES = new Set(['insertOne', 'updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany', 'bulkWrite']);

/** The epoch a fenced write carries (stamped on the document, or raised in the fence). */
function epochOf(args: unknown[]): number | null {
  const text = JSON.stringify(args);
  const match = /"_epoch":(\d+)/.exec(text) ?? /"\$gt":(\d+)/.exec(text) ?? /"\$set":\{"epoch":(\d+)/.exec(text);
  return match ? Number(match[1]) : null;
}

/** One process's view of the shared store: its faults injected, its landed writes recorded. */
function connection(shared: ReadStore, process: number, faultsOf: Faults, lease: () => ScriptedLease, writes: Write[], violations: string[]): ReadStore {
  return {
    kind: shared.kind,
    close: () => Promise.resolve(),
    collection: <T extends { _id: string }>(name: string): Collection<T> => {
      const inner = shared.collection<T>(name);
      return new Proxy(inner, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as unknown;
          if (typeof value !== 'function' || typeof key !== 'string') return value;
          return async (...args: unknown[]) => {
            if (faultsOf.down > 0) {
              faultsOf.down -= 1;
              throw new TransientStoreError(name, new Error('connection reset'));
            }
            if (!WRITES.has(key)) return (value as (...a: unknown[]) => unknown).apply(target, args);
            if (name === SEEN && faultsOf.seenFails) {
              faultsOf.seenFails = false;
              throw new TransientStoreError(name, new Error('connection reset'));
            }
            if (name === CHECKPOINTS && faultsOf.checkpointFails) {
              faultsOf.checkpointFails = false;
              throw new TransientStoreError(name, new Error('checkpoint not stored'));
            }
            if (name === SEEN && faultsOf.beforeWrite) {
              const hook = faultsOf.beforeWrite;
              faultsOf.beforeWrite = null;
              hook();
            }
            const epoch = epochOf(args);
            if (epoch !== null && lease().lost.has(epoch) && lease().epoch === epoch) {
              violations.push(`process ${process} wrote ${key} to ${name} under epoch ${epoch} after it heard it lost it`);
            }
            const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
            if (epoch !== null) writes.push({ process, epoch });
            return result;
          };
        },
      });
    },
  };
}

type Step = (world: World) => Promise<string | null>;

class World {
  readonly authority = new Authority();
  readonly shared = new MemoryReadStore();
  readonly events = new SqliteEventStore({ filename: ':memory:' });
  readonly writes: Write[] = [];
  readonly violations: string[] = [];
  readonly leases: ScriptedLease[] = [];
  readonly runners: Array<ProjectionRunner | null> = [];
  readonly faults: Faults[] = [];
  private appended = 0;
  private readonly starts: Array<Promise<void>> = [];

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) {
      this.faults.push({ down: 0, checkpointFails: false, seenFails: false, beforeWrite: null });
      this.leases.push(new ScriptedLease(this.authority));
      this.runners.push(null);
    }
  }

  async startProcess(i: number): Promise<void> {
    this.leases[i] = new ScriptedLease(this.authority);
    const store = connection(this.shared, i, this.faults[i]!, () => this.leases[i]!, this.writes, this.violations);
    const runner = new ProjectionRunner(this.events, store, [seen], {
      lease: this.leases[i],
      checkpointEveryMs: 20,
      followEveryMs: 2,
      retryPauseMs: 10,
      pageSize: 3,
      onError: () => undefined,
    });
    this.runners[i] = runner;
    // A start ends once the read models reach the head: with nobody holding the lease, not before a take.
    const starting = runner.start();
    this.starts.push(starting);
    // It hears of the lease once it listens to it.
    const until = Date.now() + 2000;
    while (runner.state.kind === 'stopped' && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 1));
    if (runner.state.kind === 'stopped') this.violations.push(`process ${i} did not start`);
  }

  async append(n: number): Promise<void> {
    for (let k = 0; k < n; k++)
      await this.events.append(
        `s-${this.appended++}`,
        [{ type: 'Noted', data: {}, metadata: { occurredAt: '2026-01-01T00:00:00Z', schemaVersion: 1 } }],
        'no_stream',
      );
  }

  get running(): number[] {
    return this.runners.flatMap((runner, i) => (runner ? [i] : []));
  }

  /** What is wrong now with who applies and who follows (empty when settled). */
  async unsettled(): Promise<string[]> {
    const head = await this.events.headPosition();
    const wrong: string[] = [];
    for (const i of this.running) {
      const runner = this.runners[i]!;
      const state = runner.state;
      if (this.authority.holder === this.leases[i] && this.leases[i]!.held) {
        if (state.kind !== 'leading' || !state.applying) wrong.push(`process ${i} holds the lease but is ${state.kind}`);
        else if (runner.position < head) wrong.push(`process ${i} leads at ${runner.position} of ${head}`);
      } else if (state.kind !== 'following') wrong.push(`process ${i} does not hold the lease but is ${state.kind}`);
      else if (this.authority.holder && runner.position < head) wrong.push(`process ${i} follows at ${runner.position} of ${head}`);
    }
    return wrong;
  }

  /** Waits (a while) until the holder leads, having raised the fence. */
  async leaderApplies(): Promise<void> {
    const until = Date.now() + 2000;
    const applying = () =>
      this.running.some((i) => {
        const state = this.runners[i]!.state;
        return this.authority.holder === this.leases[i] && state.kind === 'leading' && state.applying;
      });
    while (!applying() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 2));
  }

  async settle(): Promise<void> {
    const until = Date.now() + 2000;
    let wrong = await this.unsettled();
    while (wrong.length > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      wrong = await this.unsettled();
    }
    this.violations.push(...wrong);
    const writers = new Map<number, Set<number>>();
    for (const { process, epoch } of this.writes) writers.set(epoch, (writers.get(epoch) ?? new Set()).add(process));
    for (const [epoch, processes] of writers) if (processes.size > 1) this.violations.push(`epoch ${epoch} written by processes ${[...processes].join(', ')}`);
  }

  async close(): Promise<void> {
    for (const runner of this.runners) await runner?.stop();
    await Promise.all(this.starts);
    await this.events.close();
  }
}

const pick = <T>(random: () => number, items: T[]): T => items[Math.floor(random() * items.length)]!;

/** The steps the scheduler draws from; each answers what it did, or null when it does not apply now. */
function steps(random: () => number): Step[] {
  const other = (world: World) => world.running.filter((i) => world.authority.holder !== world.leases[i]);
  const holder = (world: World) => world.running.find((i) => world.authority.holder === world.leases[i]);
  return [
    async (world) => {
      const candidates = other(world);
      if (candidates.length === 0) return null;
      const i = pick(random, candidates);
      world.leases[i]!.take();
      await world.leaderApplies();
      await world.append(1);
      return `take ${i}`;
    },
    async (world) => {
      const from = holder(world);
      const candidates = other(world);
      if (from === undefined || candidates.length === 0) return null;
      const i = pick(random, candidates);
      world.faults[from]!.beforeWrite = () => world.leases[i]!.take();
      await world.append(4);
      // The page after the takeover is the one the stale holder must not apply.
      await world.leaderApplies();
      await world.append(1);
      return `take ${i} mid-page of ${from}`;
    },
    async (world) => {
      const stale = world.running.filter((i) => world.leases[i]!.held && world.authority.holder !== world.leases[i]);
      if (stale.length === 0) return null;
      const i = pick(random, stale);
      world.leases[i]!.change(false);
      return `tell ${i} it lost`;
    },
    async (world) => {
      const i = holder(world);
      if (i === undefined) return null;
      world.leases[i]!.take();
      await world.append(1);
      return `lose and retake ${i}`;
    },
    async (world) => {
      const from = holder(world);
      const candidates = other(world);
      if (from === undefined || candidates.length === 0) return null;
      const i = pick(random, candidates);
      // Its catch-up fails on the store (it retakes the lease with events behind it): it waits to try
      // again when it hears it lost the lease.
      world.leases[from]!.change(false);
      await world.append(2);
      world.faults[from]!.seenFails = true;
      world.leases[from]!.take();
      const until = Date.now() + 1000;
      while (world.runners[from]!.state.kind !== 'retrying' && Date.now() < until) await new Promise((resolve) => setImmediate(resolve));
      world.leases[i]!.take();
      world.leases[from]!.change(false);
      return `${from} loses the lease to ${i} while it retries`;
    },
    async (world) => {
      const i = holder(world);
      if (i === undefined) return null;
      world.leases[i]!.renewed = !world.leases[i]!.renewed;
      await world.append(1);
      return `renewal of ${i} ${world.leases[i]!.renewed ? 'works again' : 'fails'}`;
    },
    async (world) => {
      const i = pick(random, world.running);
      const n = 1 + Math.floor(random() * 4);
      world.faults[i]!.down = n;
      await world.append(2);
      return `store away for ${n} calls of ${i}`;
    },
    async (world) => {
      const i = pick(random, world.running);
      world.faults[i]!.checkpointFails = true;
      return `checkpoint save of ${i} fails`;
    },
    async (world) => {
      const from = holder(world);
      const candidates = other(world);
      if (from === undefined || candidates.length === 0) return null;
      const i = pick(random, candidates);
      world.faults[from]!.checkpointFails = true;
      await world.append(1);
      world.leases[i]!.take();
      world.leases[from]!.change(false);
      return `${from} loses the lease to ${i} and cannot store its checkpoint`;
    },
    async (world) => {
      await world.append(1 + Math.floor(random() * 5));
      return 'append';
    },
    async (world) => {
      if (world.running.length < 2) return null;
      const i = pick(random, world.running);
      await world.runners[i]!.stop();
      world.runners[i] = null;
      return `stop ${i}`;
    },
    async (world) => {
      const stopped = world.runners.flatMap((runner, i) => (runner ? [] : [i]));
      if (stopped.length === 0) return null;
      const i = pick(random, stopped);
      await world.startProcess(i);
      return `restart ${i}`;
    },
  ];
}

const SEEDS = 15;
const STEPS = 14;

describe('Projection leadership under interleavings of faults', () => {
  it.each([2, 3])(
    'when %i runners meet every order of lease, store and checkpoint faults, then one applies, the others follow and nothing is skipped',
    async (size) => {
      const orders = new Set<string>();
      for (let seed = Number(process.env.SEED ?? 1); seed <= SEEDS; seed++) {
        const random = seeded(seed * 31 + size);
        const world = new World(size);
        const done: string[] = [];
        try {
          for (let i = 0; i < size; i++) await world.startProcess(i);
          world.leases[0]!.take();
          await world.settle();
          const choices = steps(random);
          while (done.length < STEPS) {
            const did = await pick(random, choices)(world);
            if (did === null) continue;
            done.push(did);
            await world.settle();
            if (world.violations.length > 0) break;
          }
          // The faults end and a live process holds the lease: everything is applied, nothing recorded as a fault.
          for (const fault of world.faults) Object.assign(fault, { down: 0, checkpointFails: false, seenFails: false, beforeWrite: null });
          for (const i of world.running) if (world.leases[i]!.held && world.authority.holder !== world.leases[i]) world.leases[i]!.change(false);
          if (!world.authority.holder) world.leases[world.running[0]!]!.take();
          await world.append(1);
          await world.settle();
          const head = await world.events.headPosition();
          const applied = await world.shared.collection(SEEN).count();
          if (applied !== head) world.violations.push(`${applied} of ${head} events applied`);
          const recorded = await faults(world.shared).count();
          if (recorded > 0) world.violations.push(`${recorded} events recorded as faults`);
          orders.add(done.join(' / '));
        } finally {
          await world.close();
        }
        if (world.violations.length > 0) throw new Error(`seed ${seed * 31 + size}, after ${done.join(' / ')}: ${world.violations.join('; ')}`);
      }
      expect(orders.size).toBe(SEEDS);
    },
    200_000,
  );
});
