import { addWhitelistSchema, normaliseTelegramId, updateWhitelistSchema } from './whitelist';

const idOf = (telegramId: unknown) => {
  const result = addWhitelistSchema.safeParse({ telegramId });
  return result.success ? result.data.telegramId : result.error.issues[0]!.message;
};

describe('Whitelist Telegram IDs', () => {
  it.each([['00123'], ['+123'], [' 123 '], ['+00 123'], ['1 2 3'], [123], ['\t0123\n']])('when %j is given, then it is the ID 123', (given) => {
    expect(idOf(given)).toBe('123');
  });

  it('when the edit form sends the ID back in another spelling, then it is the same ID', () => {
    expect(updateWhitelistSchema.parse({ telegramId: '000123' }).telegramId).toBe('123');
  });

  it('when nothing, zero or not a number is given, then it is refused with a message', () => {
    expect(idOf('  ')).toBe('Telegram ID is required');
    expect(idOf('000')).toBe('Telegram ID must be a positive number');
    expect(idOf('+')).toBe('Telegram ID must be a number (find it with a helper bot such as @userinfobot)');
    expect(idOf('12a')).toBe('Telegram ID must be a number (find it with a helper bot such as @userinfobot)');
    expect(idOf('-100123')).toBe('Telegram ID must be a number (find it with a helper bot such as @userinfobot)');
  });

  it('when a JSON number is not a whole number held exactly, or not a number or text at all, then it is refused as no number', () => {
    for (const given of [1.5, -5, 1e20, 2 ** 53 + 2, true, {}, ['123']])
      expect(idOf(given)).toBe('Telegram ID must be a number (find it with a helper bot such as @userinfobot)');
    expect(idOf(undefined)).toBe('Telegram ID is required');
    expect(idOf(2 ** 40)).toBe(String(2 ** 40));
  });

  it('when a lookup key is not digits, then it is left as typed (a record id)', () => {
    expect(normaliseTelegramId('6f1c-0012')).toBe('6f1c-0012');
  });
});
