import { formatDuration, formatKb, fullName, initialsOf, plural, timeAgo, waitedForShort } from './format';

describe('Display formats (docs/product.md section 9)', () => {
  it.each([
    [undefined, '0m'],
    [0, '0m'],
    [0.5, '< 1m'],
    [42, '42m'],
    [90, '2h'],
    [1439, '24h'],
    [1440, '1d'],
    [4320, '3d'],
  ])('when a duration is %p minutes, then it reads %p', (minutes, text) => {
    expect(formatDuration(minutes)).toBe(text);
  });

  it('when a size is shown, then it is in KB', () => {
    expect(formatKb(2048)).toBe('2.0 KB');
    expect(formatKb(1536)).toBe('1.5 KB');
  });

  it('when initials and names are built, then blanks are skipped', () => {
    expect(initialsOf('cara', 'customer')).toBe('CC');
    expect(initialsOf('', '')).toBe('?');
    expect(fullName({ firstName: 'Cara', lastName: '' })).toBe('Cara');
  });

  it('when a time is relative, then it reads Just now, mins, hours, days, then a date after 7 days', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    const ago = (ms: number) => new Date(now - ms).toISOString();
    expect(timeAgo(ago(10_000), now)).toBe('Just now');
    expect(timeAgo(ago(60_000), now)).toBe('1 min ago');
    expect(timeAgo(ago(5 * 60_000), now)).toBe('5 mins ago');
    expect(timeAgo(ago(3 * 3_600_000), now)).toBe('3 hours ago');
    expect(timeAgo(ago(2 * 86_400_000), now)).toBe('2 days ago');
    expect(timeAgo(ago(9 * 86_400_000), now)).toBe(new Date(now - 9 * 86_400_000).toLocaleDateString());
  });

  it('when a count is shown with its noun, then one is singular and any other number plural (issue 25)', () => {
    expect([plural(0, 'use'), plural(1, 'use'), plural(2, 'use'), plural(1, 'ticket'), plural(5, 'ticket')]).toEqual([
      '0 uses',
      '1 use',
      '2 uses',
      '1 ticket',
      '5 tickets',
    ]);
  });

  it('when a wait is shown in a table cell, then it is as short as it can be (issue 41)', () => {
    const now = Date.parse('2026-11-21T12:00:00.000Z');
    const ago = (ms: number) => new Date(now - ms).toISOString();
    expect([ago(30_000), ago(5 * 60_000), ago(3 * 3_600_000), ago(2 * 86_400_000)].map((at) => waitedForShort(at, now))).toEqual([
      '<1 min',
      '5 min',
      '3 h',
      '2 d',
    ]);
  });
});
