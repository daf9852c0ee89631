import { hash } from 'node:crypto';
import { pagesOfAll } from './paging';
import { CorruptEventError, type EventStore, type RecordedEvent } from './port';
import type { ChainBreak } from '#contract/responses';

/**
 * Tamper evidence for the event log (docs/audit.md):
 * - `hash`, on every event both adapters store: sha256 over the previous event of its stream's hash
 *   and the event's own content (id, stream, revision, type, data, metadata), so each stream is a
 *   hash chain from its first event;
 * - `log`, on SQLite only: sha256 over the previous event of the global log's `log` link and this
 *   event's `hash`, so the whole log is one chain and a removed or reordered event anywhere breaks it.
 *   EventStoreDB keeps stream chains only (`log` is null, `logChain: false` in the report), and the
 *   store's own `$` streams stay out of the log chain.
 * `verifyLog` finds and names the first link that does not hold: an edited event, or an event missing
 * from the start or middle of its stream, on both stores; with the log chain also the last events of a
 * stream, or a whole stream, removed, which on EventStoreDB leave no trace. Events an EventStoreDB held
 * before the chains existed are counted as `unsealed`, not proven. Cutting off the end of the log, or
 * rewriting every later link to match, is caught only against a head kept elsewhere (`head` in the report).
 */

/** The link before the first event of a stream and of the log. */
export const GENESIS = '0'.repeat(64);

export interface ChainLinks {
  /** Link of the stream chain. */
  hash: string;
  /** Link of the global log chain; null where the adapter keeps stream chains only. */
  log: string | null;
}

export interface HashableEvent {
  id: string;
  streamId: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: unknown;
}

/** An integer-like key, which JavaScript objects list first, in numeric order, whatever the insertion order. */
const isIndexKey = (key: string) => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;

/** Key order of `JSON.stringify(value, sortKeys)` where sortKeys rebuilt each object from its sorted entries. */
function canonicalKeys(source: object): string[] {
  const keys = Object.keys(source).sort();
  if (!keys.some(isIndexKey)) return keys;
  return [...keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b)), ...keys.filter((key) => !isIndexKey(key))];
}

/** One value as JSON.stringify writes it (undefined where it leaves the value out), object keys in canonical order. */
function canonical(key: string, input: unknown): string | undefined {
  let value = input;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item, index) => canonical(String(index), item) ?? 'null').join(',')}]`;
  const source = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const name of canonicalKeys(source)) {
    const text = canonical(name, source[name]);
    if (text !== undefined) parts.push(`${JSON.stringify(name)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * JSON with object keys sorted: the same text for an object and for that object after a round trip
 * through any store (undefined is dropped and toJSON applied, as JSON.stringify does). Written out by
 * hand for speed; the text is exactly that of `JSON.stringify` with a replacer rebuilding every object
 * from its sorted entries, which the links of stored events were made with.
 */
export const canonicalJson = (value: unknown): string => canonical('', value) ?? 'null';

/** One-shot hashing (Node 20.12+) skips the Hash object a link would otherwise make and drop. */
const sha256 = (text: string) => hash('sha256', text, 'hex');

export const streamLink = (previous: string, event: HashableEvent): string =>
  sha256(
    `${previous}\n${JSON.stringify([event.id, event.streamId, event.revision, event.type])}\n${canonicalJson(event.data)}\n${canonicalJson(event.metadata)}`,
  );

export const logLink = (previous: string, hash: string): string => sha256(`${previous}\n${hash}`);

export interface VerifyReport {
  ok: boolean;
  /** Events checked (up to and including the first break). */
  events: number;
  streams: number;
  /** Whether this store keeps the global log chain (SQLite does; EventStoreDB keeps stream chains only). */
  logChain: boolean;
  /** Events stored before the chains existed (EventStoreDB only: at the start of their streams), unproven. */
  unsealed: number;
  /** The last event checked: keep `log` (or `hash`) somewhere else to detect a rewrite of the whole log. */
  head: { position: number; hash: string | null; log: string | null };
  firstBreak: ChainBreak | null;
  checkedAt: string;
  durationMs: number;
}

export interface VerifyOptions {
  pageSize?: number;
  /** The last links of at most this many streams are kept while walking (default 50,000): the walk's memory is bounded. */
  streamsKept?: number;
  onProgress?: (checked: { position: number; events: number }) => void;
}

/**
 * Walks the whole log in global order and recomputes both chains from the stored events, stopping at
 * the first link that does not hold. The last link of each stream seen is kept for the stream's next
 * event, for the most recently used `streamsKept` streams only (every notification has a stream of
 * its own, so their number grows with the desk); an event whose stream was dropped from them reads
 * its predecessor back from its stream, which the walk checked when it passed it.
 */
export async function verifyLog(store: Pick<EventStore, 'readAll' | 'readStream'>, options: VerifyOptions = {}): Promise<VerifyReport> {
  const started = Date.now();
  const pageSize = options.pageSize ?? 2000;
  const streamsKept = Math.max(1, options.streamsKept ?? 50_000);
  const kept = new Map<string, Link>();
  const keep = (streamId: string, link: Link) => {
    kept.delete(streamId);
    kept.set(streamId, link);
    if (kept.size > streamsKept) kept.delete(kept.keys().next().value!);
  };
  /** The previous event of a stream that is no longer kept, read back (the nearest earlier revision stored). */
  const readBack = async (event: RecordedEvent): Promise<Link | undefined> => {
    const [before] = await store.readStream(event.streamId, { direction: 'backwards', fromRevision: event.revision - 1, maxCount: 1 });
    return before ? { revision: before.revision, hash: before.chain?.hash ?? null } : undefined;
  };
  /** Streams whose first event was checked: every stream, as a stream that does not start at revision 0 is a break. */
  let streams = 0;
  let previousLog = GENESIS;
  let logChain = true;
  let events = 0;
  let unsealed = 0;
  let head: VerifyReport['head'] = { position: 0, hash: null, log: null };
  const finish = (firstBreak: ChainBreak | null): VerifyReport => ({
    ok: firstBreak === null,
    events,
    streams,
    logChain,
    unsealed,
    head,
    firstBreak,
    checkedAt: new Date().toISOString(),
    durationMs: Date.now() - started,
  });

  try {
    for await (const page of pagesOfAll(store, { pageSize })) {
      for (const event of page) {
        events += 1;
        if (events === 1) logChain = event.chain?.log != null;
        const last = kept.get(event.streamId) ?? (event.revision > 0 ? await readBack(event) : undefined);
        const found = checkEvent(event, last, logChain ? previousLog : null);
        if (found) return finish(found);
        if (event.revision === 0) streams += 1;
        keep(event.streamId, { revision: event.revision, hash: event.chain?.hash ?? null });
        if (!event.chain) unsealed += 1;
        previousLog = event.chain?.log ?? previousLog;
        head = { position: event.position, hash: event.chain?.hash ?? null, log: event.chain?.log ?? null };
      }
      options.onProgress?.({ position: head.position, events });
    }
  } catch (error) {
    // An event that can no longer be read is where the chain breaks: its content cannot be hashed.
    if (error instanceof CorruptEventError) return finish(unreadable(error));
    throw error;
  }
  return finish(null);
}

/** The break an unreadable event makes: named by stream, revision, position and id, with why it cannot be read. */
const unreadable = ({ event, message }: CorruptEventError): ChainBreak => ({
  chain: 'stream',
  ...event,
  reason: message,
  expected: 'an event whose stored JSON parses',
  stored: null,
});

export interface StreamVerification {
  ok: boolean;
  events: number;
  /** The stream's last link: what its next event chains from. */
  head: string | null;
  firstBreak: ChainBreak | null;
}

/** Recomputes one stream's chain (the log chain needs the whole log: see verifyLog). */
export function verifyStreamEvents(events: RecordedEvent[]): StreamVerification {
  let last: Link | undefined;
  for (const event of events) {
    const found = checkEvent(event, last, null);
    if (found) return { ok: false, events: events.length, head: last?.hash ?? null, firstBreak: found };
    last = { revision: event.revision, hash: event.chain?.hash ?? null };
  }
  return { ok: true, events: events.length, head: last?.hash ?? null, firstBreak: null };
}

/** The first link of this event that does not hold, or null. `previousLog` is null where no log chain is kept. */
/** The last event seen of a stream; `hash` null while the stream is still in its unsealed beginning. */
interface Link {
  revision: number;
  hash: string | null;
}

function checkEvent(event: RecordedEvent, last: Link | undefined, previousLog: string | null): ChainBreak | null {
  const at = { streamId: event.streamId, revision: event.revision, position: event.position, eventId: event.id, type: event.type };
  const expectedRevision = last ? last.revision + 1 : 0;
  const stored = event.chain?.hash ?? null;
  const expected = streamLink(last?.hash ?? GENESIS, event);
  if (event.revision !== expectedRevision) {
    return {
      chain: 'stream',
      ...at,
      reason: `revision ${expectedRevision} of ${event.streamId} is missing: the next stored event is revision ${event.revision}`,
      expected,
      stored,
    };
  }
  // Events an EventStoreDB appended before the chains existed carry no link: allowed only at the
  // start of a stream (once a stream is chained, a missing link is a break). SQLite seals every event.
  if (stored === null && previousLog === null && (last === undefined || last.hash === null)) return null;
  if (stored !== expected) {
    const reason = stored === null ? 'the event carries no hash' : "the stored hash does not match the event's content and the previous event of its stream";
    return { chain: 'stream', ...at, reason, expected, stored };
  }
  if (previousLog === null) return null;
  const expectedLog = logLink(previousLog, stored);
  const storedLog = event.chain?.log ?? null;
  if (storedLog === expectedLog) return null;
  return {
    chain: 'log',
    ...at,
    reason:
      "the log link does not follow from the log's previous link and this event's hash: this event's hash was rewritten, or an event before it was removed or reordered",
    expected: expectedLog,
    stored: storedLog,
  };
}
