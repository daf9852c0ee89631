import { RE2JS } from 're2js';
import { isCleanText } from './text';

/**
 * Admins' custom-field patterns run on answers from anyone, in the API, the Telegram bot and the
 * browser alike. JavaScript's RegExp backtracks, so a pattern such as `^(a+)+$` takes time that
 * doubles with each character of a hostile answer and blocks the whole server. RE2 semantics
 * (re2js) match in time linear in the answer, and refuse the features that need backtracking
 * (lookaround, backreferences). The compiled program is bounded too, since the match costs its
 * size times the answer's length.
 */
const PATTERN_MAX = 200;
const PROGRAM_MAX = 500;

export type CompiledPattern = { ok: true; test: (value: string) => boolean } | { ok: false; problem: string };

export function compilePattern(pattern: string): CompiledPattern {
  if (pattern.length > PATTERN_MAX) return { ok: false, problem: `Pattern must be at most ${PATTERN_MAX} characters` };
  // RE2 takes a NUL, DEL or half a surrogate pair as a literal, but no admin types one and no screen
  // shows one: a character to match that way is written as an escape (`\x{7F}`).
  if (!isCleanText(pattern, { multiLine: false }))
    return {
      ok: false,
      problem: 'Pattern cannot contain control characters, line breaks or unpaired surrogates; write such a character as an escape like \\x{7F}',
    };
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    return { ok: false, problem: `Pattern is not supported: ${reason} (patterns use RE2 syntax: no lookaround or backreferences)` };
  }
  if (compiled.programSize() > PROGRAM_MAX) return { ok: false, problem: 'Pattern is not supported: it is too complex; use fewer or smaller repetitions' };
  return { ok: true, test: (value) => compiled.test(value) };
}

/** Why a pattern cannot be used, or null when it can. */
export const patternProblem = (pattern: string): string | null => {
  const compiled = compilePattern(pattern);
  return compiled.ok ? null : compiled.problem;
};
