import type { EventStore, RecordedEvent } from '../platform/eventstore/port';
import { MemoryReadStore } from '../platform/readstore/memory';
import type { Collection, Doc, ReadStore } from '../platform/readstore/port';
import { DIRECTORY } from '../projections/directory';
import { TICKETS } from '../projections/tickets';
import { USERS } from '../projections/users';
import { customerNoticeOf } from './ticketNotices';
import type { ReactionPage } from './reactor';

/** A read store that counts the documents asked for by id, per collection. */
function countingStore() {
  const inner = new MemoryReadStore();
  const reads = new Map<string, number>();
  const store = new Proxy(inner, {
    get(target, property) {
      if (property !== 'collection') return Reflect.get(target, property, target);
      return <T extends Doc>(name: string): Collection<T> => {
        const collection = target.collection<T>(name);
        return new Proxy(collection, {
          get(wrapped, key) {
            if (key === 'findOne')
              return (filter: Parameters<Collection<T>['findOne']>[0]) => {
                reads.set(name, (reads.get(name) ?? 0) + 1);
                return wrapped.findOne(filter);
              };
            const value: unknown = Reflect.get(wrapped, key, wrapped);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(wrapped) : value;
          },
        });
      };
    },
  }) as ReadStore;
  return { inner, store, reads };
}

/** A page as the reactor makes one: `once` loads each key once for the page. */
function pageOf(events: RecordedEvent[]): ReactionPage {
  const loaded = new Map<string, Promise<unknown>>();
  return { events, once: <T>(key: string, load: () => Promise<T>) => (loaded.get(key) ?? loaded.set(key, load()).get(key)!) as Promise<T> };
}

let position = 0;
const posted = (content: string, data: Record<string, unknown> = {}): RecordedEvent => {
  position += 1;
  return {
    id: `event-${position}`,
    streamId: 'ticket-t1',
    revision: position,
    position,
    type: 'MessagePosted',
    data: { ticketId: 't1', messageId: `m${position}`, senderId: 'agent-1', senderRole: 'agent', content, isInternal: false, attachments: [], ...data },
    metadata: { occurredAt: '2026-11-29T10:00:00.000Z', schemaVersion: 1 },
  } as RecordedEvent;
};

/** Bulk changes are the only notices that read the log; these events are none. */
const noLog = {} as EventStore;

describe("A customer's notices in a reactor's page", () => {
  async function desk() {
    const counted = countingStore();
    // Only the fields a notice reads.
    const put = (name: string, doc: Doc & Record<string, unknown>) => counted.inner.collection<Doc & Record<string, unknown>>(name).insertOne(doc);
    await put(TICKETS, { _id: 't1', ticketId: 7, title: 'Printer', customer: { _id: 'customer-1' } });
    await put(USERS, { _id: 'customer-1', firstName: 'Cara', email: 'cara@example.com', telegramId: '42', isActive: true });
    await put(DIRECTORY, { _id: 'user:agent-1', firstName: 'Alice', lastName: 'Agent' });
    return counted;
  }

  it('when two channels ask for the notices of three replies to one ticket, then the ticket, its customer and the sender are each read once', async () => {
    const { store, reads } = await desk();
    const events = [
      posted('One'),
      posted('Two'),
      posted('A note', { isInternal: true }),
      posted('Three'),
      posted('Mine', { senderRole: 'customer', senderId: 'customer-1' }),
    ];
    const page = pageOf(events);
    const answers = [];
    for (const event of events) for (let channel = 0; channel < 2; channel++) answers.push((await customerNoticeOf(event, store, noLog, page))?.notice ?? null);
    expect(answers).toEqual([
      ...Array(2).fill({ kind: 'reply', content: 'One', senderName: 'Alice Agent', files: [] }),
      ...Array(2).fill({ kind: 'reply', content: 'Two', senderName: 'Alice Agent', files: [] }),
      null,
      null,
      ...Array(2).fill({ kind: 'reply', content: 'Three', senderName: 'Alice Agent', files: [] }),
      null,
      null,
    ]);
    expect(Object.fromEntries(reads)).toEqual({ [TICKETS]: 1, [USERS]: 1, [DIRECTORY]: 1 });
  });

  it('when no page is given, then each call reads what it needs again', async () => {
    const { store, reads } = await desk();
    const reply = posted('One');
    expect((await customerNoticeOf(reply, store, noLog))?.customer.telegramId).toBe('42');
    expect((await customerNoticeOf(reply, store, noLog))?.ticket.ticketId).toBe(7);
    expect(Object.fromEntries(reads)).toEqual({ [TICKETS]: 2, [USERS]: 2, [DIRECTORY]: 2 });
  });
});
