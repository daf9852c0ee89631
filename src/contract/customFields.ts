import type { CustomField } from './categories';
import type { Attachment, CustomFieldValue } from './tickets';
import { type ErrorDetail, ValidationError } from './errors';
import { compilePattern } from './pattern';
import { isBlankText, isCleanText, multiLineMessage, singleLineMessage } from './text';

/** An answer as the caller sent it: text, a number, or a file stored for a text field. */
export type CustomFieldAnswer = string | number | Attachment;

const TEXT_ANSWER_MAX = 2000;

/** A prompt this long, or written as a sentence or question, is no name for an error message. */
const LABEL_MAX = 40;

/**
 * How errors name a field: its prompt when that reads as a name ("Order number"), otherwise its
 * field name in words ("order_number" → "Order number") rather than a whole question.
 */
export function fieldLabel(field: Pick<CustomField, 'fieldName' | 'prompt'>): string {
  const prompt = field.prompt.trim();
  if (prompt.length <= LABEL_MAX && !/[.?!:\n]/.test(prompt)) return prompt;
  const words = field.fieldName
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const isAttachment = (value: CustomFieldAnswer): value is Attachment => typeof value === 'object';
const isBlank = (value: CustomFieldAnswer) => typeof value === 'string' && isBlankText(value);

/**
 * Answers by field name, read as own entries only: a field may be named `constructor`, `toString`
 * or `valueOf`, which a plain object also answers through its prototype (a blank required field
 * would read as a function). Every reader of answers keyed by field name goes through this.
 */
export const answerOf = <T>(answers: Readonly<Record<string, T>>, fieldName: string): T | undefined =>
  Object.hasOwn(answers, fieldName) ? answers[fieldName] : undefined;

function checkNumber(field: CustomField, raw: CustomFieldAnswer): number | string {
  if (isAttachment(raw)) return `${fieldLabel(field)} must be a number, not a file`;
  const value = typeof raw === 'number' ? raw : Number(raw.trim());
  if (!Number.isFinite(value)) return `${fieldLabel(field)} must be a number`;
  const { min, max } = field.validation;
  if (min !== undefined && value < min) return `${fieldLabel(field)} must be at least ${min}`;
  if (max !== undefined && value > max) return `${fieldLabel(field)} must be at most ${max}`;
  return value;
}

function checkText(field: CustomField, raw: CustomFieldAnswer): CustomFieldAnswer | { error: string } {
  if (isAttachment(raw)) return raw;
  const value = String(raw).trim();
  const { minLength, maxLength, pattern } = field.validation;
  if (!isCleanText(value, { multiLine: field.fieldType === 'textarea' })) {
    return { error: field.fieldType === 'textarea' ? multiLineMessage(fieldLabel(field)) : singleLineMessage(fieldLabel(field)) };
  }
  if (value.length > Math.min(maxLength ?? TEXT_ANSWER_MAX, TEXT_ANSWER_MAX))
    return { error: `${fieldLabel(field)} must be at most ${Math.min(maxLength ?? TEXT_ANSWER_MAX, TEXT_ANSWER_MAX)} characters` };
  if (minLength !== undefined && value.length < minLength) return { error: `${fieldLabel(field)} must be at least ${minLength} characters` };
  if (pattern !== undefined) {
    const compiled = compilePattern(pattern);
    // A pattern stored before RE2 syntax was required is refused rather than skipped or backtracked.
    if (!compiled.ok) return { error: `${fieldLabel(field)} cannot be checked: its format rule is not supported; please ask an admin to fix the category` };
    if (!compiled.test(value)) return { error: `${fieldLabel(field)} does not have the expected format` };
  }
  return value;
}

/**
 * Checks a ticket's answers against its category's custom fields (docs/product.md section 3): required
 * fields answered, numbers in range, texts within length and pattern; unknown fields refused.
 * Returns the answers in field order with each field's prompt, as the ticket records them.
 */
export function answerCustomFields(fields: CustomField[], answers: Readonly<Record<string, CustomFieldAnswer>>): CustomFieldValue[] {
  const details: ErrorDetail[] = [];
  const known = new Set(fields.map((field) => field.fieldName));
  for (const name of Object.keys(answers)) {
    if (!known.has(name)) details.push({ path: `customFieldValues.${name}`, message: `Unknown custom field: ${name}` });
  }
  const values: CustomFieldValue[] = [];
  for (const field of [...fields].sort((a, b) => a.order - b.order)) {
    const raw = answerOf(answers, field.fieldName);
    const path = `customFieldValues.${field.fieldName}`;
    if (raw === undefined || isBlank(raw)) {
      if (field.required) details.push({ path, message: `${fieldLabel(field)} is required` });
      continue;
    }
    if (field.fieldType === 'number') {
      const checked = checkNumber(field, raw);
      if (typeof checked === 'string') details.push({ path, message: checked });
      else values.push({ fieldName: field.fieldName, fieldPrompt: field.prompt, value: checked });
      continue;
    }
    const checked = checkText(field, raw);
    if (typeof checked === 'object' && 'error' in checked) details.push({ path, message: checked.error });
    else values.push({ fieldName: field.fieldName, fieldPrompt: field.prompt, value: checked });
  }
  if (details.length > 0) throw new ValidationError(details[0]!.message, details);
  return values;
}
