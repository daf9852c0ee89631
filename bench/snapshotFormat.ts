/**
 * `npx tsx --conditions=source bench/snapshotFormat.ts [tickets] [messagesPerTicket]`: how long a read store snapshot of
 * that size takes to write and to load in the formats considered (the JSON frames snapshot.ts
 * writes, the same gzipped, JSON lines). Prints JSON: bytes, write and load ms per format.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { MemoryReadStore } from '../src/platform/readstore/memory';
import { SNAPSHOT_FILE, readSnapshot, writeSnapshot } from '../src/platform/readstore/snapshot';

async function main() {
  const tickets = Number(process.argv[2] ?? 100_000);
  const perTicket = Number(process.argv[3] ?? 5);
  const store = new MemoryReadStore();
  const ticketDocs = store.collection('tickets');
  const messages = store.collection('messages');
  for (let i = 0; i < tickets; i++) {
    await ticketDocs.insertOne({
      _id: `t${i}`,
      ticketId: i,
      title: `Ticket ${i}`,
      description: 'Something is wrong with the thing',
      status: 'open',
      priority: 'high',
      category: { _id: 'c1', name: 'Cat', color: '#fff' },
      customer: { _id: `u${i % 5000}`, username: 'c', firstName: 'C', lastName: 'D' },
      assignedAgent: null,
      createdAt: new Date(i * 60_000).toISOString(),
      updatedAt: new Date(i * 60_000).toISOString(),
      search: `ticket ${i} something is wrong`,
      _revision: 3,
    } as never);
    for (let m = 0; m < perTicket; m++)
      await messages.insertOne({
        _id: `t${i}:${m}`,
        ticket: `t${i}`,
        seq: m + 1,
        content: `Message ${m} of ticket ${i}: hello, I have a question about my order`,
        messageType: 'text',
        isInternal: false,
        platform: 'web',
        sender: { _id: `u${i % 5000}`, firstName: 'C', lastName: 'D', role: 'customer' },
        createdAt: new Date(i * 60_000 + m).toISOString(),
        editedAt: null,
        attachments: [],
        _revision: m,
      } as never);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'snapshot-format-'));
  const time = async (work: () => unknown) => {
    const started = process.hrtime.bigint();
    await work();
    return Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  };
  try {
    const identity = { position: 1, eventId: 'e', link: null };
    const framesWrite = await time(() => writeSnapshot(dir, store.dump(), identity));
    const file = path.join(dir, SNAPSHOT_FILE);
    const framesBytes = readFileSync(file).length;
    const framesLoad = await time(async () => {
      const loaded = await readSnapshot(dir);
      if (!loaded.ok) throw new Error(loaded.reason);
      await new MemoryReadStore().restore(loaded.collections);
    });
    const gz = path.join(dir, 'snapshot.gz');
    const gzipWrite = await time(() => writeFileSync(gz, gzipSync(readFileSync(file), { level: 1 })));
    const gzipLoad = await time(async () => {
      writeFileSync(file, gunzipSync(readFileSync(gz)));
      const loaded = await readSnapshot(dir);
      if (!loaded.ok) throw new Error(loaded.reason);
      await new MemoryReadStore().restore(loaded.collections);
    });
    const jsonFile = path.join(dir, 'snapshot.jsonl');
    const jsonWrite = await time(() =>
      writeFileSync(
        jsonFile,
        store
          .dump()
          .map((collection) => collection.docs.map((doc) => JSON.stringify(doc)).join('\n'))
          .join('\n'),
      ),
    );
    const jsonLoad = await time(() =>
      readFileSync(jsonFile, 'utf8')
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    );
    process.stdout.write(
      `${JSON.stringify({ tickets, messages: tickets * perTicket, frames: { bytes: framesBytes, writeMs: framesWrite, loadMs: framesLoad }, framesGzip1: { bytes: readFileSync(gz).length, extraWriteMs: gzipWrite, loadMs: gzipLoad }, jsonLines: { writeMs: jsonWrite, parseMsWithoutRestore: jsonLoad } })}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
