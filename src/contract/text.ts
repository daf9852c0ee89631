import type { z } from 'zod';

/**
 * Characters no form field should carry: C0 and C1 controls (NUL, bell, escape...), DEL, the bidi
 * embeddings, overrides and isolates that make `invoice\u202Etxt.exe` read as `invoiceexe.txt`,
 * and the Unicode line and paragraph separators. Tab, line feed and carriage return are allowed
 * where a field may span lines.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u2028\u2029]/;
const LINE_BREAK = /[\t\n\r]/;
/** Half of a surrogate pair with no other half: not text at all, and it breaks UTF-8 encoders downstream. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isCleanText = (text: string, { multiLine }: { multiLine: boolean }): boolean =>
  !CONTROL.test(text) && !LONE_SURROGATE.test(text) && (multiLine || !LINE_BREAK.test(text));

export const singleLineMessage = (label: string) => `${label} cannot contain line breaks or control characters`;
export const multiLineMessage = (label: string) => `${label} cannot contain control characters`;

/** A name, title or other one-line field: refused when it holds a line break or a control character. */
export const singleLine = <S extends z.ZodType<string, string>>(schema: S, label: string): S =>
  schema.refine((text) => isCleanText(text, { multiLine: false }), singleLineMessage(label)) as S;

/** A description, message or template: line breaks and tabs kept, other control characters refused. */
export const multiLine = <S extends z.ZodType<string, string>>(schema: S, label: string): S =>
  schema.refine((text) => isCleanText(text, { multiLine: true }), multiLineMessage(label)) as S;
