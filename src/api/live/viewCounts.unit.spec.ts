import { countKey, nextRoundAt } from './viewCounts';

describe("Live Tickets' view counts", () => {
  it('when two views have the same filters in any order, then they are counted once a round; a count that depends on who asks, once per viewer', () => {
    expect(countKey({ category: 'c1', waiting: 'true' }, 'ann')).toBe(countKey({ waiting: 'true', category: 'c1' }, 'bob'));
    expect(countKey({ category: 'c1', waiting: 'true' }, 'ann')).not.toBe(countKey({ category: 'c2', waiting: 'true' }, 'ann'));
    expect(countKey({ assigned: 'me', waiting: 'true' }, 'ann')).not.toBe(countKey({ assigned: 'me', waiting: 'true' }, 'bob'));
    expect(countKey({ assigned: 'me', waiting: 'true' }, 'ann')).toBe(countKey({ waiting: 'true', assigned: 'me' }, 'ann'));
  });

  it('when a round of counts is quick, then the next may start 500 ms after it; when it took long, then counting keeps to a fifth of the time', () => {
    expect(nextRoundAt(10_000, 3)).toBe(10_500);
    expect(nextRoundAt(10_000, 100)).toBe(10_500);
    expect(nextRoundAt(10_000, 260)).toBe(11_300);
  });
});
