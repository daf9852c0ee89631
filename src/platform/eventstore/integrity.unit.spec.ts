import { GENESIS, canonicalJson, streamLink, verifyStreamEvents } from './integrity';
import type { RecordedEvent } from './port';

const META = { occurredAt: '2026-11-21T09:00:00.000Z', schemaVersion: 1 };
const raw = (revision: number, data: Record<string, unknown> = { n: revision }): RecordedEvent => ({ id: `e${revision}`, streamId: 'ticket-1', revision, position: revision + 1, type: 'T', data, metadata: META });

/** Chains `events` from `from`, as an adapter stores them. */
function chained(events: RecordedEvent[], from = GENESIS): RecordedEvent[] {
  let previous = from;
  return events.map((event) => {
    previous = streamLink(previous, event);
    return { ...event, chain: { hash: previous, log: null } };
  });
}

describe('Hash chains', () => {
  it('when keys come in another order or undefined fields are present, then the canonical text is the same', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe(canonicalJson({ a: { d: [1, { x: 1, y: 2 }] }, b: 1 }));
  });

  it('when a stream began before the chains existed, then its unsealed start is allowed and the rest is checked', () => {
    const events = [raw(0), raw(1), ...chained([raw(2), raw(3)])];
    expect(verifyStreamEvents(events)).toMatchObject({ ok: true, events: 4 });
    const altered = events.map((event) => (event.revision === 3 ? { ...event, data: { n: 99 } } : event));
    expect(verifyStreamEvents(altered).firstBreak).toMatchObject({ revision: 3 });
  });

  it('when a chained stream has an event without a link, then that event is the break', () => {
    const [first, second, third] = chained([raw(0), raw(1), raw(2)]);
    const stripped = { ...second!, chain: undefined };
    expect(verifyStreamEvents([first!, stripped, third!]).firstBreak).toMatchObject({ revision: 1, reason: 'the event carries no hash' });
  });
});
