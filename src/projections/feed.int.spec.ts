import type { RecordedEvent } from '../platform/eventstore/port';
import { MemoryReadStore } from '../platform/readstore/memory';
import { customerPositions, feedProjection, feedTickets } from './feed';

const CUSTOMER = 'c1';
/** A ticket of CUSTOMER: opened, then replies, every fourth one an internal note (not the customer's to see). */
function ticketEvents(count: number): RecordedEvent[] {
  return Array.from({ length: count }, (_, index) => {
    const position = index + 1;
    const data = index === 0 ? { ticketId: 't1', customerId: CUSTOMER } : { ticketId: 't1', messageId: `m${position}`, isInternal: position % 4 === 0 };
    return {
      id: `e${position}`,
      streamId: 'ticket-t1',
      revision: index,
      position,
      type: index === 0 ? 'TicketOpened' : 'MessagePosted',
      data,
      metadata: { occurredAt: '2026-11-28T00:00:00.000Z', schemaVersion: 1 },
    };
  });
}

describe('The feed projection', () => {
  it('when a page is replayed with other bounds than the first time (a crash before the checkpoint), then the customer’s positions are those of one pass', async () => {
    const events = ticketEvents(12);
    const once = new MemoryReadStore();
    await feedProjection.applyPage!(events, once);

    const replayed = new MemoryReadStore();
    await feedProjection.applyPage!(events.slice(0, 10), replayed);
    await feedProjection.applyPage!(events.slice(0, 7), replayed);
    await feedProjection.applyPage!(events, replayed);

    const expected = [1, 2, 3, 5, 6, 7, 9, 10, 11];
    expect(await customerPositions(once, CUSTOMER)).toEqual(expected);
    expect(await customerPositions(replayed, CUSTOMER)).toEqual(expected);
    expect((await feedTickets(replayed, ['t1'])).get('t1')).toEqual({ customerId: CUSTOMER, notes: new Set(['m4', 'm8', 'm12']) });
  });
});
