/**
 * Metamorphic tests on generated ordinary pages (bench/lib/ordinary-pages.ts): for every page
 * kind × added element × markup style, the page's main content with a harmless element added
 * inside it is the content of the page without it — every block of its truth kept (and the
 * added element's own blocks when it is content: a caption, a table, a note), no chrome, no
 * "almost no text" warning. What /v1/scrape answers for markdown with only_main_content.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { processHtml } from '../../../src/engine/document/index.js';
import {
  judge,
  KINDS,
  ordinaryPage,
  PERTURBATIONS,
  STYLES,
  type OrdinaryPage,
} from '../../../bench/lib/ordinary-pages.js';
import { markdownToPlain } from '../../../bench/lib/shingles.js';

function answer(page: OrdinaryPage) {
  const r = processHtml(page.html, { url: page.url, onlyMainContent: true, markdown: true });
  return { judged: judge(page, markdownToPlain(r.markdown ?? '')), scant: !!r.scant };
}

let cases = 0;
let holding = 0;

afterAll(() => {
  console.log(`ordinary pages: ${holding} of ${cases} (kind × added element × markup style) cases hold`);
});

describe.each(STYLES)('%s markup', (style) => {
  it.each(PERTURBATIONS)('the content holds with %s added', (perturbation) => {
    const failures: string[] = [];
    KINDS.forEach((kind, k) => {
      // One seed per (kind, style): the page with and without the added element differ only by it.
      const seed = 1 + k * STYLES.length + STYLES.indexOf(style);
      const page = ordinaryPage(kind, style, perturbation, seed);
      const base = perturbation === 'none' ? undefined : ordinaryPage(kind, style, 'none', seed);
      const got = answer(page);
      const problems: string[] = [];
      if (got.judged.missing.length) problems.push(`lost ${JSON.stringify(got.judged.missing)}`);
      if (got.judged.leaked.length) problems.push(`chrome ${JSON.stringify(got.judged.leaked)}`);
      if (got.scant) problems.push('"almost no text" warning');
      if (base) {
        // The relation itself: the base page's blocks come out the same with the element added.
        const before = new Set(answer(base).judged.missing);
        const after = base.truth.filter((t) => got.judged.missing.includes(t));
        const changed =
          after.filter((t) => !before.has(t)).length + [...before].filter((t) => !after.includes(t)).length;
        if (changed) problems.push(`${changed} block(s) of the page without it changed`);
      }
      cases++;
      if (problems.length) failures.push(`${page.id}: ${problems.join('; ')}`);
      else holding++;
    });
    expect(failures).toEqual([]);
  });
});

describe('the "almost no text" warning', () => {
  const scant = (body: string) =>
    processHtml(`<html><head><title>App</title></head><body>${body}</body></html>`, { url: 'https://app.example/' })
      .scant;

  it('stays for pages that hold almost nothing', () => {
    expect(scant('<div id="root"></div><script src="/bundle.js"></script>')).toBe(true);
    expect(scant('<div id="root"><p>You need to enable JavaScript to run this app.</p></div>')).toBe(true);
    expect(scant('<nav><a href="/">Home</a><a href="/a">About</a></nav><main><p>Loading…</p></main>')).toBe(true);
  });

  it('is not given for a short page that is whole: a heading and one sentence', () => {
    expect(
      scant(
        '<header><nav><a href="/">Home</a><a href="/shop">Shop</a></nav></header><main><h1>Closed on Monday</h1><p>The shop is closed on Monday for a stocktake; we open again on Tuesday at nine.</p></main><footer><p>© 2026 Acme Ltd.</p></footer>',
      ),
    ).toBeFalsy();
  });
});

describe('the signals behind it, one by one', () => {
  const LEAD =
    '<p>Welcome to the workshop. We have been making reliable widgets for homes and workshops since 1987, and we still repair every one.</p>';
  const md = (main: string, head = '') =>
    processHtml(
      `<html><head><title>Widgets</title>${head}</head><body><nav><a href="/">Home</a><a href="/b">Blog</a></nav><main><h1>Widgets</h1>${main}</main><footer><p>© 2026 Acme</p></footer></body></html>`,
      { url: 'https://acme.example/' },
    ).markdown ?? '';

  it('a sentence of links is prose; a line ending in a teaser link is not', () => {
    const out = md(
      `${LEAD}<p>More in the <a href="/g">beginner guide</a>, the <a href="/f">FAQ</a> and the <a href="/gl">glossary</a>.</p><p>Read also » <a href="/x">Ten ways to oil a hinge?</a></p>${LEAD.replace('Welcome', 'Hello')}`,
    );
    expect(out).toContain('More in the');
    expect(out).not.toContain('Ten ways to oil a hinge');
  });

  it('a date in a sentence stays; a dateline or a byline goes', () => {
    const out = md(`<p>Saturday 12 September 2026, 10:00 to 17:00, Riverside Hall.</p>${LEAD}`);
    expect(out).toContain('Riverside Hall');
    expect(md(`<p>March 3, 2026</p>${LEAD}`)).not.toContain('March 3, 2026');
    expect(md(`<p>Jane Doe | 3 March 2026 | Workshop news</p>${LEAD}`)).not.toContain('Jane Doe');
  });

  it('a caption and an attribution are content; a press photo credit is not', () => {
    const figure = (caption: string) =>
      `<figure><img src="/a.jpg" alt="The floor"><figcaption>${caption}</figcaption></figure>`;
    const out = md(
      `${LEAD}${figure('The assembly floor after the spring refit.')}<figure><blockquote><p>We stopped running out of screws.</p></blockquote><figcaption>Priya Shah, furniture maker</figcaption></figure>${figure('Workers at the plant, May 2024. © Reuters / A. Photographer')}`,
    );
    expect(out).toContain('The assembly floor after the spring refit.');
    expect(out).toContain('Priya Shah, furniture maker');
    expect(out).not.toContain('Reuters');
  });

  it('on a page that states an article (JSON-LD), picture captions go (attributions stay)', () => {
    const out = md(
      `${LEAD}<figure><img src="/a.jpg" alt="x"><figcaption>The assembly floor after the spring refit.</figcaption></figure><figure><blockquote><p>We stopped running out of screws.</p></blockquote><figcaption>Priya Shah, furniture maker</figcaption></figure>`,
      '<script type="application/ld+json">{"@type":"NewsArticle","headline":"Widgets"}</script>',
    );
    expect(out).not.toContain('The assembly floor');
    expect(out).toContain('Priya Shah');
  });

  it('a note box in the text is content; an aside beside it is not', () => {
    const out = md(
      `${LEAD}<aside class="note"><p>Note: prices include delivery.</p></aside>${LEAD.replace('Welcome', 'Hi')}`,
    );
    expect(out).toContain('Note: prices include delivery.');
    const beside = processHtml(
      `<html><body><main><h1>Widgets</h1>${LEAD}</main><aside class="note"><p>Note: our other shop is closed.</p></aside></body></html>`,
      { url: 'https://acme.example/' },
    ).markdown;
    expect(beside).not.toContain('other shop');
  });

  it('a section with a table or a list is no fragment box for the button beside it', () => {
    const out = md(
      `${LEAD}<section><h2>Compare</h2><table><tr><th>Model</th><th>Price</th></tr><tr><td>W-100</td><td>$19.99</td></tr></table><p>Ready? <a href="/shop">Order now</a></p></section>`,
    );
    expect(out).toContain('W-100');
  });
});
