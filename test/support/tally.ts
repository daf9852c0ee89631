/** What a fault test counts: of the messages that should have arrived, how many did, twice, or out of order. */
export interface Tally {
  sent: number;
  delivered: number;
  lost: number;
  duplicated: number;
  reordered: number;
}

/**
 * Compares what arrived with what should have, in order. `reordered` counts expected neighbours
 * whose first arrivals came the wrong way round.
 */
export function tally(expected: string[], arrived: string[]): Tally {
  const counts = new Map<string, number>();
  for (const item of arrived) counts.set(item, (counts.get(item) ?? 0) + 1);
  const firstAt = expected.map((item) => arrived.indexOf(item)).filter((index) => index >= 0);
  let reordered = 0;
  for (let i = 1; i < firstAt.length; i++) if (firstAt[i]! < firstAt[i - 1]!) reordered++;
  const wanted = new Set(expected);
  return {
    sent: expected.length,
    delivered: expected.filter((item) => counts.has(item)).length,
    lost: expected.filter((item) => !counts.has(item)).length,
    duplicated: [...counts.entries()].filter(([item]) => wanted.has(item)).reduce((sum, [, count]) => sum + count - 1, 0),
    reordered,
  };
}

/** Prints a fault test's figures on one line, for the closing note of a run. */
export function report(test: string, figures: Tally & Record<string, number>): void {
  process.stdout.write(`[fault tally] ${test}: ${JSON.stringify(figures)}\n`);
}
