/**
 * An ordered index of the embedded read store: the ids of a collection's documents in the order of
 * an index's keys (MongoDB's order for missing/null, numbers and strings; `_id` breaks ties), kept in
 * chunks of at most CHUNK entries so that an insert or a removal costs a binary search and a short
 * splice, not a move of the whole collection. Each entry holds the key values it was filed under,
 * since documents change in place.
 */
const CHUNK = 512;

export interface Entry {
  key: unknown[];
  id: string;
}

/** MongoDB's order for what an ordered index holds: missing and null, then numbers, then strings. */
export function compareValues(a: unknown, b: unknown): number {
  const rank = (value: unknown) => (value === undefined || value === null ? 0 : typeof value === 'number' ? 1 : 2);
  const difference = rank(a) - rank(b);
  if (difference !== 0) return difference;
  if (rank(a) === 0) return 0;
  return (a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0;
}

export class OrderedIndex {
  private chunks: Entry[][] = [];
  private readonly filed = new Map<string, Entry>();
  /** Documents with a key value this order cannot hold (arrays, objects, booleans): while any exists, the index is not used. */
  readonly irregular = new Set<string>();

  constructor(
    readonly fields: string[],
    private readonly directions: Array<1 | -1>,
  ) {}

  private compare = (a: Entry, b: Entry): number => {
    for (let i = 0; i < this.directions.length; i++) {
      const order = compareValues(a.key[i], b.key[i]);
      if (order !== 0) return order * this.directions[i]!;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };

  /** Whether this index answers `sort`, forwards (1) or backwards (-1); 0 if not. */
  serves(sort: Record<string, 1 | -1>): 0 | 1 | -1 {
    const entries = Object.entries(sort);
    if (this.irregular.size > 0 || entries.length !== this.fields.length || entries.some(([field], i) => field !== this.fields[i])) return 0;
    if (entries.every(([, direction], i) => direction === this.directions[i])) return 1;
    if (entries.every(([, direction], i) => direction === -this.directions[i]!)) return -1;
    return 0;
  }

  /** Files many documents at once: one sort instead of an insert each (an index built on first use). */
  build(items: Array<{ id: string; key: unknown[] }>): void {
    const entries: Entry[] = [];
    for (const { id, key } of items) {
      if (key.some((value) => value !== undefined && value !== null && typeof value !== 'number' && typeof value !== 'string')) this.irregular.add(id);
      else entries.push({ id, key });
    }
    entries.sort(this.compare);
    for (const entry of entries) this.filed.set(entry.id, entry);
    this.chunks = [];
    for (let from = 0; from < entries.length; from += CHUNK) this.chunks.push(entries.slice(from, from + CHUNK));
  }

  add(id: string, key: unknown[]): void {
    if (key.some((value) => value !== undefined && value !== null && typeof value !== 'number' && typeof value !== 'string')) {
      this.irregular.add(id);
      return;
    }
    const entry = { key, id };
    this.filed.set(id, entry);
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    let c = this.chunkFor(entry);
    if (c === this.chunks.length) c--;
    const chunk = this.chunks[c]!;
    chunk.splice(this.positionIn(chunk, entry), 0, entry);
    if (chunk.length > CHUNK * 2) this.chunks.splice(c, 1, chunk.slice(0, CHUNK), chunk.slice(CHUNK));
  }

  remove(id: string): void {
    this.irregular.delete(id);
    const entry = this.filed.get(id);
    if (!entry) return;
    this.filed.delete(id);
    const c = this.chunkFor(entry);
    const chunk = this.chunks[c]!;
    chunk.splice(this.positionIn(chunk, entry), 1);
    if (chunk.length === 0) this.chunks.splice(c, 1);
  }

  /** Whether `id` is filed under exactly `key` (a change that leaves the keys alone moves nothing). */
  holds(id: string, key: unknown[]): boolean {
    const entry = this.filed.get(id);
    return entry !== undefined && key.length === entry.key.length && key.every((value, i) => value === entry.key[i]);
  }

  /** Calls `visit` with ids in index order (or reversed) until it answers false. */
  walk(direction: 1 | -1, visit: (id: string) => boolean): void {
    if (direction === 1) {
      for (const chunk of this.chunks) for (const entry of chunk) if (!visit(entry.id)) return;
      return;
    }
    for (let c = this.chunks.length - 1; c >= 0; c--) {
      const chunk = this.chunks[c]!;
      for (let i = chunk.length - 1; i >= 0; i--) if (!visit(chunk[i]!.id)) return;
    }
  }

  /**
   * Calls `visit` with ids in index order from the first entry whose first key is not before
   * `lower` (an ascending first key), until it answers false: a range on the first key reads only
   * the entries inside it.
   */
  walkFrom(lower: string | number, visit: (id: string, first: unknown) => boolean): void {
    if (this.directions[0] !== 1) throw new Error('walkFrom needs an ascending first key');
    const before = (entry: Entry) => compareValues(entry.key[0], lower) < 0;
    let c = 0;
    let high = this.chunks.length;
    while (c < high) {
      const middle = (c + high) >> 1;
      if (before(this.chunks[middle]!.at(-1)!)) c = middle + 1;
      else high = middle;
    }
    for (; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      let i = 0;
      if (before(chunk[0]!)) while (i < chunk.length && before(chunk[i]!)) i++;
      for (; i < chunk.length; i++) if (!visit(chunk[i]!.id, chunk[i]!.key[0])) return;
    }
  }

  /** The first chunk whose last entry is not before `entry` (chunks.length if none). */
  private chunkFor(entry: Entry): number {
    let low = 0;
    let high = this.chunks.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const chunk = this.chunks[middle]!;
      if (this.compare(chunk[chunk.length - 1]!, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private positionIn(chunk: Entry[], entry: Entry): number {
    let low = 0;
    let high = chunk.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.compare(chunk[middle]!, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
