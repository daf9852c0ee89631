import { MAX_QUERY_LENGTH, MAX_QUERY_WORDS } from '#contract/search';

/**
 * Words of a text as the search index and the query both see them (docs/search.md): split at
 * spaces, line breaks, punctuation and symbols, then case- and accent-folded. Pure: the postings,
 * the query parser, the ranking (handed to MiniSearch as its tokenizer) and the highlighter all go
 * through here, so they always agree on what a word is.
 */
const WORD = /[^\n\r\p{Z}\p{P}\p{S}]+/gu;

/** Longer runs of letters (a pasted hash, a base64 blob) are cut: no word of a language is longer. */
export const MAX_WORD_LENGTH = 40;

const PLAIN = /^[\x21-\x7e]*$/;

/** Lower case without accents: `Résumé` and `RESUME` are one word. Plain ASCII (most words) skips the Unicode decomposition. */
export const normalise = (word: string) => (PLAIN.test(word) ? word : word.normalize('NFKD').replace(/\p{M}+/gu, '')).toLowerCase().slice(0, MAX_WORD_LENGTH);

/** A word of a text with where it stands, for highlighting. */
export interface Span {
  term: string;
  start: number;
  end: number;
}

export function spans(text: string): Span[] {
  const found: Span[] = [];
  for (const match of text.matchAll(WORD)) {
    const term = normalise(match[0]);
    if (term) found.push({ term, start: match.index, end: match.index + match[0].length });
  }
  return found;
}

/** What ends a word outside ASCII: the classes `WORD` leaves out. */
const NOT_WORD = /[\n\r\p{Z}\p{P}\p{S}]/u;

/** ASCII letters and digits. */
const isAlphanumeric = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
/** Within ASCII, `WORD` leaves out line breaks, the space and the printable punctuation and symbols; control characters belong to words. */
const isAsciiWordCode = (code: number) => isAlphanumeric(code) || (code < 32 && code !== 10 && code !== 13) || code === 127;

/**
 * The normalised words of a text, in order (repeats kept): the words `spans` finds (the unit tests
 * hold the two to that), found by character code instead of a Unicode regex, which is several times
 * faster and a replay tokenises every message. A word of ASCII letters and digits (most words) is
 * only lower-cased; any other goes through `normalise`. Only characters outside ASCII are
 * classified by a regex.
 */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  let plain = true;
  for (let i = 0; i <= text.length;) {
    let width = 1;
    let inWord = false;
    let alphanumeric = false;
    if (i < text.length) {
      const code = text.charCodeAt(i);
      if (code < 128) {
        alphanumeric = isAlphanumeric(code);
        inWord = alphanumeric || isAsciiWordCode(code);
      } else {
        const point = text.codePointAt(i)!;
        width = point > 0xffff ? 2 : 1;
        inWord = !NOT_WORD.test(String.fromCodePoint(point));
      }
    }
    if (inWord) {
      if (start < 0) {
        start = i;
        plain = true;
      }
      if (!alphanumeric) plain = false;
    } else if (start >= 0) {
      const term = plain ? text.slice(start, Math.min(i, start + MAX_WORD_LENGTH)).toLowerCase() : normalise(text.slice(start, i));
      if (term) words.push(term);
      start = -1;
    }
    i += width;
  }
  return words;
}

/**
 * A parsed query: every word of `words` must match (as a word prefix unless `exact` holds it),
 * every phrase must occur as consecutive words, no ticket holding an `excluded` word matches.
 * `number` is set when the query names a ticket number (`#1042` or `1042`).
 */
export interface ParsedQuery {
  words: string[];
  exact: Set<string>;
  phrases: string[][];
  excluded: string[];
  number: number | null;
}

/** Shorter words match only as whole words, not as prefixes. */
const MIN_PREFIX = 2;

const QUERY_PART = /(-?)"([^"]*)"?|(\S+)/g;

/**
 * Reads the documented operators only: `"exact phrase"`, `-word`, `#number`; everything else is a
 * word. The text is cut at MAX_QUERY_LENGTH characters and at MAX_QUERY_WORDS words before any
 * work, and no part of it ever becomes a pattern.
 */
export function parseQuery(input: string): ParsedQuery {
  const text = input.slice(0, MAX_QUERY_LENGTH);
  const words: string[] = [];
  const exact = new Set<string>();
  const phrases: string[][] = [];
  const excluded: string[] = [];
  let number: number | null = null;
  const room = () => words.length + excluded.length < MAX_QUERY_WORDS;
  const addWord = (term: string, isExact: boolean) => {
    if (!room()) return;
    if (!words.includes(term)) words.push(term);
    // A one-letter prefix would read a large share of all postings: a single letter matches whole.
    if (isExact || term.length < MIN_PREFIX) exact.add(term);
  };
  for (const [, minus, quoted, bare] of text.matchAll(QUERY_PART)) {
    if (quoted !== undefined) {
      const terms = tokenize(quoted).slice(0, MAX_QUERY_WORDS);
      if (terms.length === 0) continue;
      if (minus) {
        for (const term of terms) if (room() && !excluded.includes(term)) excluded.push(term);
        continue;
      }
      for (const term of terms) addWord(term, true);
      if (terms.length > 1) phrases.push(terms);
      continue;
    }
    const part = bare!;
    if (part.startsWith('-') && part.length > 1) {
      for (const term of tokenize(part.slice(1))) if (room() && !excluded.includes(term)) excluded.push(term);
      continue;
    }
    const ticketNumber = /^#?(\d{1,9})$/.exec(part);
    if (ticketNumber) {
      number ??= Number(ticketNumber[1]);
      addWord(String(Number(ticketNumber[1])), part.startsWith('#'));
      continue;
    }
    for (const term of tokenize(part)) addWord(term, false);
  }
  return { words, exact, phrases, excluded: excluded.filter((term) => !words.includes(term)), number };
}

/** Whether `terms` holds `phrase` as consecutive words. */
export function hasPhrase(terms: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= terms.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (terms[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/** Whether a word of a text matches a query word: the same word, or one it begins (unless exact). */
export const matchesWord = (term: string, word: string, exact: boolean) => (exact ? term === word : term.startsWith(word));

/** The upper bound of a prefix range: every word starting with `prefix` is `>= prefix` and `< prefixEnd(prefix)`. */
export const prefixEnd = (prefix: string) => prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);
