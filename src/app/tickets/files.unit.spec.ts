import { withArticle } from './files';

describe('A file type with its article (issue 25)', () => {
  it.each([
    ['exe', 'an EXE'],
    ['mp4', 'an MP4'],
    ['html', 'an HTML'],
    ['xml', 'an XML'],
    ['png', 'a PNG'],
    ['zip', 'a ZIP'],
    ['gif', 'a GIF'],
    ['jpg', 'a JPG'],
  ])('when the type is %s, then it reads "%s"', (type, expected) => {
    expect(withArticle(type)).toBe(expected);
  });
});
