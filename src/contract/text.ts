import type { z } from 'zod';

/**
 * Characters no form field should carry: C0 and C1 controls (NUL, bell, escape...), DEL, the bidi
 * embeddings, overrides and isolates that make `invoice\u202Etxt.exe` read as `invoiceexe.txt`
 * (the "Trojan Source" set), and the Unicode line and paragraph separators. Tab, line feed and
 * carriage return are allowed where a field may span lines.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\u2028\u2029]/;
/**
 * The left-to-right, right-to-left and Arabic letter marks (U+200E, U+200F, U+061C): invisible, they
 * move only the punctuation and digits beside them. Hebrew, Arabic and Persian writers' editors and
 * keyboards put them into prose (a sentence's closing `!` kept at its end), so a message, a
 * description or a note keeps them; a one-line field (a name, a title, a file name, an answer) is
 * what lists show and people tell apart at a glance, and there they are refused.
 */
const DIRECTION_MARK = /[\u061C\u200E\u200F]/;
const LINE_BREAK = /[\t\n\r]/;
/** Half of a surrogate pair with no other half: not text at all, and it breaks UTF-8 encoders downstream. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/**
 * Text that shows nothing: white space and Unicode's default-ignorable characters (zero-width
 * space and joiners U+200B to U+200D, word joiner U+2060, byte order mark U+FEFF, soft hyphen,
 * variation selectors, Hangul fillers, tags...). Between visible letters they are kept (a joiner
 * builds an emoji or a Persian word); on their own they are no answer.
 */
const NOTHING_VISIBLE = /^[\s\p{Default_Ignorable_Code_Point}]*$/u;

export const isCleanText = (text: string, { multiLine }: { multiLine: boolean }): boolean =>
  !CONTROL.test(text) && !LONE_SURROGATE.test(text) && (multiLine || (!LINE_BREAK.test(text) && !DIRECTION_MARK.test(text)));

/**
 * Whether a text is over a length limit as the limits count it: in characters (Unicode code points),
 * as the HTTP schemas count them, not in UTF-16 units (`length`), where an emoji counts twice. The
 * deciders check the same limits with it, for the channels that skip the schemas (Telegram, e-mail).
 * A text of at most `max` UTF-16 units has at most `max` characters, so only a longer one is counted.
 */
export const longerThan = (text: string, max: number): boolean => {
  if (text.length <= max) return false;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
};

/** True when a reader would see nothing: empty, white space, or only invisible characters. */
export const isBlankText = (text: string): boolean => NOTHING_VISIBLE.test(text);

export const singleLineMessage = (label: string) => `${label} cannot contain line breaks or control characters`;
export const multiLineMessage = (label: string) => `${label} cannot contain control characters`;

/**
 * Text with nothing visible counts as empty, as spaces do once trimmed: a required field then says
 * it is required, an optional one is left blank.
 */
const visibleOrEmpty = <T extends string>(text: T): T => (isBlankText(text) ? ('' as T) : text);

/** A name, title or other one-line field: refused when it holds a line break or a control character. */
export const singleLine = <S extends z.ZodString>(schema: S, label: string): S =>
  schema.overwrite(visibleOrEmpty).refine((text) => isCleanText(text, { multiLine: false }), singleLineMessage(label)) as S;

/** A description, message or template: line breaks and tabs kept, other control characters refused. */
export const multiLine = <S extends z.ZodString>(schema: S, label: string): S =>
  schema.overwrite(visibleOrEmpty).refine((text) => isCleanText(text, { multiLine: true }), multiLineMessage(label)) as S;
