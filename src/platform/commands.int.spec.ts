import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Decider, DomainEvent } from '../domain/shared/decider';
import { ConflictError } from '#contract/errors';
import { type CommandContext, handleCommand } from './commands';
import type { EventStore, ReadStreamOptions } from './eventstore/port';
import { SqliteEventStore } from './eventstore/sqlite';

/** A seat counter: at most `capacity` seats, so a command decided on stale state would overbook. */
type SeatEvent = DomainEvent<'SeatTaken', { by: string }>;
type SeatCommand = { type: 'TakeSeat'; by: string; capacity: number };
interface SeatState {
  taken: string[];
}
const seats: Decider<SeatCommand, SeatEvent, SeatState> = {
  initialState: { taken: [] },
  evolve: (state, event) => ({ taken: [...state.taken, event.data.by] }),
  decide: (command, state) => {
    if (state.taken.length >= command.capacity) throw new ConflictError('No seat left', 'FULL');
    return [{ type: 'SeatTaken', data: { by: command.by } }];
  },
};
const CONTEXT: CommandContext = { actor: { userId: 'u1', role: 'agent', platform: 'web' }, now: new Date('2026-01-01T00:00:00Z') };
const take = (store: EventStore, by: string, capacity = 10_000) => handleCommand(store, 'seats-1', seats, { type: 'TakeSeat', by, capacity }, CONTEXT);

/** The real SQLite store, counting how many events each stream read brings back. */
function counting(store: EventStore) {
  const reads: number[] = [];
  const readStream = store.readStream.bind(store);
  store.readStream = async (streamId: string, options?: ReadStreamOptions) => {
    const events = await readStream(streamId, options);
    reads.push(events.length);
    return events;
  };
  return reads;
}

describe('Command handler with folded streams', () => {
  let dir: string;
  let stores: EventStore[];
  const open = () => {
    const store = new SqliteEventStore({ filename: path.join(dir, 'events.db') });
    stores.push(store);
    return store;
  };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'desk-commands-'));
    stores = [];
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when a stream has grown long, then a command reads only what was appended since its last fold', async () => {
    const store = open();
    const reads = counting(store);
    for (let n = 0; n < 300; n++) await take(store, `p${n}`);
    // The first command reads the empty stream; every later one reads nothing new: its own append
    // is folded in as it is made.
    expect(reads.every((count) => count === 0)).toBe(true);
    const result = await take(store, 'last');
    expect(result.state.taken).toHaveLength(301);
  });

  it('when another process appends to the stream, then the next command decides on the state including it', async () => {
    const here = open();
    const there = open();
    const reads = counting(here);
    await take(here, 'a', 3);
    await take(there, 'b', 3);
    await take(there, 'c', 3);
    await expect(take(here, 'd', 3)).rejects.toThrow('No seat left');
    expect(reads.at(-1)).toBe(2);
  });

  it('when two processes race for the last seat, then exactly one gets it', async () => {
    const here = open();
    const there = open();
    await take(here, 'a', 2);
    await take(there, 'warm', 3); // `there` has a fold at revision 1 now
    const results = await Promise.allSettled([take(here, 'x', 3), take(there, 'y', 3)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const reader = open();
    expect((await reader.readStream('seats-1')).map((event) => event.data.by)).toHaveLength(3);
  });
});
