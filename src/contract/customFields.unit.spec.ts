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
