/**
 * The vocabulary that names page chrome (content-chrome.ts) and things for sale (page-type.ts),
 * as must-match / must-not-match tables: each row is a name or markup seen on real pages (the
 * comment says which shape), so a change to a list shows here which names it gains or loses.
 */
import { describe, expect, it } from 'vitest';
import { parseHtml, findFirst, type Element } from '../../../src/engine/document/dom.js';
import { isChrome, neverTheArticle } from '../../../src/engine/document/content-chrome.js';
import { isPricedList } from '../../../src/engine/document/page-type.js';

/** The first element of `html` (inside a body). */
const el = (html: string): Element => findFirst(parseHtml(`<body>${html}</body>`), (e) => e.attribs['data-t'] === '1')!;

const CHROME: [string, string][] = [
  ['<nav data-t=1>', 'the navigation tag'],
  ['<div data-t=1 role="navigation">', 'a navigation role'],
  ['<div data-t=1 role="dialog">', 'a dialog (consent, newsletter pop-up)'],
  ['<div data-t=1 class="cookie-banner">', 'a consent banner'],
  ['<div data-t=1 class="share-bar">', 'share buttons'],
  ['<div data-t=1 class="newsletter-signup">', 'a newsletter form'],
  ['<div data-t=1 id="sidebar">', 'a sidebar by id'],
  ['<ul data-t=1 class="breadcrumb">', 'breadcrumbs'],
  ['<div data-t=1 class="ad-slot">', 'an ad slot'],
  ['<div data-t=1 class="pagination">', 'a pager'],
  ['<div data-t=1 class="site-footer">', 'a footer by class'],
  ['<div data-t=1 class="author-bio">', 'an author box'],
  ['<span data-t=1 class="mw-editsection">', 'a wiki heading’s [edit] link'],
];
const NOT_CHROME: [string, string][] = [
  ['<div data-t=1 class="article-body sidebar-aware">', 'an article body named with a chrome word too'],
  ['<div data-t=1 class="post-content share-enabled">', 'content names protect a box'],
  ['<div data-t=1 id="sharing-with-a-single-developer">', 'a heading anchor id of four words'],
  ['<div data-t=1 class="js-gallery-lightbox">', 'a script hook, named for what a script does'],
  ['<div data-t=1 class="elementor-widget-wrap">', 'a page builder’s layout unit'],
  ['<mjx-container data-t=1 class="menu">', 'a custom element cannot be chrome by name'],
  ['<div data-t=1 class="text-block">', 'an ordinary text box'],
  ['<div data-t=1>', 'no names at all'],
  // "post" reads as content, so the chrome names do not take it: the never-the-article rule does.
  ['<section data-t=1 class="related-posts">', 'a related-stories box named with "post"'],
];

describe('page chrome by name', () => {
  it.each(CHROME)('%s is chrome (%s)', (html) => expect(isChrome(el(html))).toBe(true));
  it.each(NOT_CHROME)('%s is not chrome (%s)', (html) => expect(isChrome(el(html))).toBe(false));
});

const NEVER: [string, string][] = [
  ['<div data-t=1 class="comments">', 'a comment thread'],
  ['<section data-t=1 id="comment-list">', 'a comment list by id'],
  ['<div data-t=1 class="related">', 'a related box'],
  ['<section data-t=1 class="related-posts">', 'a related-stories box'],
  ['<div data-t=1 class="recommendations">', 'a recommendations strip'],
  ['<div data-t=1 class="outbrain-widget">', 'a content-recommendation vendor'],
];
const NOT_NEVER: [string, string][] = [
  ['<div data-t=1 class="comment"><h1>The thread’s title</h1></div>', 'a box holding the page’s h1'],
  ['<div data-t=1 class="article-body comments">', 'an article body'],
  ['<div data-t=1 class="uncommented">', 'a word that only contains "comment"'],
  ['<div data-t=1 class="relatedness-score">', 'a word that only starts with "related"'],
];

describe('boxes that are never the article', () => {
  it.each(NEVER)('%s is never the article (%s)', (html) => expect(neverTheArticle(el(html))).toBe(true));
  it.each(NOT_NEVER)('%s may be the article (%s)', (html) => expect(neverTheArticle(el(html))).toBe(false));
});

const list = (items: string[]) => el(`<ul data-t=1>${items.map((i) => `<li>${i}</li>`).join('')}</ul>`);

describe('lists of things for sale', () => {
  it.each([
    [['Tee $22', 'Tank $24.50', 'Hoodie $40'], 'dollar signs before'],
    [['Tee 22,00 €', 'Tank 24,50 €', 'Hoodie 40 €'], 'euro after, decimal comma'],
    [['Tee £22', 'Tank', 'Hoodie £40'], 'most items priced'],
    [['Tee CHF 22', 'Tank CHF 24', 'Hoodie CHF 40'], 'a currency code'],
  ])('%j is a priced list (%s)', (items) => expect(isPricedList(list(items as string[]))).toBe(true));
  it.each([
    [['Tee', 'Tank', 'Hoodie'], 'no prices'],
    [['Tee $22', 'Tank', 'Hoodie'], 'one item in three'],
    [['Chapter 1', 'Chapter 2', 'Chapter 3'], 'numbers without a currency'],
  ])('%j is not a priced list (%s)', (items) => expect(isPricedList(list(items as string[]))).toBe(false));
});
