/**
 * The article's main heading is the markdown's first line, once — also when it repeats the
 * <title> and when the theme puts it in a header box outside the article body. Pages follow
 * real structures: WordPress's entry-header/entry-content, a news site's headline block
 * beside its article-body div, and a site header with a logo heading.
 */
import { describe, expect, it } from 'vitest';
import { processHtml } from '../../../src/engine/document/index.js';
import { titleCoverage } from '../../../src/engine/document/headline.js';

const P = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>Paragraph ${i + 1} of the field guide describes widgets of the deep sea, their habits, colours, and the depths where divers meet them.</p>`,
  ).join('');
const page = (title: string, body: string) =>
  processHtml(`<html><head><title>${title}</title></head><body>${body}</body></html>`, {
    url: 'https://example.com/guide/deep-sea-widgets',
  }).markdown ?? '';
const headings = (md: string, text: string) =>
  md.split('\n').filter((l) => /^#{1,6} /.test(l) && l.includes(text)).length;

describe('main heading', () => {
  it('keeps an h1 that repeats the <title> as the first line (WordPress entry-header)', () => {
    const md = page(
      'Deep Sea Widgets — Field Guide',
      `<header class="site-header"><p class="site-title"><a href="/">Field Guide</a></p><nav><a href="/a">A</a> <a href="/b">B</a></nav></header>
       <main><article><header class="entry-header"><h1 class="entry-title">Deep Sea Widgets</h1><div class="entry-meta">Posted on May 3</div></header>
       <div class="entry-content">${P(5)}</div></article></main>`,
    );
    expect(md.split('\n')[0]).toBe('# Deep Sea Widgets');
    expect(headings(md, 'Deep Sea Widgets')).toBe(1);
    expect(md).toContain('Paragraph 5 of the field guide');
  });

  it('brings back a headline placed outside the article body, once, and leaves the logo heading', () => {
    const md = page(
      'Deep Sea Widgets | Field Guide',
      `<div class="masthead"><h1 class="logo">Field Guide</h1></div>
       <div class="headline-block"><span class="kicker">Oceans</span><h1>Deep Sea Widgets</h1><p class="dek">By A. Diver</p></div>
       <div class="share"><a href="/s1">Share</a></div>
       <div class="article-body">${P(3)}<h2>Deep Sea Widgets</h2>${P(3)}</div>
       <footer><p>© Field Guide</p></footer>`,
    );
    expect(md.split('\n')[0]).toBe('# Deep Sea Widgets');
    expect(headings(md, 'Deep Sea Widgets')).toBe(1);
    expect(md).not.toContain('# Field Guide');
    expect(md).toContain('Paragraph 3 of the field guide');
  });

  it('adds nothing when no heading names the title', () => {
    const md = page('Something else entirely', `<h1>Deep Sea Widgets</h1><div class="article-body">${P(4)}</div>`);
    expect(headings(md, 'Deep Sea Widgets')).toBeLessThanOrEqual(1);
    expect(md).toContain('Paragraph 4');
  });

  it('scores a headline above a site-name heading', () => {
    const titles = ['Deep Sea Widgets — Field Guide'];
    expect(titleCoverage('Deep Sea Widgets', titles)).toBeGreaterThan(titleCoverage('Field Guide', titles));
    expect(titleCoverage('Subscribe now', titles)).toBe(0);
  });
});
