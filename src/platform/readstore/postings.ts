/**
 * The id sets of the embedded store's equality indexes. A collection numbers its documents' ids
 * (`Slots`); a value's set holds those numbers, as a Set while it is small and as a bitset once it
 * holds more than a small share of the collection. A word in most of 100,000 tickets' word lists is
 * then 12.5 KB of bits instead of a hash set of 100,000 strings (some 4 MB), and testing a document
 * against it reads one bit.
 */
export class Slots {
  private readonly byId = new Map<string, number>();
  readonly ids: string[] = [];

  /** The number of `id`, given on first use and kept for the collection's life (a removed document's number is not reused). */
  of(id: string): number {
    let slot = this.byId.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.ids.push(id);
      this.byId.set(id, slot);
    }
    return slot;
  }

  find(id: string): number | undefined {
    return this.byId.get(id);
  }
}

/** Up to this many members a set is a short array, copied at each change (a Set costs some 150 bytes even for one member). */
const FEW = 8;
/** Below this many members a set stays a Set (a bitset of a large collection would cost more). */
const SMALL = 64;
/** A set becomes a bitset when its members are more than 1 in this many of the collection's numbers. */
const DENSE_SHARE = 256;

/**
 * Most sets are tiny: at 100,000 tickets, 210,000 of the 250,000 words of the public word index are
 * in one ticket and most tickets have two to four messages. Those are arrays of exactly their
 * members; a set grows into a Set past FEW members and into a bitset once it is dense.
 */
export class Postings implements Iterable<string> {
  private few: number[] | null = [];
  private many: Set<number> | null = null;
  private bits: Uint32Array | null = null;
  size = 0;

  constructor(private readonly slots: Slots) {}

  add(id: string): void {
    const slot = this.slots.of(id);
    if (this.bits) {
      if (slot >>> 5 >= this.bits.length) this.grow(slot);
      const word = slot >>> 5;
      const bit = 1 << (slot & 31);
      if ((this.bits[word]! & bit) === 0) {
        this.bits[word]! |= bit;
        this.size++;
      }
      return;
    }
    if (this.few) {
      if (this.few.includes(slot)) return;
      this.size++;
      if (this.size <= FEW) {
        // concat allocates exactly the new length, where a push or a spread leaves room for 16 more (200 bytes an array instead of 70).
        this.few = this.few.concat(slot);
        return;
      }
      this.many = new Set(this.few);
      this.few = null;
    } else if (this.many!.has(slot)) return;
    else this.size++;
    this.many!.add(slot);
    if (this.size > SMALL && this.size * DENSE_SHARE > this.slots.ids.length) this.toBits();
  }

  delete(id: string): boolean {
    const slot = this.slots.find(id);
    if (slot === undefined || !this.hasSlot(slot)) return false;
    if (this.bits) this.bits[slot >>> 5]! &= ~(1 << (slot & 31));
    else if (this.few) this.few = this.few.filter((member) => member !== slot);
    else this.many!.delete(slot);
    this.size--;
    return true;
  }

  has(id: string): boolean {
    const slot = this.slots.find(id);
    return slot !== undefined && this.hasSlot(slot);
  }

  hasSlot(slot: number): boolean {
    if (this.bits) {
      const word = slot >>> 5;
      return word < this.bits.length && (this.bits[word]! & (1 << (slot & 31))) !== 0;
    }
    return this.few ? this.few.includes(slot) : this.many!.has(slot);
  }

  /** Calls `visit` with each member's number. */
  forEachSlot(visit: (slot: number) => void): void {
    if (!this.bits) {
      for (const slot of this.few ?? this.many!) visit(slot);
      return;
    }
    const bits = this.bits;
    for (let word = 0; word < bits.length; word++) {
      let rest = bits[word]!;
      while (rest !== 0) {
        const low = rest & -rest;
        visit((word << 5) + 31 - Math.clz32(low));
        rest ^= low;
      }
    }
  }

  *[Symbol.iterator](): Iterator<string> {
    const found: number[] = [];
    this.forEachSlot((slot) => found.push(slot));
    for (const slot of found) yield this.slots.ids[slot]!;
  }

  private toBits(): void {
    const members = this.many!;
    this.many = null;
    this.bits = new Uint32Array(((this.slots.ids.length >>> 5) + 1) * 2);
    for (const slot of members) this.bits[slot >>> 5]! |= 1 << (slot & 31);
  }

  private grow(slot: number): void {
    const grown = new Uint32Array(Math.max((slot >>> 5) + 1, this.bits!.length * 2));
    grown.set(this.bits!);
    this.bits = grown;
  }
}
