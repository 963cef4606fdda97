import { describe, expect, it } from 'vitest';
import { markdownToPlain, snippetScores } from '../../bench/lib/shingles.js';

// The trafilatura corpus is scored on the markdown as a reader sees it: syntax goes, text stays.
describe('markdownToPlain (eval:content snippet matching)', () => {
  it('strips links, images, emphasis, headings, list and quote markers and table pipes', () => {
    const md =
      '# Title\n\n> **Bold** and _em_ with [a link](https://x.invalid/a_(b)) ![pic](/p.png)\n\n- item one\n1. item two\n\n| a | b |\n| --- | --- |\n| c | d |';
    expect(markdownToPlain(md)).toBe('Title Bold and em with a link item one item two a b c d');
  });

  it('keeps escaped characters as the literal text they are', () => {
    // A star after a word (a footnote mark) and underscores in a name are text, not emphasis.
    expect(markdownToPlain('alle zwei Jahre verpflichtend\\*. Siehe my\\_var\\_name')).toBe(
      'alle zwei Jahre verpflichtend*. Siehe my_var_name',
    );
    expect(markdownToPlain('\\# not a heading, \\- not a list')).toBe('# not a heading, - not a list');
  });

  it('keeps brackets that are no link, and unwraps those that are', () => {
    expect(markdownToPlain('[1] Wer im Betrieb würde [sich](https://x.invalid/) fragen')).toBe(
      '[1] Wer im Betrieb würde sich fragen',
    );
    expect(markdownToPlain('Turndown writes \\[8\\] Historiker')).toBe('Turndown writes [8] Historiker');
  });

  it('matches wanted and unwanted snippets on the plain text', () => {
    const plain = markdownToPlain('Pflicht\\*. [2] Quelle\n\nTeilen: [Facebook](https://f.invalid)');
    expect(snippetScores(plain, ['Pflicht*.', '[2] Quelle', 'missing'], ['Teilen: Facebook', 'absent'])).toEqual({
      tp: 2,
      fn: 1,
      fp: 1,
      tn: 1,
    });
  });
});
