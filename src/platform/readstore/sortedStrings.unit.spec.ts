import { SortedStrings } from './sortedStrings';

const walk = (sorted: SortedStrings, lower: string, upper: string) => {
  const seen: string[] = [];
  sorted.walkFrom(lower, (value) => {
    if (value >= upper) return false;
    seen.push(value);
    return true;
  });
  return seen;
};

describe('SortedStrings', () => {
  it('walks the same values as a sorted array through adds and removes across many chunks', () => {
    let seed = 3;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const word = () => Math.floor(next() * 20_000).toString(36);
    const expected = new Set(Array.from({ length: 3000 }, word));
    const sorted = new SortedStrings(expected);
    for (let round = 0; round < 20_000; round++) {
      const value = word();
      if (next() < 0.55) {
        sorted.add(value);
        expected.add(value);
      } else {
        sorted.remove(value);
        expected.delete(value);
      }
    }
    const all = [...expected].sort();
    expect(walk(sorted, '', '\uffff')).toEqual(all);
    for (const prefix of ['a', '1', 'f3', 'zz', '']) {
      const upper = `${prefix}\uffff`;
      expect(walk(sorted, prefix, upper)).toEqual(all.filter((value) => value >= prefix && value < upper));
    }
  });

  it('starts empty, takes a value twice once, and stops where the visitor says', () => {
    const sorted = new SortedStrings([]);
    expect(walk(sorted, '', '\uffff')).toEqual([]);
    for (const value of ['pear', 'apple', 'fig', 'apple']) sorted.add(value);
    expect(walk(sorted, '', '\uffff')).toEqual(['apple', 'fig', 'pear']);
    sorted.remove('kiwi');
    sorted.remove('fig');
    expect(walk(sorted, 'b', '\uffff')).toEqual(['pear']);
    sorted.remove('apple');
    sorted.remove('pear');
    expect(walk(sorted, '', '\uffff')).toEqual([]);
  });
});
