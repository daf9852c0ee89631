import { nameBasedId } from './ids';

describe('nameBasedId', () => {
  it('gives the same UUID for the same name and different ones for different names', () => {
    const id = nameBasedId('telegram-message:1:2');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nameBasedId('telegram-message:1:2')).toBe(id);
    expect(nameBasedId('telegram-message:1:3')).not.toBe(id);
  });
});
