import { GENESIS, canonicalJson, streamLink, verifyStreamEvents } from './integrity';
import type { RecordedEvent } from './port';

const META = { occurredAt: '2026-11-21T09:00:00.000Z', schemaVersion: 1 };
const raw = (revision: number, data: Record<string, unknown> = { n: revision }): RecordedEvent => ({
  id: `e${revision}`,
  streamId: 'ticket-1',
  revision,
  position: revision + 1,
  type: 'T',
  data,
  metadata: META,
});

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

  it('when values are awkward, then the text is exactly that of JSON.stringify with a sorting replacer, as stored links were made', () => {
    const sortKeys = (_key: string, value: unknown) =>
      value === null || typeof value !== 'object' || Array.isArray(value)
        ? value
        : Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, (value as Record<string, unknown>)[key]]),
          );
    const samples: unknown[] = [
      { content: 'It jams', attachments: [{ size: 3, fileId: 'f' }], isInternal: false, nested: { z: null, a: [undefined, () => 1, NaN, -0, 1e21] } },
      { 10: 'ten', 2: 'two', b: 1, a: 2, '01': 'not an index', '4294967295': 'too big', '-1': 'negative' },
      { when: new Date('2026-01-01T00:00:00Z'), boxed: [new Number(1), new String('s'), new Boolean(false)], custom: { toJSON: (key: string) => `as ${key}` } },
      { é: 1, e: 2, E: 3, '\u0000': 4, quote: 'say "hi"\n' },
      [],
      {},
      'text',
      42,
      null,
    ];
    for (const sample of samples) expect(canonicalJson(sample)).toBe(JSON.stringify(sample, sortKeys));
    expect(canonicalJson(undefined)).toBe('null');
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
