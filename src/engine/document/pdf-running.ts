/**
 * Running headers, running footers and page numbers: what a printer or a word processor sets in
 * the margins of every page, which is not part of the text. Two signals, both from where a line
 * sits and what it looks like, never from particular words:
 *  - repetition: a line in the top or bottom band of a page whose text (digits aside: "Page 3
 *    of 10", "3/10", "- 3 -", a date or a time) comes back at the same height on many pages;
 *  - shape: a page number alone in the band (the page's first or last line, apart from the
 *    text), and, on a document of one page where nothing can repeat, the header and footer a
 *    browser prints (a date and time at the top left beside the title, the URL at the bottom
 *    left and "page/pages" at the bottom right, in print smaller than the text).
 */
import type { Fragment } from './pdf-lines.js';
import type { PageGeometry } from './pdf-page.js';

/**
 * Where running lines live: this share of the page's height at its top and at its bottom.
 * Chromium prints its header and footer within 3 % of the edge, a word processor within its
 * margin (2–2.5 cm of A4's 29.7: 7–8.5 %); 12 % leaves room for a header of two lines.
 */
export const BAND = 0.12;
/**
 * A line repeats when its text comes back on at least this share of the pages (and on two at
 * least): a third, not a majority, because odd and even pages often carry different heads (the
 * book's title on the left, the chapter's on the right), each on half of them.
 */
export const REPEAT_SHARE = 0.3;
/**
 * Running lines are printed at the same height on every page: within this many points (a
 * title that repeats the running head's words sits elsewhere). pdf.js reports baselines to a
 * hundredth of a point; a template's line may move by a fraction of a point between pages.
 */
export const SAME_HEIGHT_PT = 2;
/**
 * A browser's header and footer are set smaller than the page's text (Chromium: 8 pt over
 * body text of 10–12 pt): a band line of one page is taken for one only below this share of
 * the page's usual text size.
 */
export const SMALL_PRINT = 0.9;

/** A roman number up to 399, well formed ("iv", "xii", "cxc"; not "civil", not "iiii"). */
const ROMAN = '(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})';
/**
 * A page number as printed alone: "7", "- 7 -", "(7)", "Page 7", "7 of 12", "7/12", "p. 7",
 * "vii", and a manual's chapter and page: "3-14", "A-2".
 */
const PAGE_NUMBER = new RegExp(
  `^(?:(?:page|p\\.|pg\\.?)\\s*)?[-–—(|]?\\s*(?:\\d{1,4}|${ROMAN}|(?:\\d{1,2}|[a-z])[-–]\\d{1,3})\\s*[-–—)|]?(?:\\s*(?:of|\\/)\\s*\\d{1,4})?$`,
  'i',
);
const ROMAN_WORD = new RegExp(`(^|[\\s(\\-–—|·])${ROMAN}(?=$|[\\s)\\-–—|·])`, 'g');
/** A date or a time as browsers and word processors print them: "11/28/26, 9:25 AM", "28.11.2026 09:25", "2026-11-28". */
const NUMERIC_DATE = /\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b/g;
const TIME = /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?\s?m\.?)?(?=\s|$|,)/gi;
/** An address: "file:///home/…/page.html", "https://example.com/a", "www.example.com". */
const URL_SHAPE = /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+$/i;

export const isPageNumber = (text: string) => PAGE_NUMBER.test(text.trim());
export const isDateTime = (text: string) => {
  const t = text.trim();
  return (
    /\d/.test(t) &&
    !t
      .replace(NUMERIC_DATE, '')
      .replace(TIME, '')
      .replace(/[\s,]+/g, '')
  );
};
export const isUrl = (text: string) => URL_SHAPE.test(text.trim());

/**
 * What a running line's text says whatever page it is on: numbers (page numbers, dates) and
 * roman page numbers made one symbol, case and spacing ignored.
 */
export const runningKey = (text: string) =>
  text.toLowerCase().replace(/\d+/g, '#').replace(ROMAN_WORD, '$1#').replace(/\s+/g, ' ').trim();

type Zone = 'top' | 'bottom';
const zoneOf = (f: Fragment, g: PageGeometry): Zone | undefined =>
  f.bottom < g.height * BAND ? 'top' : f.top > g.height * (1 - BAND) ? 'bottom' : undefined;

export interface RunningPage {
  g: PageGeometry;
  frags: Fragment[];
}

/** Drops running headers and footers and page numbers from each page's fragments (in place). */
export function dropRunningLines(pages: RunningPage[]): void {
  const repeated = repeatedLines(pages);
  for (const p of pages) {
    const drop = new Set([...edgeNumbers(p.frags, p.g), ...(pages.length === 1 ? browserLines(p.frags, p.g) : [])]);
    p.frags = p.frags.filter((f) => !drop.has(f) && !repeated.has(f));
  }
}

/** Band fragments whose text, digits aside, recurs at the same height on enough pages. */
function repeatedLines(pages: RunningPage[]): Set<Fragment> {
  const out = new Set<Fragment>();
  if (pages.length < 2) return out;
  const need = Math.max(2, Math.ceil(pages.length * REPEAT_SHARE));
  const byKey = new Map<string, { page: number; f: Fragment }[]>();
  pages.forEach(({ g, frags }, page) => {
    for (const f of frags) {
      const zone = zoneOf(f, g);
      if (!zone) continue;
      const k = `${zone}:${runningKey(f.text)}`;
      const list = byKey.get(k);
      if (list) list.push({ page, f });
      else byKey.set(k, [{ page, f }]);
    }
  });
  for (const list of byKey.values()) {
    if (new Set(list.map((e) => e.page)).size < need) continue;
    // Each fragment counts the pages with the same text within SAME_HEIGHT_PT of its height: a
    // window slid along the fragments sorted by height (a band full of numbers stays linear).
    list.sort((a, b) => a.f.y - b.f.y);
    const inWindow = new Map<number, number>();
    const add = (page: number, d: number) => {
      const n = (inWindow.get(page) ?? 0) + d;
      if (n) inWindow.set(page, n);
      else inWindow.delete(page);
    };
    let lo = 0;
    let hi = 0;
    for (const e of list) {
      while (hi < list.length && list[hi].f.y <= e.f.y + SAME_HEIGHT_PT) add(list[hi++].page, 1);
      while (list[lo].f.y < e.f.y - SAME_HEIGHT_PT) add(list[lo++].page, -1);
      if (inWindow.size >= need) out.add(e.f);
    }
  }
  return out;
}

/** The fragments that share the baseline of `f` (within half its size). */
const lineOf = (f: Fragment, frags: Fragment[]) => frags.filter((o) => Math.abs(o.y - f.y) < 0.5 * f.size);

/** The page's first and last printed lines, with the distance that parts each from the rest. */
function edgeLines(frags: Fragment[]): { line: Fragment[]; gap: number; zone: Zone }[] {
  if (frags.length < 2) return [];
  const first = frags.reduce((a, b) => (b.top < a.top ? b : a));
  const last = frags.reduce((a, b) => (b.bottom > a.bottom ? b : a));
  const out: { line: Fragment[]; gap: number; zone: Zone }[] = [];
  const top = lineOf(first, frags);
  const restBelow = frags.filter((f) => !top.includes(f));
  if (restBelow.length)
    out.push({
      line: top,
      gap: Math.min(...restBelow.map((o) => o.top)) - Math.max(...top.map((o) => o.bottom)),
      zone: 'top',
    });
  const bottom = lineOf(last, frags);
  const restAbove = frags.filter((f) => !bottom.includes(f));
  if (restAbove.length && bottom !== top)
    out.push({
      line: bottom,
      gap: Math.min(...bottom.map((o) => o.top)) - Math.max(...restAbove.map((o) => o.bottom)),
      zone: 'bottom',
    });
  return out;
}

/** A page number: a number alone on the page's first or last line, in the band, a line's height or more away from the rest. */
function edgeNumbers(frags: Fragment[], g: PageGeometry): Fragment[] {
  return edgeLines(frags)
    .filter(({ line, gap }) => {
      const f = line[0];
      return line.length === 1 && isPageNumber(f.text) && zoneOf(f, g) && gap >= f.size;
    })
    .map(({ line }) => line[0]);
}

/**
 * The header and footer a browser prints on a page (Chromium's: the date and time at the top
 * left, the title at the top centre; the URL at the bottom left, "page/pages" at the bottom
 * right): the page's first line when it starts with a date or a time, its last when it holds
 * only addresses, page counts and dates — set in the band, apart from the text, in small print.
 */
function browserLines(frags: Fragment[], g: PageGeometry): Fragment[] {
  const body = usualSize(frags);
  const out: Fragment[] = [];
  for (const { line, gap, zone } of edgeLines(frags)) {
    if (
      line.some((f) => zoneOf(f, g) !== zone || f.size >= SMALL_PRINT * body) ||
      gap < Math.max(...line.map((f) => f.size))
    )
      continue;
    const ordered = [...line].sort((a, b) => a.x0 - b.x0);
    const browserTop = zone === 'top' && isDateTime(ordered[0].text) && line.length <= 3;
    const browserBottom =
      zone === 'bottom' &&
      line.some((f) => isUrl(f.text) || isPageNumber(f.text)) &&
      line.every((f) => isUrl(f.text) || isPageNumber(f.text) || isDateTime(f.text));
    if (browserTop || browserBottom) out.push(...line);
  }
  return out;
}

/** The font size most of the page's characters are set in. */
function usualSize(frags: Fragment[]): number {
  const count = new Map<number, number>();
  for (const f of frags) count.set(f.size, (count.get(f.size) ?? 0) + f.text.length);
  return [...count].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
}
