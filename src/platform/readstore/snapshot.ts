import { type FileHandle, open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { EventStore } from '../eventstore/port';
import type { MemoryReadStore } from './memory';
import type { Doc, IndexSpec } from './port';

/**
 * A snapshot of the embedded read store: every collection (documents and index definitions, the
 * projection checkpoints among them) in one file under DATA_DIR, so that a start replays only the
 * log after it. The log stays the truth: a snapshot that is torn, corrupt, of another format, or of
 * another log (its identity, the event at its position, differs) is refused and the start rebuilds.
 *
 * File: MAGIC, format version (u32), then frames (u32 length + the JSON of one value): the
 * header `{ identity, collections }`, then `{ c: index of the collection, docs }` chunks, then
 * `{ end: frame count }`; last, the CRC-32 of every byte before it (a checksum against torn and
 * corrupt files; sha256 took 5 times longer to load). Written to a temp file, fsynced, renamed over.
 *
 * JSON rather than v8.serialize (format 1), which loads as fast: V8's JSON parser keeps one copy of
 * each short string (a status, a word of the search lists) where the deserializer makes one per
 * occurrence, and a full-size store took 906 MB of heap from v8 frames against 655 MB from JSON.
 * Read models hold JSON-shaped data only (the embedded store copies them as such).
 */
export const SNAPSHOT_FILE = 'readstore.snapshot';
const MAGIC = Buffer.from('DESKREADSTORE\n');
export const SNAPSHOT_FORMAT = 2;
/** Documents per frame: writing yields to the event loop between frames, so reads keep answering (a frame is one JSON.stringify, some 6 ms at full size). */
const DOCS_PER_FRAME = 1000;
const CHECKSUM_BYTES = 4;

/** Which log a snapshot was taken from: the event at the position its read models reached. */
export interface LogIdentity {
  position: number;
  eventId: string | null;
  /** The event's global chain link (SQLite), or its stream link where the store keeps no global one. */
  link: string | null;
}

interface Header {
  identity: LogIdentity;
  takenAt: string;
  collections: Array<{ name: string; indexes: IndexSpec[]; count: number }>;
}

/** The identity of `events` at `position`: null when the log holds no event there (it is shorter). */
export async function logIdentityAt(events: EventStore, position: number): Promise<LogIdentity | null> {
  if (position === 0) return { position: 0, eventId: null, link: null };
  const [event] = await events.readAll({ from: position, maxCount: 1 });
  if (!event || event.position !== position) return null;
  return { position, eventId: event.id, link: event.chain?.log ?? event.chain?.hash ?? null };
}

const frame = (value: unknown) => {
  const body = Buffer.from(JSON.stringify(value));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length);
  return [length, body];
};

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type SnapshotCollections = ReturnType<MemoryReadStore['dump']>;

/**
 * Writes collections as they were at `identity`: the caller hands over documents nothing changes
 * until the returned promise settles (`MemoryReadStore.freeze`, taken in `ProjectionRunner.exclusive`).
 */
export async function writeSnapshot(dataDir: string, collections: SnapshotCollections, identity: LogIdentity): Promise<{ bytes: number; docs: number }> {
  const target = path.join(dataDir, SNAPSHOT_FILE);
  const temp = `${target}.${process.pid}.tmp`;
  let checksum = 0;
  let file: FileHandle | null = await open(temp, 'w');
  let bytes = 0;
  let docs = 0;
  const write = async (chunks: Buffer[]) => {
    for (const chunk of chunks) {
      checksum = crc32(chunk, checksum);
      bytes += chunk.length;
    }
    await file!.writev(chunks);
  };
  try {
    const version = Buffer.alloc(4);
    version.writeUInt32LE(SNAPSHOT_FORMAT);
    const header: Header = {
      identity,
      takenAt: new Date().toISOString(),
      collections: collections.map(({ name, indexes, docs: all }) => ({ name, indexes, count: all.length })),
    };
    await write([MAGIC, version, ...frame(header)]);
    let frames = 1;
    for (const [c, collection] of collections.entries()) {
      for (let from = 0; from < collection.docs.length; from += DOCS_PER_FRAME) {
        const chunk = collection.docs.slice(from, from + DOCS_PER_FRAME);
        await write(frame({ c, docs: chunk }));
        docs += chunk.length;
        frames++;
        await yieldToEventLoop();
      }
    }
    await write(frame({ end: frames + 1 }));
    const trailer = Buffer.alloc(CHECKSUM_BYTES);
    trailer.writeUInt32LE(checksum);
    await file.write(trailer);
    bytes += CHECKSUM_BYTES;
    await file.sync();
    await file.close();
    file = null;
    await rename(temp, target);
    // The rename itself survives a crash once the directory is synced.
    const directory = await open(dataDir, 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    return { bytes, docs };
  } finally {
    if (file) {
      await file.close().catch(() => undefined);
      await rm(temp, { force: true });
    }
  }
}

/** Removes temp files of writes that a killed process left behind (a snapshot is never read from them). */
export async function removeTornWrites(dataDir: string): Promise<string[]> {
  const names = (await readdir(dataDir).catch(() => [] as string[])).filter((name) => name.startsWith(`${SNAPSHOT_FILE}.`) && name.endsWith('.tmp'));
  // Another live process on the same DATA_DIR (npm run workers) may be writing its own.
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  };
  const stale = names.filter((name) => {
    const pid = Number(name.slice(SNAPSHOT_FILE.length + 1, -'.tmp'.length));
    return !Number.isInteger(pid) || pid <= 0 || !alive(pid);
  });
  for (const name of stale) await rm(path.join(dataDir, name), { force: true });
  return stale;
}

export type SnapshotLoad =
  { ok: true; identity: LogIdentity; collections: Array<{ name: string; docs: Doc[]; indexes: IndexSpec[] }>; bytes: number } | { ok: false; reason: string };

/**
 * Reads and checks a snapshot file; any defect is a reason to refuse it, never an exception. Frame by
 * frame, so the load's peak is the models plus one frame, not the models plus the whole file; the
 * documents are handed out only once the checksum at the end matched.
 */
export async function readSnapshot(dataDir: string): Promise<SnapshotLoad> {
  let file: FileHandle;
  try {
    file = await open(path.join(dataDir, SNAPSHOT_FILE), 'r');
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no snapshot' : `unreadable: ${(error as Error).message}` };
  }
  try {
    const { size } = await file.stat();
    const bodyEnd = size - CHECKSUM_BYTES;
    let position = 0;
    let checksum = 0;
    const read = async (length: number) => {
      if (position + length > bodyEnd) throw new TornError();
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await file.read(buffer, 0, length, position);
      if (bytesRead !== length) throw new TornError();
      position += length;
      checksum = crc32(buffer, checksum);
      return buffer;
    };
    const start = await read(MAGIC.length + 4).catch(() => null);
    if (!start || !start.subarray(0, MAGIC.length).equals(MAGIC)) return { ok: false, reason: 'not a snapshot file' };
    const version = start.readUInt32LE(MAGIC.length);
    if (version !== SNAPSHOT_FORMAT) return { ok: false, reason: `format ${version}, this version reads ${SNAPSHOT_FORMAT}` };
    const next = async () => JSON.parse((await read((await read(4)).readUInt32LE(0))).toString('utf8')) as unknown;
    const header = (await next()) as Header;
    const collections = header.collections.map(({ name, indexes }) => ({ name, indexes, docs: [] as Doc[] }));
    let frames = 1;
    for (;;) {
      const value = (await next()) as { c?: number; docs?: Doc[]; end?: number };
      frames++;
      if (value.end !== undefined) {
        if (value.end !== frames || position !== bodyEnd) return { ok: false, reason: 'frame count mismatch' };
        break;
      }
      const target = collections[value.c ?? -1];
      if (!target || !Array.isArray(value.docs)) return { ok: false, reason: 'malformed frame' };
      for (const doc of value.docs) target.docs.push(doc);
    }
    const trailer = Buffer.alloc(CHECKSUM_BYTES);
    await file.read(trailer, 0, CHECKSUM_BYTES, bodyEnd);
    if (trailer.readUInt32LE(0) !== checksum) return { ok: false, reason: 'checksum mismatch (torn or corrupt)' };
    if (collections.some(({ docs }, index) => docs.length !== header.collections[index]!.count)) return { ok: false, reason: 'document count mismatch' };
    return { ok: true, identity: header.identity, collections, bytes: size };
  } catch (error) {
    // A cut file ends inside a frame; anything else unreadable is corrupt (its checksum would not match).
    return { ok: false, reason: error instanceof TornError ? 'truncated (torn write)' : `malformed (corrupt): ${(error as Error).message}` };
  } finally {
    await file.close();
  }
}

class TornError extends Error {}
