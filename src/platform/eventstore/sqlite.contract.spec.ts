import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WrongExpectedVersionError } from './port';
import { SqliteEventStore } from './sqlite';

const META = { occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 };

describe('SqliteEventStore shared by two processes (one file, two connections)', () => {
  let dir: string;
  let writer: SqliteEventStore;
  let reader: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'es-shared-'));
    writer = new SqliteEventStore({ filename: path.join(dir, 'events.db') });
    reader = new SqliteEventStore({ filename: path.join(dir, 'events.db'), pollIntervalMs: 10 });
  });
  afterEach(async () => {
    await writer.close();
    await reader.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the other connection appends, then a live subscription here sees it', async () => {
    const seen: string[] = [];
    const subscription = reader.subscribeToAll({ onEvent: (event) => void seen.push(event.type) });
    await writer.append('ticket-1', [{ type: 'TicketOpened', data: {}, metadata: META }], 'no_stream');
    const deadline = Date.now() + 3000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.stop();
    expect(seen).toEqual(['TicketOpened']);
  });

  it('when both connections append with the same expected revision, then exactly one wins', async () => {
    await writer.append('ticket-1', [{ type: 'TicketOpened', data: {}, metadata: META }], 'no_stream');
    await writer.append('ticket-1', [{ type: 'A', data: {}, metadata: META }], 0);
    await expect(reader.append('ticket-1', [{ type: 'B', data: {}, metadata: META }], 0)).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect((await reader.readStream('ticket-1')).map((event) => event.type)).toEqual(['TicketOpened', 'A']);
  });
});
