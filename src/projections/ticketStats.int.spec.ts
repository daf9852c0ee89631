import { MemoryReadStore } from '../platform/readstore/memory';
import { type StatsMove, type StatsSource, applyStatsMoves, loadTicketStats } from './ticketStats';

/** A ticket resolved `ms` after its opening, as the statistics read it. */
const resolvedAfter = (index: number, ms: number): StatsSource => ({
  status: 'resolved',
  assignedAgent: { _id: 'agent' },
  category: { _id: 'billing' },
  team: null,
  firstResponseAt: null,
  createdAt: new Date(Date.UTC(2026, 10, 20, 8, index)).toISOString(),
  updatedAt: new Date(Date.UTC(2026, 10, 20, 8, index) + ms).toISOString(),
  resolvedAt: new Date(Date.UTC(2026, 10, 20, 8, index) + ms).toISOString(),
  closedAt: null,
});

describe('Dashboard sums (docs/tickets.md, dashboard statistics)', () => {
  it('when the same moves are applied a few at a time and as one page, then the sums are equal to the last digit', async () => {
    // Times of odd milliseconds, each ticket resolved, reopened and resolved again: what live tails and rebuilds add in other groupings.
    let seed = 7;
    const someMs = () => 1_000 + ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % 200_000);
    const moves: StatsMove[] = [];
    for (let index = 0; index < 200; index++) {
      const first = resolvedAfter(index, someMs());
      const again = resolvedAfter(index, someMs());
      const reopened: StatsSource = { ...first, status: 'open', resolvedAt: null };
      moves.push({ position: moves.length + 1, before: null, after: first });
      moves.push({ position: moves.length + 1, before: first, after: reopened });
      moves.push({ position: moves.length + 1, before: reopened, after: again });
    }
    const live = new MemoryReadStore();
    const rebuilt = new MemoryReadStore();
    // Live pages hold what arrived together: here one or two moves.
    for (let at = 0; at < moves.length;) {
      const size = (at % 3) + 1;
      await applyStatsMoves(live, moves.slice(at, at + size));
      at += size;
    }
    await applyStatsMoves(rebuilt, moves);
    const [tailed, replayed] = await Promise.all([loadTicketStats(live), loadTicketStats(rebuilt)]);
    expect(tailed).toEqual(replayed);
    expect(replayed.resolution.count).toBe(200);
    await Promise.all([live.close(), rebuilt.close()]);
  });
});
