/**
 * Given/when/then for deciders, after emmett's `DeciderSpecification`: the given events are folded
 * with `evolve` from `initialState`, the command is decided against that state, and the result is
 * compared with the events expected or the error expected. Every domain spec uses this one helper.
 *
 *   const given = DeciderSpecification.for({ decide, evolve, initialState });
 *   given([OPENED]).when(close).then([CLOSED]);
 *   given([]).when(close).thenThrows(NotFoundError, 'Ticket not found');
 */
type ErrorClass = new (...args: never[]) => Error;

/** `Past` is what `evolve` folds: the decider's own events, or a wider type when it also reads others. */
interface DeciderUnderTest<Command, Event, State, Past> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Past): State;
  initialState: State;
}

export const DeciderSpecification = {
  for<Command, Event, State, Past = Event>({ decide, evolve, initialState }: DeciderUnderTest<Command, Event, State, Past>) {
    return (events: Past[]) => ({
      when(command: Command) {
        const run = () => decide(command, events.reduce(evolve, initialState));
        return {
          /** The events decided, for a check of some of their fields. */
          result: run,
          /** The command decides exactly these events. */
          then: (expected: Event[]) => expect(run()).toEqual(expected),
          /** The command is refused with this error class and, when given, this message. */
          thenThrows(error: ErrorClass, message?: string | RegExp) {
            expect(run).toThrow(error);
            if (message !== undefined) expect(run).toThrow(message);
          },
          /** The command is refused with an error of this class carrying this machine-readable code. */
          thenThrowsCode(error: ErrorClass, code: string) {
            let thrown: unknown;
            try {
              run();
            } catch (caught) {
              thrown = caught;
            }
            expect(thrown).toBeInstanceOf(error);
            expect((thrown as { code?: string }).code).toBe(code);
          },
        };
      },
    });
  },
};
