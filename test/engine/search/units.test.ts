import { describe, expect, it } from 'vitest';
import { Bm25, tokens } from '../../../src/engine/search/bm25.js';
import { parseDuckDuckGo } from '../../../src/engine/search/duckduckgo.js';
import { plainText, toPassages } from '../../../src/engine/search/passages.js';
import { stripTags } from '../../../src/engine/search/provider.js';

describe('passages', () => {
  it('strips markdown syntax and link targets so passages read as on the page', () => {
    expect(plainText('## Title\n\nSee **the** [docs](https://x.example/d) and `code` ![img](a.png)')).toBe(
      'Title\n\nSee the docs and code',
    );
  });
  it('merges short blocks, splits at headings and cuts long paragraphs at sentence ends', () => {
    const long = Array.from(
      { length: 30 },
      (_, i) => `Sentence number ${i} explains one more thing about the topic.`,
    ).join(' ');
    const md = `# Head\n\nShort one.\n\nShort two that follows.\n\n## Next\n\n${long}`;
    const p = toPassages(md);
    expect(p[0]).toBe('Short one. Short two that follows.');
    expect(p.length).toBeGreaterThan(2);
    for (const x of p.slice(1)) {
      expect(x.length).toBeLessThanOrEqual(760);
      expect(x).toMatch(/\.$/);
    }
  });
});

describe('BM25', () => {
  it('ranks the passage that answers the query first and ignores stop words', () => {
    const docs = [
      'The cat sat on the mat.',
      'Rust ownership rules: each value has one owner, and borrowing is checked at compile time.',
      'Weather is sunny today.',
    ];
    const bm = new Bm25(docs);
    const scores = docs.map((_, i) => bm.score('how does rust ownership borrowing work', i));
    expect(scores[1]).toBeGreaterThan(scores[0]);
    expect(scores[1]).toBeGreaterThan(scores[2]);
    expect(scores[0]).toBe(0);
    expect(tokens('The Rust and the Borrow-checker')).toEqual(['rust', 'borrow', 'checker']);
  });
});

describe('provider text', () => {
  it('strips tags and decodes every HTML entity providers send (named, decimal, hex)', () => {
    expect(stripTags('Caf&eacute; <b>guide</b> &#8211; it&#x27;s &quot;fast&quot;&nbsp;&amp; cheap')).toBe(
      'Café guide – it\'s "fast" & cheap',
    );
  });
});

describe('DuckDuckGo HTML results', () => {
  it('reads result links through uddg redirects and skips ads', () => {
    const html = `<div class="results">
      <div class="result result--ad"><a class="result__a" href="https://duckduckgo.com/y.js?ad=1">Ad</a></div>
      <div class="result results_links web-result"><h2><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fx%3D1&amp;rut=abc">Example <b>A</b></a></h2>
        <a class="result__snippet" href="#">First <b>snippet</b> text.</a></div>
      <div class="result"><a class="result__a" href="https://example.org/b">B</a></div></div>`;
    expect(parseDuckDuckGo(html)).toEqual([
      { url: 'https://example.com/a?x=1', title: 'Example A', snippet: 'First snippet text.' },
      { url: 'https://example.org/b', title: 'B', snippet: '' },
    ]);
  });
});
