import type { Decider, DomainEvent } from '../domain/shared/decider';
import { type Actor, type EventStore, type RecordedEvent, isWrongExpectedVersion } from './eventstore/port';

export const SCHEMA_VERSION = 1;

export interface CommandContext {
  actor: Actor;
  /** The decision time; stored as `occurredAt` on every event the command produces. */
  now: Date;
  correlationId?: string;
  causationId?: string;
}

export interface CommandResult<State, Event extends DomainEvent> {
  events: Event[];
  state: State;
  /** Global position of the last appended event (0 when the command changed nothing). */
  position: number;
}

export async function loadState<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, Event, State>, 'evolve' | 'initialState'>,
): Promise<{ state: State; revision: number | null; events: RecordedEvent[] }> {
  const events = await store.readStream(streamId);
  const state = events.reduce((current, event) => decider.evolve(current, event as unknown as Event), decider.initialState);
  return { state, revision: events.at(-1)?.revision ?? null, events };
}

/**
 * Runs one command against one stream with optimistic concurrency: load, decide, append with the
 * revision that was read. When another writer got there first the command is decided again on the
 * fresh state, so a rule is always checked against the state it changes.
 */
export async function handleCommand<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
  attempts = 5,
): Promise<CommandResult<State, Event>> {
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadState(store, streamId, decider);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, position: 0 };
    try {
      const result = await store.append(
        streamId,
        events.map((event) => ({ type: event.type, data: event.data as Record<string, unknown>, metadata: metadataOf(context) })),
        revision ?? 'no_stream',
      );
      return { events, state: events.reduce(decider.evolve, state), position: result.position };
    } catch (error) {
      if (!isWrongExpectedVersion(error) || attempt >= attempts) throw error;
    }
  }
}

export const metadataOf = (context: CommandContext) => ({
  actor: context.actor,
  occurredAt: context.now.toISOString(),
  schemaVersion: SCHEMA_VERSION,
  ...(context.correlationId ? { correlationId: context.correlationId } : {}),
  ...(context.causationId ? { causationId: context.causationId } : {}),
});
