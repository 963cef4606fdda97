/**
 * Hostile page shapes (issue 13), generated here: each must be processed in time linear in
 * its size and still yield its text. Before the parser capped nesting while parsing, the
 * 20,000-fold mixed nesting below took ~12 s and 200,000 nested divs ~28 s; before the
 * extractor bounded its sibling scan, 40,000 price-named siblings took ~13 s; before the
 * end-of-article check read backwards, 5,000 trailing rules took ~58 s. Each test's
 * time limit is far above what the shape costs now and far below what it cost then.
 */
import { describe, expect, it } from 'vitest';
import { processHtml } from '../../../src/engine/document/index.js';
import { MAX_DEPTH, parseHtml, textOf } from '../../../src/engine/document/dom.js';
import { pageExtraction } from '../../../src/engine/extract/index.js';
import { compileSchema } from '../../../src/engine/extract/schema.js';

const page = (body: string) => `<html><head><title>Hostile</title></head><body>${body}</body></html>`;
const run = (html: string) => processHtml(html, { url: 'https://hostile.example/', links: true });

/** Depth of the deepest element. */
function depth(html: string): number {
  let max = 0;
  const stack: [unknown, number][] = [[parseHtml(html), 0]];
  while (stack.length) {
    const [n, d] = stack.pop() as [{ children?: unknown[]; type?: string }, number];
    if (d > max) max = d;
    for (const c of n.children ?? []) if ((c as { type: string }).type === 'tag') stack.push([c, d + 1]);
  }
  return max;
}

describe('hostile nesting is parsed in linear time and keeps its text', () => {
  it('200,000 nested divs, closed and unclosed', { timeout: 8_000 }, () => {
    const closed = page(
      `${'<div>'.repeat(200_000)}<p>The deep paragraph, with commas, is still read.</p>${'</div>'.repeat(200_000)}`,
    );
    expect(run(closed).markdown).toContain('The deep paragraph');
    const open = page(`${'<div>'.repeat(200_000)}<p>The deep paragraph, with commas, is still read.</p>`);
    expect(run(open).markdown).toContain('The deep paragraph');
    expect(depth(open)).toBeLessThanOrEqual(MAX_DEPTH + 2);
  });

  it('20,000 repetitions of never-closed mixed tags', { timeout: 8_000 }, () => {
    const html = page(
      '<p><b><i><span><div><a href="/x"><table><tr><td><li><ul>text '.repeat(20_000) + '<p>Last words of the page.</p>',
    );
    const doc = parseHtml(html);
    const text = textOf(doc);
    // Every repetition's text survives, flattened below the cap.
    expect(text.split('text').length - 1).toBe(20_000);
    expect(text).toContain('Last words of the page.');
    expect(() => run(html)).not.toThrow();
  });

  it('50,000 nested lists and 50,000 nested inline elements', { timeout: 8_000 }, () => {
    expect(textOf(parseHtml(page(`${'<ul><li>'.repeat(50_000)}bottom`)))).toContain('bottom');
    expect(run(page(`<p>${'<b><i>'.repeat(50_000)}inline bottom</p>`)).markdown).toContain('inline bottom');
  });

  it('keeps documents under the cap exactly as before', () => {
    const nested = `${'<div>'.repeat(100)}<p>Inner</p>${'</div>'.repeat(100)}<p>After</p>`;
    expect(depth(page(nested))).toBe(100 + 3);
    expect(textOf(parseHtml(page(nested)))).toBe('HostileInnerAfter');
  });
});

describe('hostile clean-up inside the content is bounded', () => {
  // The end-of-article check (a rule followed by a label row) once looked at every rule's
  // following nodes afresh: 5,000 rules at the end of an article took ~58 s.
  it('an article ending in 40,000 horizontal rules', { timeout: 8_000 }, () => {
    const body = Array.from(
      { length: 20 },
      (_, i) => `<p>The paragraph number ${i} explains, with commas and clauses, what the reporter saw.</p>`,
    ).join('');
    const md =
      run(
        page(
          `<article><h1>Hostile</h1>${body}${'<hr>'.repeat(20_000)}<p>More topics:</p>${'<hr>'.repeat(20_000)}</article>`,
        ),
      ).markdown ?? '';
    expect(md).toContain('The paragraph number 19');
    expect(md).not.toContain('More topics');
    expect(md).not.toContain('---');
  });
});

describe('hostile extraction is bounded', () => {
  it('40,000 siblings named price, each unlike the next', { timeout: 5_000 }, () => {
    const html = page(
      '<h1>Item</h1>' +
        Array.from({ length: 40_000 }, (_, i) => `<div class="price p${i}">$${i + 1}.99</div>`).join(''),
    );
    const out = pageExtraction(compileSchema({ price: 'number', name: 'string' })).here(
      parseHtml(html),
      'https://hostile.example/',
      html,
      'https://hostile.example/',
    );
    expect(out.json.name).toBe('Item');
    expect(typeof out.json.price).toBe('number');
  });

  it('20,000 alike price cards linking elsewhere are other products, not this one', { timeout: 8_000 }, () => {
    const html = page(
      '<h1>Item</h1>' +
        Array.from(
          { length: 20_000 },
          (_, i) => `<div class="card"><a href="/p${i}">Other</a><span class="price">$${i + 1}.99</span></div>`,
        ).join(''),
    );
    const out = pageExtraction(compileSchema({ price: 'number' })).here(
      parseHtml(html),
      'https://hostile.example/',
      html,
      'https://hostile.example/',
    );
    expect(out.json.price).toBeNull();
  });
});
