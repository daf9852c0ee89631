import { eventually } from '../../test/support/eventually';
import type { RecordedEvent } from '../platform/eventstore/port';
import { SqliteEventStore } from '../platform/eventstore/sqlite';
import { LogProcessor } from './processor';

const metadata = { occurredAt: '2026-03-01T10:00:00.000Z', schemaVersion: 1 };
const append = (events: SqliteEventStore, streamId: string, ...types: string[]) =>
  events.append(
    streamId,
    types.map((type) => ({ type, data: {}, metadata })),
  );

describe('LogProcessor', () => {
  let events: SqliteEventStore;
  beforeEach(() => {
    events = new SqliteEventStore({ filename: ':memory:' });
  });
  afterEach(() => events.close());

  it('when it handles some event types, then it sees only those, in order, and its checkpoint covers the others too', async () => {
    await append(events, 'a-1', 'Wanted', 'Other', 'Wanted');
    const seen: string[] = [];
    const saved: number[] = [];
    const processor = new LogProcessor(events, {
      id: 'test',
      types: new Set(['Wanted']),
      pageSize: 2,
      handle: async (page: RecordedEvent[]) => {
        seen.push(...page.map((event) => `${event.type}@${event.position}`));
        return page.at(-1)!.position;
      },
      checkpoint: { load: async () => 0, save: async (position) => void saved.push(position) },
    });
    await processor.start();
    expect(seen).toEqual(['Wanted@1', 'Wanted@3']);
    expect(processor.position).toBe(3);
    expect(processor.isLive).toBe(true);

    const { position } = await append(events, 'a-1', 'Other', 'Wanted', 'Other');
    await eventually(() => processor.position === position, { describe: 'the live events were reached' });
    expect(seen).toEqual(['Wanted@1', 'Wanted@3', `Wanted@${position - 1}`]);
    await processor.stop();
    expect(saved.at(-1)).toBe(position);
    expect(processor.eventsProcessed).toBe(3);
  });

  it('when it is stopped part way through a page, then it resumes from the last event it finished', async () => {
    await append(events, 'a-1', 'E', 'E', 'E', 'E');
    let stored = 0;
    const handled: number[] = [];
    const make = (stopAfter: number | null) => {
      const processor: LogProcessor = new LogProcessor(events, {
        id: 'test',
        handle: async (page, context) => {
          let reached = 0;
          for (const event of page) {
            if (context.stopping()) return reached;
            handled.push(event.position);
            reached = event.position;
            if (event.position === stopAfter) void processor.stop();
          }
          return reached;
        },
        checkpoint: { load: async () => stored, save: async (position) => void (stored = position) },
      });
      return processor;
    };
    const first = make(2);
    await first.start();
    await first.stop();
    expect(stored).toBe(2);
    const second = make(null);
    await second.start();
    await second.stop();
    expect(handled).toEqual([1, 2, 3, 4]);
    expect(stored).toBe(4);
  });

  it('when events arrive live while a page is handled, then the next page takes them all, each once and in order', async () => {
    const pages: number[][] = [];
    let release: () => void = () => undefined;
    const processor = new LogProcessor(events, {
      id: 'test',
      handle: async (page) => {
        pages.push(page.map((event) => event.position));
        // The first live page is held until the other appends are in the log.
        if (pages.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return page.at(-1)!.position;
      },
      checkpoint: { load: async () => 0, save: async () => undefined },
    });
    await processor.start();
    await append(events, 'a-1', 'E');
    await eventually(() => pages.length === 1, { describe: 'the first live page is being handled' });
    let last = 0;
    for (let i = 0; i < 30; i++) last = (await append(events, `b-${i}`, 'E')).position;
    release();
    await eventually(() => processor.position === last, { describe: 'every live event was handled' });
    await processor.stop();
    expect(pages.flat()).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    // Not one page per event: what waited was handled together.
    expect(pages.length).toBeLessThan(10);
    expect(processor.eventsProcessed).toBe(31);
  });

  it('when a live page fails, then it resumes from the position reached and handles the failed events again, in order', async () => {
    const handled: number[] = [];
    let failures = 0;
    const processor = new LogProcessor(events, {
      id: 'test',
      restartAfterMs: 10,
      handle: async (page) => {
        if (page.some((event) => event.position === 3) && failures++ === 0) throw new Error('store away');
        handled.push(...page.map((event) => event.position));
        return page.at(-1)!.position;
      },
      checkpoint: { load: async () => 0, save: async () => undefined },
      onError: () => undefined,
    });
    await processor.start();
    await append(events, 'a-1', 'E', 'E');
    await eventually(() => processor.position === 2, { describe: 'the first events were handled' });
    const { position } = await append(events, 'a-1', 'E', 'E', 'E');
    await eventually(() => processor.position === position, { describe: 'the failed page was handled again' });
    await processor.stop();
    expect(failures).toBe(2);
    expect(handled).toEqual([1, 2, 3, 4, 5]);
  });
});
