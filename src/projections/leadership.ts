/**
 * Who applies the log to a shared read store, as one state machine (docs/read-models.md "Leadership
 * states"). `transition` is pure: the runner feeds it what happened (the lease, the store, its own
 * work) and carries out the effects it answers, one at a time. Every state has a way out for every
 * input, so no order of faults leaves a process holding the lease without applying, or applying
 * without the lease.
 */

export type Leadership =
  /** Not started, or stopped: applies nothing, follows nothing. */
  | { kind: 'stopped' }
  /** Without the lease: reads the shared checkpoints. `attempts`: failed starts of following in a row. */
  | { kind: 'following'; attempts: number }
  /**
   * Holds the lease of `epoch` and applies the log (`applying` once the fence is raised and the
   * checkpoints loaded). `attempts`: failures in a row, for the pause before the next try.
   */
  | { kind: 'leading'; epoch: number; applying: boolean; attempts: number }
  /** Holds the lease; applying failed on a store that is away: tried again after a pause, never skipped. */
  | { kind: 'retrying'; epoch: number; attempts: number }
  /**
   * Lost the lease (or gave it back): the writer stops, then this process follows. A lease won again
   * meanwhile is kept in `rejoin`, so that it leads again as soon as the writer stopped.
   */
  | { kind: 'steppingDown'; rejoin: number | null };

export type LeadershipInput =
  | { type: 'start' }
  | { type: 'leaseWon'; epoch: number }
  | { type: 'leaseLost' }
  /** A renewal failed, the lease is still this process's for a while: nothing changes (pages check the fence). */
  | { type: 'renewFailed' }
  /** The store is away (network, failover, timeout): whatever was being done is tried again. */
  | { type: 'storeError' }
  /** A writer of a newer epoch raised the fence: the lease is lost, whatever it says yet. */
  | { type: 'fenceRefused' }
  | { type: 'checkpointSaveFailed' }
  /** The fence is raised and the checkpoints loaded (leading), or the follower started (following). */
  | { type: 'started' }
  /** The catch-up reached the head: failures in a row are over. */
  | { type: 'caughtUp' }
  | { type: 'retryDue' }
  /** The writer stopped and stored its checkpoints. */
  | { type: 'steppedDown' }
  | { type: 'stop' };

export type LeadershipEffect =
  | { type: 'follow' }
  | { type: 'stopFollowing' }
  /** Raise the fence to `epoch`, load the checkpoints, then apply the log (answering `started`, then `caughtUp` or an error). */
  | { type: 'lead'; epoch: number }
  /** Stop the writer (answering `steppedDown` or `checkpointSaveFailed`). */
  | { type: 'stopApplying' }
  /** Give the lease back and take it again no sooner than `pauseMs`, so another process leads meanwhile. */
  | { type: 'giveBack'; pauseMs: number }
  /** Answer `retryDue` after `pauseMs` (as leader), or start following again (as follower). */
  | { type: 'retryAfter'; pauseMs: number }
  | { type: 'releaseLease' };

export interface Transition {
  state: Leadership;
  effects: LeadershipEffect[];
}

/** Pauses between attempts: `baseMs`, doubling, at most 30 times it. */
const retryPause = (attempt: number, baseMs = 1000) => Math.min(baseMs * 2 ** attempt, baseMs * 30);

const stay = (state: Leadership): Transition => ({ state, effects: [] });
const following = (effects: LeadershipEffect[] = []): Transition => ({ state: { kind: 'following', attempts: 0 }, effects });
const lead = (epoch: number, attempts: number, effects: LeadershipEffect[] = []): Transition => ({
  state: { kind: 'leading', epoch, applying: false, attempts },
  effects: [...effects, { type: 'lead', epoch }],
});
const stepDown = (rejoin: number | null, effects: LeadershipEffect[] = []): Transition => ({
  state: { kind: 'steppingDown', rejoin },
  effects: [{ type: 'stopApplying' }, ...effects],
});
const stopped = (effects: LeadershipEffect[]): Transition => ({ state: { kind: 'stopped' }, effects: [...effects, { type: 'releaseLease' }] });

/** The next state and what to do to get there. `baseMs` is the first retry pause. */
export function transition(state: Leadership, input: LeadershipInput, baseMs = 1000): Transition {
  switch (state.kind) {
    case 'stopped':
      return input.type === 'start' ? following([{ type: 'follow' }]) : stay(state);
    case 'following':
      switch (input.type) {
        case 'leaseWon':
          return lead(input.epoch, 0, [{ type: 'stopFollowing' }]);
        case 'storeError':
          return {
            state: { kind: 'following', attempts: state.attempts + 1 },
            effects: [{ type: 'stopFollowing' }, { type: 'retryAfter', pauseMs: retryPause(state.attempts, baseMs) }],
          };
        case 'started':
          return stay({ kind: 'following', attempts: 0 });
        case 'retryDue':
          return state.attempts > 0 ? { state, effects: [{ type: 'follow' }] } : stay(state);
        case 'stop':
          return stopped([{ type: 'stopFollowing' }]);
        default:
          return stay(state);
      }
    case 'leading':
      switch (input.type) {
        case 'leaseWon':
          // Won again under another epoch without hearing of the loss: the writer of the old epoch is stale.
          return input.epoch === state.epoch ? stay(state) : stepDown(input.epoch);
        case 'leaseLost':
        case 'fenceRefused':
          return stepDown(null);
        case 'storeError':
        case 'checkpointSaveFailed':
          // A start that fails (the checkpoints cannot be read, an index conflicts) gives the lease back, so
          // another process can lead meanwhile; a catch-up that fails keeps it and tries again.
          if (!state.applying) return stepDown(null, [{ type: 'giveBack', pauseMs: retryPause(state.attempts, baseMs) }]);
          return {
            state: { kind: 'retrying', epoch: state.epoch, attempts: state.attempts + 1 },
            effects: [{ type: 'stopApplying' }, { type: 'retryAfter', pauseMs: retryPause(state.attempts, baseMs) }],
          };
        case 'started':
          return stay({ ...state, applying: true });
        case 'caughtUp':
          return stay({ ...state, attempts: 0 });
        case 'stop':
          return stopped([{ type: 'stopApplying' }]);
        default:
          return stay(state);
      }
    case 'retrying':
      switch (input.type) {
        case 'retryDue':
          return lead(state.epoch, state.attempts);
        case 'leaseWon':
          return input.epoch === state.epoch ? stay(state) : lead(input.epoch, 0);
        case 'leaseLost':
        case 'fenceRefused':
          // Nothing applies meanwhile: the retry is dropped and this process follows at once.
          return following([{ type: 'follow' }]);
        case 'stop':
          return stopped([]);
        default:
          return stay(state);
      }
    case 'steppingDown':
      switch (input.type) {
        // A checkpoint not stored is the next leader's to store: it applies those events again, under their guards.
        case 'steppedDown':
        case 'checkpointSaveFailed':
          return state.rejoin === null ? following([{ type: 'follow' }]) : lead(state.rejoin, 0);
        case 'leaseWon':
          return stay({ kind: 'steppingDown', rejoin: input.epoch });
        case 'leaseLost':
        case 'fenceRefused':
          return stay({ kind: 'steppingDown', rejoin: null });
        case 'stop':
          return stopped([]);
        default:
          return stay(state);
      }
  }
}
