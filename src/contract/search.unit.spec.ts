import { searchQuery } from './search';

describe('search query', () => {
  it('reads a date alone as its whole day (UTC): from its first millisecond, to its last', () => {
    const query = searchQuery.parse({ q: 'refund', createdFrom: '2026-11-21', createdTo: '2026-11-21', updatedFrom: '2026-11-01', updatedTo: '2026-11-30' });
    expect(query).toMatchObject({
      createdFrom: '2026-11-21T00:00:00.000Z',
      createdTo: '2026-11-21T23:59:59.999Z',
      updatedFrom: '2026-11-01T00:00:00.000Z',
      updatedTo: '2026-11-30T23:59:59.999Z',
    });
  });

  it('keeps a date and time as given, in UTC, and refuses anything else with the field named', () => {
    expect(searchQuery.parse({ q: 'x', createdTo: '2026-11-21T09:30:00+02:00' }).createdTo).toBe('2026-11-21T07:30:00.000Z');
    const refused = searchQuery.safeParse({ q: 'x', updatedTo: 'yesterday' });
    expect(refused.success).toBe(false);
    expect(JSON.stringify(refused.error?.issues)).toContain('updatedTo must be an ISO-8601');
  });
});
