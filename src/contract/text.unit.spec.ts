import { z } from 'zod';
import { isBlankText, isCleanText, multiLine, singleLine } from './text';

const title = singleLine(z.string().trim(), 'Title').min(1, 'Title is required');
const notes = multiLine(z.string().trim(), 'Notes');
const firstIssue = (result: z.ZodSafeParseResult<string>) => (result.success ? null : result.error.issues[0]!.message);

/** Every character that shows nothing on its own, as the sweep of issue 40 sent them. */
const INVISIBLE = ['\u200B', '\u200C', '\u200D', '\u200E', '\u200F', '\u061C', '\u2060', '\uFEFF', '\u00AD', '\u202A', '\u202E', '\u2066', '\u2069'];

describe('Text fields', () => {
  describe('when a text shows nothing', () => {
    it.each(INVISIBLE)('then U+%s alone counts as blank', (mark) => {
      expect(isBlankText(mark)).toBe(true);
      expect(isBlankText(` ${mark}${mark}\n`)).toBe(true);
    });

    it('then a required field says it is required and an optional one is left blank', () => {
      expect(firstIssue(title.safeParse('\u200B\u200E\u200F'))).toBe('Title is required');
      expect(firstIssue(title.safeParse('\u061C \uFEFF\u2060'))).toBe('Title is required');
      expect(notes.parse('\u200C\u200D\n\u200B')).toBe('');
    });
  });

  describe('when invisible characters stand between visible ones', () => {
    it('then joiners and zero-width spaces are kept: they build emoji and words', () => {
      expect(isBlankText('👩\u200D💻')).toBe(false);
      expect(title.parse('👩\u200D💻 laptop')).toBe('👩\u200D💻 laptop');
      expect(title.parse('می\u200Cخواهم')).toBe('می\u200Cخواهم');
    });

    it('then embeddings, overrides and isolates are refused everywhere, as control characters are', () => {
      for (const mark of ['\u202A', '\u202E', '\u2067', '\u2069']) {
        expect(isCleanText(`invoice${mark}txt.exe`, { multiLine: true })).toBe(false);
        expect(firstIssue(title.safeParse(`invoice${mark}txt.exe`))).toBe('Title cannot contain line breaks or control characters');
        expect(firstIssue(notes.safeParse(`paid ${mark}100`))).toBe('Notes cannot contain control characters');
      }
    });

    it('then direction marks are kept in prose (right-to-left writing carries them) and refused in one-line fields', () => {
      for (const mark of ['\u200E', '\u200F', '\u061C']) {
        expect(notes.parse(`שלום${mark}!`)).toBe(`שלום${mark}!`);
        expect(isCleanText(`invoice${mark}txt.exe`, { multiLine: false })).toBe(false);
        expect(firstIssue(title.safeParse(`invoice${mark}txt.exe`))).toBe('Title cannot contain line breaks or control characters');
      }
    });
  });
});
