import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConflictError } from '#contract/errors';
import { type CannedState, cannedStream } from '../domain/canned/canned';
import { cannedDecider } from '../domain/canned/decide';
import { type CommandContext, handleCommand } from '../platform/commands';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
} from '../platform/eventstore/port';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { ABANDONED_AFTER_MS, type Claim, type Owners, claim, release, withClaims } from './reservations';
import { seeded } from '../../test/support/seeded';

/**
 * The claim protocol under every kind of interleaving: two and three actors create, rename and
 * delete canned messages over a few shortcodes, or claim and then stall (a crash, or a pause past
 * ABANDONED_AFTER_MS); a seeded scheduler decides which actor's next event-store call goes ahead.
 * After each run the log is folded event by event: at no position may two messages hold one shortcode.
 */

const owners: Owners<CannedState> = {
  stream: cannedStream,
  decider: cannedDecider,
  holds: (state, { value }) => state.status === 'active' && state.shortcode === value,
  gone: (state) => state.status === 'deleted',
};

const claimOf = (value: string): Claim => ({ kind: 'shortcode', value, conflictMessage: `#${value} is taken`, conflictCode: 'SHORTCODE_TAKEN' });

/** Holds every readStream and append of the actors until the scheduler lets it go, one at a time. */
class Interleaver implements EventStore {
  readonly kind = 'sqlite' as const;
  private readonly waiting: Array<() => void> = [];
  running = 0;

  constructor(private readonly store: EventStore) {}

  private async turn<T>(call: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return call();
  }

  append(streamId: string, events: NewEvent[], expected?: ExpectedRevision): Promise<AppendResult> {
    return this.turn(() => this.store.append(streamId, events, expected));
  }
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.turn(() => this.store.readStream(streamId, options));
  }
  readAll(options?: ReadAllOptions) {
    return this.store.readAll(options);
  }
  subscribeToAll(options: SubscribeOptions) {
    return this.store.subscribeToAll(options);
  }
  headPosition() {
    return this.store.headPosition();
  }
  close() {
    return Promise.resolve();
  }

  /** Runs the actors, letting one waiting call go at a time in an order drawn from `random`. */
  async run(actors: Array<() => Promise<void>>, random: () => number): Promise<void> {
    this.running = actors.length;
    const done = Promise.all(actors.map((actor) => actor().finally(() => this.running--)));
    while (this.running > 0) {
      // Every actor still running is blocked in exactly one call once the event loop has settled.
      while (this.waiting.length < this.running) await new Promise((resolve) => setImmediate(resolve));
      if (this.waiting.length === 0) continue;
      const [next] = this.waiting.splice(Math.floor(random() * this.waiting.length), 1);
      next!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
  }
}

const T0 = new Date('2026-01-01T00:00:00Z');
const contextAt = (userId: string, minutes = 0): CommandContext => ({
  actor: { userId, role: 'admin', platform: 'web' },
  now: new Date(T0.getTime() + minutes * 60_000),
});

/** What one actor may do; each resolves when done or refused (a ConflictError is a refusal). */
function actions(store: EventStore) {
  const create = async (id: string, value: string, context: CommandContext): Promise<void> => {
    await withClaims({ events: store }, id, [claimOf(value)], context, owners, (fences) =>
      handleCommand(
        store,
        cannedStream(id),
        cannedDecider,
        { type: 'CreateCannedMessage', cannedId: id, createdBy: 'u', details: { shortcode: value, title: 't', content: 'c', categoryId: null } },
        context,
        { fences },
      ),
    );
  };
  /** `loseRelease`: the old value's release is lost (a crash right after the rename). */
  const rename = async (id: string, from: string, to: string, context: CommandContext, { loseRelease = false } = {}) => {
    await withClaims({ events: store }, id, [claimOf(to)], context, owners, (fences) =>
      handleCommand(store, cannedStream(id), cannedDecider, { type: 'UpdateCannedMessage', cannedId: id, changes: { shortcode: to } }, context, { fences }),
    );
    if (!loseRelease) await release({ events: store }, id, claimOf(from), context);
  };
  const remove = async (id: string, value: string, context: CommandContext) => {
    await handleCommand(store, cannedStream(id), cannedDecider, { type: 'DeleteCannedMessage', cannedId: id, actorRole: 'admin' }, context);
    await release({ events: store }, id, claimOf(value), context);
  };
  /** Claims and then never writes its event: a crash between the two, or a pause as long as the run. */
  const stall = (id: string, value: string, context: CommandContext) => claim({ events: store }, id, claimOf(value), context, owners).then(() => undefined);
  return { create, rename, remove, stall };
}

const refusedOrDone = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (error) => {
      if (!(error instanceof ConflictError)) throw error;
    },
  );

/** Folds the whole log in order and answers the first position at which two messages share a shortcode. */
async function firstDoubleHolder(store: EventStore): Promise<string | null> {
  const states = new Map<string, CannedState>();
  for (const event of await store.readAll({ maxCount: 100_000 })) {
    if (!event.streamId.startsWith('canned-') || event.type === 'ClaimWithdrawn') continue;
    states.set(event.streamId, cannedDecider.evolve(states.get(event.streamId) ?? cannedDecider.initialState, event as never));
    const holders = new Map<string, string>();
    for (const [stream, state] of states) {
      if (state.status !== 'active') continue;
      const other = holders.get(state.shortcode);
      if (other) return `position ${event.position}: ${other} and ${stream} both hold #${state.shortcode}`;
      holders.set(state.shortcode, stream);
    }
  }
  return null;
}

describe('claims under interleavings', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'claims-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Each scenario seeds a log, then runs its actors on every seed; every outcome is checked. */
  async function explore(
    seeds: number,
    seed: (act: ReturnType<typeof actions>) => Promise<void>,
    actors: (act: ReturnType<typeof actions>) => Array<() => Promise<void>>,
  ) {
    for (let run = 1; run <= seeds; run++) {
      const base = new SqliteEventStore({ filename: path.join(dir, `run-${run}.db`) });
      try {
        await seed(actions(base));
        const interleaved = new Interleaver(base);
        await interleaved.run(actors(actions(interleaved)), seeded(run));
        const double = await firstDoubleHolder(base);
        if (double) throw new Error(`seed ${run}: ${double}`);
      } finally {
        await base.close();
      }
    }
  }

  it('two actors: a rename and a create of the same shortcode never both land', async () => {
    await explore(
      60,
      (act) => act.create('canned-a', 'old', contextAt('seed')),
      (act) => [() => refusedOrDone(act.rename('canned-a', 'old', 'zz1', contextAt('x'))), () => refusedOrDone(act.create('canned-b', 'zz1', contextAt('y')))],
    );
  });

  it('two actors: a rename back to a value it left (its release lost) against a create', async () => {
    await explore(
      60,
      async (act) => {
        await act.create('canned-a', 'zz1', contextAt('seed'));
        await act.rename('canned-a', 'zz1', 'other', contextAt('seed'), { loseRelease: true });
      },
      (act) => [
        () => refusedOrDone(act.rename('canned-a', 'other', 'zz1', contextAt('x'))),
        () => refusedOrDone(act.create('canned-b', 'zz1', contextAt('y'))),
      ],
    );
  });

  it('three actors: renames, creates and a delete over two shortcodes', async () => {
    await explore(
      80,
      async (act) => {
        await act.create('canned-a', 'p', contextAt('seed'));
        await act.create('canned-b', 'q', contextAt('seed'));
      },
      (act) => [
        () => refusedOrDone(act.rename('canned-a', 'p', 'q', contextAt('x'))),
        () => refusedOrDone(act.remove('canned-b', 'q', contextAt('y')).then(() => act.create('canned-c', 'p', contextAt('y')))),
        () => refusedOrDone(act.create('canned-d', 'q', contextAt('z')).then(() => act.rename('canned-d', 'q', 'p', contextAt('z')))),
      ],
    );
  });

  it('three actors: a claim left for longer than the takeover wait is withdrawn, and its late event refused', async () => {
    const late = ABANDONED_AFTER_MS / 60_000 + 1;
    await explore(
      80,
      (act) => act.create('canned-a', 'old', contextAt('seed')),
      (act) => [
        // Claims at T0 and writes whenever the scheduler lets it: possibly after both takeovers below.
        () => refusedOrDone(act.rename('canned-a', 'old', 'zz1', contextAt('x'))),
        () => refusedOrDone(act.create('canned-b', 'zz1', contextAt('y', late))),
        () => refusedOrDone(act.create('canned-c', 'zz1', contextAt('z', late))),
      ],
    );
  });

  it('a stalled claim (a crash after claiming) is taken over once it is old enough, and only then', async () => {
    const base = new SqliteEventStore({ filename: path.join(dir, 'stall.db') });
    try {
      const act = actions(base);
      await act.stall('canned-a', 'zz1', contextAt('x'));
      await expect(act.create('canned-b', 'zz1', contextAt('y', 1))).rejects.toThrow(ConflictError);
      await act.create('canned-b', 'zz1', contextAt('y', ABANDONED_AFTER_MS / 60_000 + 1));
      // The stalled owner comes back and writes its event: refused, its claim was withdrawn.
      await expect(
        handleCommand(
          base,
          cannedStream('canned-a'),
          cannedDecider,
          { type: 'CreateCannedMessage', cannedId: 'canned-a', createdBy: 'u', details: { shortcode: 'zz1', title: 't', content: 'c', categoryId: null } },
          contextAt('x', 7),
          { fences: [{ ...claimOf('zz1'), reservation: 0 }] },
        ),
      ).rejects.toThrow(ConflictError);
      expect(await firstDoubleHolder(base)).toBeNull();
    } finally {
      await base.close();
    }
  });
});
