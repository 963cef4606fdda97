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
