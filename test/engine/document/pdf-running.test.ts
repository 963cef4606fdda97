/**
 * Running headers, footers and page numbers (pdf-running.ts): the shapes it knows, as
 * must-match / must-not-match tables, then whole documents — written byte by byte with
 * headers and page numbers in several styles, and pages printed by Chromium with its own
 * header and footer (test/fixtures/pdf/make-printed-pages.ts) — whose markdown must keep the
 * body, every line of it, and nothing of the margins.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pdfToMarkdown } from '../../../src/engine/document/pdf.js';
import type { Fragment } from '../../../src/engine/document/pdf-lines.js';
import {
  dropRunningLines,
  isDateTime,
  isPageNumber,
  isUrl,
  runningKey,
} from '../../../src/engine/document/pdf-running.js';
import { writePdf, type TextSpec } from './pdf-writer.js';

const FIXTURES = new URL('../../fixtures/pdf/', import.meta.url);
const read = async (bytes: Uint8Array | Buffer) => (await pdfToMarkdown(new Uint8Array(bytes))).markdown;

describe('shapes', () => {
  it.each([
    ['7', true],
    ['- 7 -', true],
    ['— 12 —', true],
    ['(7)', true],
    ['Page 7', true],
    ['page 7 of 12', true],
    ['7 of 12', true],
    ['7/12', true],
    ['p. 7', true],
    ['vii', true],
    ['| 7', true],
    ['3-14', true],
    ['A-2', true],
    ['Page 3–14', true],
    ['2024 sales', false],
    ['7 apples', false],
    ['Section 7', false],
    ['12345', false],
    ['7.5', false],
    ['civil', false],
    ['iiii', false],
    ['1999-2004', false],
    ['A-team', false],
  ])('page number %j: %s', (text, yes) => expect(isPageNumber(text)).toBe(yes));

  it.each([
    ['11/28/26, 9:25 AM', true],
    ['28/11/2026, 09:25', true],
    ['28.11.2026 09:25', true],
    ['2026-11-28', true],
    ['9:25 PM', true],
    ['14:05:33', true],
    ['About Acme', false],
    ['Chapter 3', false],
    ['11/28/26 meeting notes', false],
    ['3/10', false],
    ['', false],
  ])('date or time %j: %s', (text, yes) => expect(isDateTime(text)).toBe(yes));

  it.each([
    ['file:///home/ann/Downloads/about.html', true],
    ['https://example.com/about?x=1', true],
    ['www.example.com', true],
    ['example.com is our site', false],
    ['Note: see below', false],
  ])('address %j: %s', (text, yes) => expect(isUrl(text)).toBe(yes));

  it('running keys: page numbers, dates and roman numerals aside, the text is the same on every page', () => {
    expect(runningKey('Page 3 of 10')).toBe(runningKey('Page 4 of 10'));
    expect(runningKey('- 3 -')).toBe(runningKey('- 14 -'));
    expect(runningKey('Annual Report · iv')).toBe(runningKey('Annual Report · xii'));
    expect(runningKey('Printed 3/4/2024, 10:15')).toBe(runningKey('Printed 3/4/2024, 10:15'));
    expect(runningKey('Annual Report')).not.toBe(runningKey('Annual Review'));
    // (a word that merely contains roman letters stays a word)
    expect(runningKey('civil vice')).toBe('civil vice');
  });
});

/** Body lines set in 11 pt, 14 pt apart, from `top` down. */
const body = (lines: string[], top: number, x = 72): TextSpec[] =>
  lines.map((text, i) => ({ x, y: top - i * 14, size: 11, text }));

const PAGES = [
  [
    'The council met in the town hall on the first Monday of March.',
    'Eleven members were present and two sent apologies.',
  ],
  ['The treasurer reported that the year ended with a small surplus.', 'The number of households served this year was'],
  [
    'The meeting agreed to repair the roof of the library before winter.',
    'The chair thanked the volunteers for their work.',
  ],
  ['The next meeting will be held on the first Monday of June.', 'The minutes were approved without changes.'],
];
/** What the body reads as: each page's lines as a paragraph, and the number in the middle of page 2 on its own. */
const BODY = [
  'The council met in the town hall on the first Monday of March. Eleven members were present and two sent apologies.',
  'The treasurer reported that the year ended with a small surplus. The number of households served this year was',
  '2417',
  'The meeting agreed to repair the roof of the library before winter. The chair thanked the volunteers for their work.',
  'The next meeting will be held on the first Monday of June. The minutes were approved without changes.',
].join('\n\n');

/** Four pages of minutes with the given header and footer lines (page number n of 4), and a number alone mid-page 2. */
function minutes(margins: (n: number) => TextSpec[]): Buffer {
  return writePdf({
    pages: PAGES.map((lines, i) => ({
      texts: [
        ...body(lines, 700),
        // A body line that is only a number, in the middle of the page.
        ...(i === 1 ? [{ x: 72, y: 420, size: 11, text: '2417' }] : []),
        ...margins(i + 1),
      ],
    })),
  });
}

describe('running headers, footers and page numbers of a document of several pages', () => {
  const styles: [string, (n: number) => TextSpec[]][] = [
    [
      '"Page n of N" centred below, a title above',
      (n) => [
        { x: 72, y: 805, size: 9, text: 'Riverbank Parish Council — Minutes' },
        { x: 260, y: 30, size: 9, text: `Page ${n} of 4` },
      ],
    ],
    ['"n/N" at the bottom right', (n) => [{ x: 500, y: 30, size: 9, text: `${n}/4` }]],
    ['"- n -" centred below', (n) => [{ x: 285, y: 30, size: 10, text: `- ${n} -` }]],
    [
      'a roman page number beside the header',
      (n) => [
        { x: 72, y: 805, size: 9, text: 'Riverbank Parish Council' },
        { x: 500, y: 805, size: 9, text: ['i', 'ii', 'iii', 'iv'][n - 1] },
      ],
    ],
    [
      "a printing date and time above, an address and the page count below (a browser's print)",
      (n) => [
        { x: 20, y: 820, size: 8, text: '3/4/24, 10:15 AM' },
        { x: 250, y: 820, size: 8, text: 'Council minutes' },
        { x: 20, y: 14, size: 8, text: 'https://riverbank.example/minutes/march' },
        { x: 560, y: 14, size: 8, text: `${n}/4` },
      ],
    ],
    [
      'the page number alone on the first line, at alternating sides',
      (n) => [{ x: n % 2 ? 520 : 72, y: 805, size: 10, text: String(n) }],
    ],
  ];
  it.each(styles)('%s: dropped, the body whole', async (_, margins) => {
    expect(await read(minutes(margins))).toBe(BODY);
  });

  it('a number alone in the middle of pages, at the same height on each, is body text', async () => {
    const pdf = writePdf({
      pages: PAGES.map((lines, i) => ({
        texts: [
          ...body(lines, 700),
          { x: 72, y: 420, size: 11, text: String(100 + i) },
          { x: 72, y: 406, size: 11, text: 'visitors.' },
        ],
      })),
    });
    const md = await read(pdf);
    for (const n of ['100', '101', '102', '103']) expect(md).toContain(`${n} visitors.`);
  });
});

describe('repetition across pages, on fragments', () => {
  const frag = (text: string, y: number): Fragment => ({
    text,
    x0: 72,
    x1: 72 + 6 * text.length,
    y,
    top: y - 8,
    bottom: y + 2,
    size: 10,
    bold: 0,
    italic: 0,
    mono: 0,
    rtl: false,
    runs: [],
  });
  const g = { width: 595, height: 842, runs: [], rulings: [], dots: [] };

  it('a band full of numbers on many pages is decided in linear time; only what recurs at one height goes', () => {
    // 300 pages, each with 60 numbers in its bottom band at heights of their own (a table of
    // figures running into the margin) and the page number at the same height on every page.
    let reads = 0;
    // Counted, not timed: every read of a fragment's height is counted (a loaded machine cannot
    // stretch a count). Twice the pages reads about twice as often when linear, four times when not.
    const counted = (f: Fragment): Fragment => {
      const y = f.y;
      return Object.defineProperty({ ...f }, 'y', { enumerable: true, get: () => (reads++, y) });
    };
    const band = (n: number) =>
      Array.from({ length: n }, (_, p) => ({
        g,
        frags: [
          frag('Body text of the page.', 400),
          ...Array.from({ length: 60 }, (_, i) =>
            frag(String(i * 7 + p), 750 + ((p * 61 + i * 13) % 80) + (i % 3) / 10),
          ),
          frag(String(p + 1), 830),
        ].map(counted),
      }));
    const readsFor = (pages: ReturnType<typeof band>) => {
      reads = 0;
      dropRunningLines(pages);
      return reads;
    };
    const half = readsFor(band(150));
    const pages = band(300);
    expect(readsFor(pages) / half).toBeLessThan(3);
    for (const p of pages) {
      expect(p.frags[0].text).toBe('Body text of the page.');
      expect(p.frags.some((f) => f.y === 830)).toBe(false);
    }
  });
});

describe('a document of one page', () => {
  const page = (margins: TextSpec[]) =>
    writePdf({ pages: [{ texts: [...body(PAGES[0], 700), { x: 72, y: 420, size: 11, text: '2417' }, ...margins] }] });
  const ONE = `${PAGES[0].join(' ')}\n\n2417`;

  it.each<[string, TextSpec[]]>([
    ['a bare page number below', [{ x: 290, y: 30, size: 10, text: '1' }]],
    ['"Page 1 of 1" below', [{ x: 270, y: 30, size: 9, text: 'Page 1 of 1' }]],
    ["a manual's chapter and page below", [{ x: 520, y: 30, size: 9, text: '3-14' }]],
    [
      "a browser's header and footer",
      [
        { x: 20, y: 820, size: 8, text: '11/28/26, 9:25 AM' },
        { x: 270, y: 820, size: 8, text: 'About Acme' },
        { x: 20, y: 14, size: 8, text: 'file:///home/ann/about.html' },
        { x: 560, y: 14, size: 8, text: '1/1' },
      ],
    ],
  ])('%s: dropped', async (_, margins) => {
    expect(await read(page(margins))).toBe(ONE);
  });

  it("a date line set as the text is (a letter's), and a small line that is not a date, are kept", async () => {
    const letter = await read(page([{ x: 72, y: 760, size: 11, text: '28/11/2026' }]));
    expect(letter.startsWith('28/11/2026')).toBe(true);
    const note = await read(page([{ x: 20, y: 820, size: 8, text: 'Draft for the committee' }]));
    expect(note).toContain('Draft for the committee');
  });

  it('a page printed by Chromium with its own header and footer (test/fixtures/pdf)', async () => {
    const fixture = (id: string) => new Uint8Array(readFileSync(new URL(`${id}.pdf`, FIXTURES)));
    const truth = (id: string) => readFileSync(new URL(`${id}.md`, FIXTURES), 'utf8').trim();
    for (const id of ['chromium-print-one-page', 'chromium-print-three-pages']) {
      const md = await read(fixture(id));
      expect(md).not.toMatch(/file:\/\/|\d:\d\d [AP]M|\b\d\/\d\b/);
      expect(md).toBe(truth(id));
    }
    // The title appears once, as the page's heading (not again from the header).
    expect((await read(fixture('chromium-print-one-page'))).match(/About Acme/g)).toHaveLength(1);
  });
});
