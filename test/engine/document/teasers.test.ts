/**
 * Teaser lists (teasers.ts) on the structures shops use today: a product tile with a gallery of
 * pictures and a row of colour swatches is ~100 elements, yet a teaser — its text is a name, a
 * price and a rating. (Tiles past 80 nodes were not teasers, so a category grid was not an item
 * list and pruning took each tile's price and rating for fragments.)
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findFirst as findFirstIn,
  isElement,
  parseHtml,
  type AnyNode,
  type Element,
} from '../../../src/engine/document/dom.js';
import { isTeaserList } from '../../../src/engine/document/teasers.js';
import { isPricedList } from '../../../src/engine/document/page-type.js';
import { withItems } from '../../../src/engine/document/items.js';

const grid = () => {
  const doc = parseHtml(readFileSync(resolve(__dirname, '../../fixtures/modern/card-grid-rich.html'), 'utf8'));
  return findFirstIn(doc, (e) => e.name === 'ul' && e.attribs.class === 'grid')!;
};

describe('teaser lists', () => {
  it('a grid of rich product tiles (gallery, swatches, price, rating) is a list of teasers', () => {
    const ul = grid();
    const tiles = ul.children.filter(isElement) as Element[];
    let nodes = 0;
    const count = (n: Element) => {
      nodes++;
      for (const c of n.children) if (isElement(c)) count(c);
    };
    count(tiles[0]);
    expect(nodes).toBeGreaterThan(80); // the structure the bound must admit
    expect(isTeaserList(ul)).toBe(true);
  });

  it('a list of long sections is not (an item with more than 600 characters of text)', () => {
    const long = 'A section of an article reads on and on, sentence after sentence. '.repeat(12);
    const doc = parseHtml(
      `<ul>${[1, 2, 3].map((i) => `<li><h2><a href="/s/${i}">Section number ${i} of the piece</a></h2><p>${long}</p></li>`).join('')}</ul>`,
    );
    expect(isTeaserList(findFirstIn(doc, (e) => e.name === 'ul')!)).toBe(false);
  });
});

describe('priced lists (a page of things for sale)', () => {
  const list = (items: string[]) =>
    findFirstIn(
      parseHtml(`<ul>${items.map((t) => `<li><a href="/x">${t}</a></li>`).join('')}</ul>`),
      (e) => e.name === 'ul',
    )!;
  it('most items show a price, the currency before or after the number', () => {
    expect(isPricedList(list(['Tent $449.00', 'Bivy 129,00 €', 'Stove 499 kr', 'Gift card']))).toBe(true);
    expect(isPricedList(list(['Mug EUR 12', 'Pot £8', 'Map']))).toBe(true);
  });
  it('stories with numbers and years are not', () => {
    expect(isPricedList(list(['Budget 2025: what changes', '10 trails for spring', 'Prices rose 3% in May']))).toBe(
      false,
    );
  });
});

describe('a grid of things for sale beside a longer guide (items.ts)', () => {
  // Each tile says much of itself (specs, shipping): more text than a story teaser's summary.
  const tile = (i: number) =>
    `<li><a href="/p/${i}">Graphics card model ${i}</a><span>Boost clock 2.6 GHz, three fans, HDMI 2.1 and DisplayPort 2.1, free shipping</span><b>$${400 + i}.99</b></li>`;
  const page = parseHtml(
    `<body><div id="results"><ul id="grid">${[0, 1, 2, 3, 4, 5].map(tile).join('')}</ul></div>` +
      `<div id="seo"><div id="guide">${'<p>A long answer of the buying guide.</p>'.repeat(40)}</div></div></body>`,
  );
  const byId = (id: string) => findFirstIn(page, (e) => e.attribs.id === id)!;
  const body = findFirstIn(page, (e) => e.name === 'body')!;
  // The selection's numbers: the guide outweighs the grid, whose items carry 80 characters of text each.
  const sizes = new Map<Element, { text: number; link: number }>([
    [byId('guide'), { text: 9000, link: 0 }],
    [byId('seo'), { text: 9000, link: 0 }],
    [byId('grid'), { text: 480, link: 120 }],
    [byId('results'), { text: 480, link: 120 }],
    [body, { text: 9480, link: 120 }],
  ]);
  const textOf = (n: AnyNode) => sizes.get(n as Element) ?? { text: 0, link: 0 };

  it('takes the grid of priced items as the content, though the guide is longer and has 40 paragraphs', () => {
    const pick = withItems(byId('guide'), body, [byId('grid')], textOf, 40);
    expect(pick?.lists).toEqual([byId('grid')]);
  });
});
