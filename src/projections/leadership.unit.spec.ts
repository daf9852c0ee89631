import { type Leadership, type LeadershipInput, transition } from './leadership';

const leading: Leadership = { kind: 'leading', epoch: 3, applying: true, attempts: 0 };
const starting: Leadership = { kind: 'leading', epoch: 3, applying: false, attempts: 1 };
const retrying: Leadership = { kind: 'retrying', epoch: 3, attempts: 2 };
const steppingDown: Leadership = { kind: 'steppingDown', rejoin: null };
const following: Leadership = { kind: 'following', attempts: 0 };

const after = (state: Leadership, ...inputs: LeadershipInput[]) => inputs.reduce((current, input) => transition(current, input, 100).state, state);

describe('Leadership', () => {
  it('when a follower wins the lease, then it stops following and leads under that epoch', () => {
    expect(transition(following, { type: 'leaseWon', epoch: 4 }, 100)).toEqual({
      state: { kind: 'leading', epoch: 4, applying: false, attempts: 0 },
      effects: [{ type: 'stopFollowing' }, { type: 'lead', epoch: 4 }],
    });
  });

  it('when the catch-up of a leader fails on the store, then it keeps the lease and tries again after a pause that grows', () => {
    expect(transition(leading, { type: 'storeError' }, 100)).toEqual({
      state: { kind: 'retrying', epoch: 3, attempts: 1 },
      effects: [{ type: 'stopApplying' }, { type: 'retryAfter', pauseMs: 100 }],
    });
    expect(transition(after(leading, { type: 'storeError' }, { type: 'retryDue' }, { type: 'started' }), { type: 'storeError' }, 100).effects).toContainEqual({
      type: 'retryAfter',
      pauseMs: 200,
    });
  });

  it('when a start of leading fails, then the lease is given back so another process can lead', () => {
    expect(transition(starting, { type: 'storeError' }, 100)).toEqual({
      state: { kind: 'steppingDown', rejoin: null },
      effects: [{ type: 'stopApplying' }, { type: 'giveBack', pauseMs: 200 }],
    });
  });

  it('when a retrying leader loses the lease, then it follows at once', () => {
    expect(transition(retrying, { type: 'leaseLost' }, 100)).toEqual({ state: following, effects: [{ type: 'follow' }] });
    expect(transition(retrying, { type: 'fenceRefused' }, 100).state).toEqual(following);
  });

  it('when the checkpoint cannot be stored while stepping down, then it follows all the same', () => {
    expect(after(leading, { type: 'leaseLost' }, { type: 'checkpointSaveFailed' })).toEqual(following);
  });

  it('when the lease is won again while stepping down, then it leads again under the new epoch once the writer stopped', () => {
    const { state, effects } = transition(after(leading, { type: 'leaseLost' }, { type: 'leaseWon', epoch: 5 }), { type: 'steppedDown' }, 100);
    expect(state).toEqual({ kind: 'leading', epoch: 5, applying: false, attempts: 0 });
    expect(effects).toEqual([{ type: 'lead', epoch: 5 }]);
  });

  it('when a renewal fails, then the leader keeps applying', () => {
    expect(transition(leading, { type: 'renewFailed' }, 100)).toEqual({ state: leading, effects: [] });
  });

  it('when stopped from any state, then it releases the lease and stays stopped', () => {
    for (const state of [leading, starting, retrying, steppingDown, following]) {
      const { state: next, effects } = transition(state, { type: 'stop' }, 100);
      expect(next).toEqual({ kind: 'stopped' });
      expect(effects.at(-1)).toEqual({ type: 'releaseLease' });
      expect(after(next, { type: 'leaseWon', epoch: 9 })).toEqual({ kind: 'stopped' });
    }
  });
});
