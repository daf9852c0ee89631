import { MAX_QUERY_LENGTH, MAX_QUERY_WORDS } from '#contract/search';
import { MAX_WORD_LENGTH, hasPhrase, normalise, parseQuery, prefixEnd, spans, tokenize } from './searchText';

describe('Search text', () => {
  describe('tokenize', () => {
    it('when a text has punctuation, case and accents, then its words come folded to lower case without accents', () => {
      expect(tokenize('Refund the CAFÉ order, São Paulo — naïve résumé!')).toEqual(['refund', 'the', 'cafe', 'order', 'sao', 'paulo', 'naive', 'resume']);
    });

    it('when a text holds an e-mail, a Telegram username, a ticket number or a file name, then each part is a word', () => {
      expect(tokenize('mail anna.b@example.com or @anna_b about #1042: invoice-2026.pdf')).toEqual([
        'mail',
        'anna',
        'b',
        'example',
        'com',
        'or',
        'anna',
        'b',
        'about',
        '1042',
        'invoice',
        '2026',
        'pdf',
      ]);
    });

    it('when a text is in another script or has symbols and emoji, then letters stay words and symbols separate them', () => {
      expect(tokenize('Привет мир 🙂 price$5 a+b 日本語')).toEqual(['привет', 'мир', 'price', '5', 'a', 'b', '日本語']);
    });

    it('when a text is plain ASCII, then the fast path finds the same words as the Unicode word pattern', () => {
      const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('') + '\n\r';
      let seed = 7;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (let round = 0; round < 500; round++) {
        const text = Array.from({ length: Math.floor(next() * 120) }, () => printable[Math.floor(next() * printable.length)]).join('');
        expect(tokenize(text)).toEqual(spans(text).map(({ term }) => term));
      }
      expect(tokenize(`${'Ab'.repeat(30)} ok`)).toEqual([`${'ab'.repeat(30)}`.slice(0, MAX_WORD_LENGTH), 'ok']);
    });

    it('when a text mixes ASCII with accents, marks, other scripts, emoji, controls and lone surrogates, then it finds the same words as the Unicode word pattern', () => {
      const pieces = [
        ...'aZ9 .,-_#\t\n\r\u007f'.split(''),
        'é',
        'Ö',
        'ß',
        'ł',
        'İ',
        '\u0301',
        '\u00a0',
        '\u2014',
        '\u3000',
        'Я',
        '日',
        '🙂',
        '𝒜',
        '\ud800',
        '\udc00',
        'ﬁ',
        '①',
        '٣',
      ];
      let seed = 5;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (let round = 0; round < 2000; round++) {
        const text = Array.from({ length: Math.floor(next() * 40) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
        expect(tokenize(text)).toEqual(spans(text).map(({ term }) => term));
      }
    });

    it('when a word is very long, then it is cut at the documented length', () => {
      expect(tokenize('x'.repeat(500))).toEqual(['x'.repeat(MAX_WORD_LENGTH)]);
    });

    it('when words are found, then their spans point at them in the original text', () => {
      const text = 'Hello, Zoë!';
      expect(spans(text).map(({ term, start, end }) => [term, text.slice(start, end)])).toEqual([
        ['hello', 'Hello'],
        ['zoe', 'Zoë'],
      ]);
    });

    it('when a composed and a decomposed accent are compared, then they are one word', () => {
      expect(normalise('Cafe\u0301')).toBe(normalise('Café'));
    });
  });

  describe('parseQuery', () => {
    it('when a query has plain words, then each is a required prefix', () => {
      expect(parseQuery('Refun  Payment')).toMatchObject({ words: ['refun', 'payment'], phrases: [], excluded: [], number: null });
      expect(parseQuery('Refun').exact.size).toBe(0);
    });

    it('when a word has a single letter, then it matches only as a whole word', () => {
      expect([...parseQuery('a refund').exact]).toEqual(['a']);
    });

    it('when a query has a quoted phrase, then its words are exact and the phrase is kept in order', () => {
      const parsed = parseQuery('"Second  payment" refund');
      expect(parsed.words).toEqual(['second', 'payment', 'refund']);
      expect([...parsed.exact]).toEqual(['second', 'payment']);
      expect(parsed.phrases).toEqual([['second', 'payment']]);
    });

    it('when a quote is left open, then the phrase runs to the end of the query', () => {
      expect(parseQuery('refund "late parcel').phrases).toEqual([['late', 'parcel']]);
    });

    it('when a word or phrase starts with a minus, then it is excluded; a lone minus is nothing', () => {
      expect(parseQuery('refund -parcel -"credit card" -')).toMatchObject({ words: ['refund'], excluded: ['parcel', 'credit', 'card'] });
    });

    it('when a word is both wanted and excluded, then wanting it wins', () => {
      expect(parseQuery('refund -refund')).toMatchObject({ words: ['refund'], excluded: [] });
    });

    it('when a query names a ticket number, with or without #, then the number is read and #n is exact', () => {
      expect(parseQuery('#1042')).toMatchObject({ words: ['1042'], number: 1042 });
      expect(parseQuery('#1042').exact.has('1042')).toBe(true);
      expect(parseQuery('1042')).toMatchObject({ words: ['1042'], number: 1042 });
      expect(parseQuery('1042').exact.has('1042')).toBe(false);
    });

    it('when a query has pattern characters, then they are separators, never operators', () => {
      expect(parseQuery('(.*)+ [a-z] ^re$ fund?').words).toEqual(['a', 'z', 're', 'fund']);
      expect(parseQuery('.*').words).toEqual([]);
    });

    it('when a query is longer than the limits, then it is cut at the documented length and word count', () => {
      expect(parseQuery(`${'a'.repeat(MAX_QUERY_LENGTH - 1)} tail`).words).toEqual(['a'.repeat(MAX_WORD_LENGTH)]);
      const many = Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ');
      expect(parseQuery(many).words).toHaveLength(MAX_QUERY_WORDS);
    });
  });

  it('hasPhrase finds words only when consecutive and in order', () => {
    expect(hasPhrase(['the', 'second', 'payment', 'is'], ['second', 'payment'])).toBe(true);
    expect(hasPhrase(['payment', 'second'], ['second', 'payment'])).toBe(false);
    expect(hasPhrase(['second', 'big', 'payment'], ['second', 'payment'])).toBe(false);
  });

  it('prefixEnd bounds exactly the words that start with the prefix', () => {
    const end = prefixEnd('refun');
    for (const word of ['refun', 'refund', 'refunds', 'refunzzz']) expect(word >= 'refun' && word < end).toBe(true);
    for (const word of ['refuo', 'refu', 'reg', 'refto']) expect(word >= 'refun' && word < end).toBe(false);
  });
});
