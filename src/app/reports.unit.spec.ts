import { csvCell } from './reports';

describe('A CSV cell', () => {
  it('when the text could start a formula, or starts with a control or bidi character that hides one, then it is defused with an apostrophe', () => {
    const defused: Array<[string, string]> = [
      ['=1+1', `"'=1+1"`],
      ['+1', `"'+1"`],
      ['-1', `"'-1"`],
      ['@SUM(A1)', `"'@SUM(A1)"`],
      ['\u0000=1+1', `"'\u0000=1+1"`],
      ['\u202E=1+1', `"'\u202E=1+1"`],
      ['\u2066=1+1', `"'\u2066=1+1"`],
    ];
    for (const [text, cell] of defused) expect({ text, cell: csvCell(text) }).toEqual({ text, cell });
  });

  it('when the text is plain (an emoji first included), then it is only quoted, its quotes doubled', () => {
    expect([csvCell('Great "help"'), csvCell('👍 thanks'), csvCell(4), csvCell(null)]).toEqual(['"Great ""help"""', '"👍 thanks"', '"4"', '""']);
  });
});
