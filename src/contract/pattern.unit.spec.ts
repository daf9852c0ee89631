import { compilePattern, patternProblem } from './pattern';

const REFUSED = 'Pattern cannot contain control characters, line breaks or unpaired surrogates; write such a character as an escape like \\x{7F}';

describe('Custom-field patterns', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['DEL', '^\u007F$'],
    ['a lone high surrogate', '^\uD800$'],
    ['a lone low surrogate', 'x\uDC00'],
    ['a line break', '^a\nb$'],
    ['a direction mark', '^\u200F\\d+$'],
  ])('when a pattern holds %s, then it is refused with a clear message', (_name, pattern) => {
    expect(patternProblem(pattern)).toBe(REFUSED);
  });

  it('when such a character is written as an escape, then the pattern works', () => {
    const compiled = compilePattern('^\\x{7F}\\d+$');
    expect(compiled.ok && compiled.test('\u007F42')).toBe(true);
    const pair = compilePattern('^😀+$');
    expect(pair.ok && pair.test('😀😀')).toBe(true);
  });
});
