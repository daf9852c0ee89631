import { Postings, Slots } from './postings';

describe('Postings', () => {
  it('holds the same ids as a Set through adds and deletes, as a small set and once it became a bitset', () => {
    const slots = new Slots();
    for (let i = 0; i < 10_000; i++) slots.of(`doc${i}`);
    const postings = new Postings(slots);
    const expected = new Set<string>();
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 20_000; round++) {
      const id = `doc${Math.floor(next() * 12_000)}`;
      if (next() < 0.7) {
        postings.add(id);
        expected.add(id);
      } else expect(postings.delete(id)).toBe(expected.delete(id));
      if (round % 1000 === 0) {
        expect(postings.size).toBe(expected.size);
        expect(new Set(postings)).toEqual(expected);
      }
    }
    expect(postings.size).toBeGreaterThan(64);
    expect(new Set(postings)).toEqual(expected);
    for (let i = 0; i < 12_000; i++) expect(postings.has(`doc${i}`)).toBe(expected.has(`doc${i}`));
    expect(postings.has('never seen')).toBe(false);
    expect(postings.delete('never seen')).toBe(false);
  });

  it('holds the same ids as a Set while it stays small, through the array of a few members and back', () => {
    const slots = new Slots();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let set = 0; set < 200; set++) {
      const postings = new Postings(slots);
      const expected = new Set<string>();
      for (let round = 0; round < 60; round++) {
        const id = `small${Math.floor(next() * 16)}`;
        if (next() < 0.6) {
          postings.add(id);
          expected.add(id);
        } else expect(postings.delete(id)).toBe(expected.delete(id));
        expect(postings.size).toBe(expected.size);
      }
      expect(new Set(postings)).toEqual(expected);
      for (let i = 0; i < 16; i++) expect(postings.has(`small${i}`)).toBe(expected.has(`small${i}`));
    }
  });

  it('gives each member once by its number, also past the bits it was made with', () => {
    const slots = new Slots();
    const postings = new Postings(slots);
    for (let i = 0; i < 200; i++) postings.add(`a${i}`);
    for (let i = 0; i < 5000; i++) slots.of(`b${i}`);
    postings.add('b4999');
    const seen: number[] = [];
    postings.forEachSlot((slot) => seen.push(slot));
    expect(seen).toHaveLength(201);
    expect(new Set(seen).size).toBe(201);
    expect(postings.hasSlot(slots.find('b4999')!)).toBe(true);
    expect(postings.hasSlot(slots.find('b4998')!)).toBe(false);
  });
});
