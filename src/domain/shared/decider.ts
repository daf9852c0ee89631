/** A domain event as deciders produce it: a type and its data, nothing about storage. */
export interface DomainEvent<Type extends string = string, Data extends object = object> {
  type: Type;
  data: Data;
}

/**
 * The decider pattern: `decide` is pure (no clock, ids or I/O; the handler passes them in the
 * command), `evolve` folds recorded events into state, `initialState` is the state of no stream.
 */
export interface Decider<Command, Event extends DomainEvent, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState: State;
}
