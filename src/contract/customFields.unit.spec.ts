import type { CustomField } from './categories';
import { ValidationError } from './errors';
import { answerCustomFields, fieldLabel } from './customFields';

const field = (fieldName: string, prompt: string, extra: Partial<CustomField> = {}): CustomField =>
  ({ fieldName, fieldType: 'text', prompt, placeholder: '', required: true, validation: {}, order: 0, ...extra }) as CustomField;

describe('Custom field errors', () => {
  it('when the prompt reads as a name, then errors use it', () => {
    expect(fieldLabel(field('order', 'Order number'))).toBe('Order number');
  });

  it('when the prompt is a question or a long instruction, then errors name the field instead', () => {
    expect(fieldLabel(field('order_number', 'What is the order number on your invoice?'))).toBe('Order number');
    expect(fieldLabel(field('serialNumber', 'Please type the serial number printed on the back of the device'))).toBe('Serial number');
    expect(() => answerCustomFields([field('order_number', 'What is the order number on your invoice?')], {})).toThrow(
      new ValidationError('Order number is required'),
    );
  });
});

describe('Custom fields named after object members', () => {
  const MEMBERS = [
    field('constructor', 'Constructor'),
    field('toString', 'Reference'),
    field('valueOf', 'Amount', { fieldType: 'number', required: false, order: 2 }),
    field('hasOwnProperty', 'Owner', { required: false, order: 3 }),
  ];

  it('when required ones are left out, then each is required rather than answered by the prototype', () => {
    const refused = () => answerCustomFields(MEMBERS, {});
    expect(refused).toThrow(new ValidationError('Constructor is required'));
    try {
      refused();
    } catch (error) {
      expect((error as ValidationError).details.map((detail) => detail.path)).toEqual(['customFieldValues.constructor', 'customFieldValues.toString']);
    }
  });

  it('when an optional number is left out, then the answers are accepted without it', () => {
    expect(answerCustomFields(MEMBERS, { constructor: 'Lego', toString: 'R-1' }).map(({ fieldName, value }) => [fieldName, value])).toEqual([
      ['constructor', 'Lego'],
      ['toString', 'R-1'],
    ]);
  });

  it('when answered, then the answers are kept under those names', () => {
    const answers = JSON.parse('{"constructor":"Lego","toString":"R-1","valueOf":"12","hasOwnProperty":"Me"}') as Record<string, string>;
    expect(answerCustomFields(MEMBERS, answers).map(({ value }) => value)).toEqual(['Lego', 'R-1', 12, 'Me']);
  });

  it('when a field stored before the name was refused is called __proto__, then its answer is read as an own entry, never as the prototype', () => {
    const proto = [field('__proto__', 'Proto')];
    expect(() => answerCustomFields(proto, {})).toThrow(new ValidationError('Proto is required'));
    const answers = JSON.parse('{"__proto__":"given"}') as Record<string, string>;
    expect(answerCustomFields(proto, answers).map(({ value }) => value)).toEqual(['given']);
    expect(() => answerCustomFields([], answers)).toThrow(new ValidationError('Unknown custom field: __proto__'));
  });

  it('when a required text answer shows nothing (zero-width or direction marks only), then it is required', () => {
    expect(() => answerCustomFields([field('order', 'Order number')], { order: '\u200B\u200F' })).toThrow(new ValidationError('Order number is required'));
    expect(() => answerCustomFields([field('order', 'Order number')], { order: 'A\u200F1' })).toThrow(
      new ValidationError('Order number cannot contain line breaks or control characters'),
    );
  });
});
