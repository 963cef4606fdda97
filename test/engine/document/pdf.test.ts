/**
 * PDF → markdown on small PDFs made for the purpose: the "real-like" documents of
 * test/fixtures/pdf (printed by Chromium from HTML: two and three columns, running headers
 * and footers, hyphenated words, unruled, booktabs and ruled tables, lists, a right-to-left
 * report; made by test/fixtures/pdf/make.ts, with the markdown they should give) and PDFs
 * written byte by byte here (pdf-writer.ts) for one behaviour each.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pdfToMarkdown, PdfUnreadable, type PdfMarkdown } from '../../../src/engine/document/pdf.js';
import { DocumentPool } from '../../../src/engine/document/pool.js';
import { writePdf, type TextSpec } from './pdf-writer.js';

const FIXTURES = new URL('../../fixtures/pdf/', import.meta.url);
const fixture = (id: string) => new Uint8Array(readFileSync(new URL(`${id}.pdf`, FIXTURES)));
const truth = (id: string) => readFileSync(new URL(`${id}.md`, FIXTURES), 'utf8');
const read = (bytes: Uint8Array | Buffer, maxPages?: number) => pdfToMarkdown(new Uint8Array(bytes), { maxPages });

/** The truth's blocks (paragraphs, headings, lists, tables) that the markdown does not contain word for word. */
const missing = (md: string, id: string) =>
  truth(id)
    .split('\n\n')
    .map((b) => b.trim())
    .filter((b) => b && !md.includes(b));

describe('PDFs printed from HTML (test/fixtures/pdf)', () => {
  const results = new Map<string, PdfMarkdown>();
  const get = async (id: string) => results.get(id) ?? results.set(id, await read(fixture(id))).get(id)!;

  it('a report: heading levels, paragraphs, lists and unruled tables as GFM', async () => {
    const r = await get('report-unruled-tables');
    expect(r.markdown.startsWith('# Community Library Annual Report 2023\n\n')).toBe(true);
    expect(r.markdown).toContain(
      '\n\n## Highlights\n\n- Visits rose to 148,200, up twelve percent on the previous year.\n- The new children',
    );
    expect(r.markdown).toContain(
      '| Collection | 2022 | 2023 | Change |\n| --- | --- | --- | --- |\n| Adult fiction | 41,320 | 43,870 | +6.2% |\n| Adult non-fiction | 28,150 | 27,410 | -2.6% |',
    );
    // A booktabs table (rules above, below and under the header, none between columns).
    expect(r.markdown).toContain('| Item | Budget | Actual |\n| --- | --- | --- |\n| Staff | 412,000 | 408,650 |');
    expect(r.markdown).toContain(
      '1. Extend opening hours on Thursday and Friday evenings.\n2. Renew the study room furniture',
    );
    expect(missing(r.markdown, 'report-unruled-tables')).toEqual([]);
  });

  it('drops running headers, footers and page numbers, and joins a paragraph cut by a page break', async () => {
    const r = await get('report-unruled-tables');
    expect(r.pages).toBe(2);
    expect(r.markdown).not.toContain('Riverside Community Library — Annual Report 2023');
    expect(r.markdown).not.toMatch(/Page \d of 2/);
    const paper = await get('paper-two-columns');
    expect(paper.markdown).not.toContain('Journal of Applied Field Studies · Vol. 12');
    expect(paper.markdown).not.toMatch(/^\d+$/m);
    const manual = await get('manual-steps');
    // The running header repeats the title's words: the title, set elsewhere, stays.
    expect(manual.markdown.startsWith('# Model K2 Electric Kettle\n\n')).toBe(true);
    expect(manual.markdown.match(/Model K2 Electric Kettle/g)).toHaveLength(1);
  });

  it('two columns: read column by column, hyphenated words made whole', async () => {
    const r = await get('paper-two-columns');
    const order = [
      '# Low-Cost Soil',
      'Abstract. We evaluate',
      '## 1 Introduction',
      '## 2 Materials and Methods',
      '### 2.2 Sensors and calibration',
      '## 3 Results',
      '## 4 Discussion',
      '## 5 Conclusion',
      '## References',
    ];
    const at = order.map((s) => r.markdown.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // Soft hyphens broke long words at line ends (a hyphen glyph in the PDF): none is left.
    expect(r.markdown).not.toMatch(/[\u00AD\u2010]/);
    expect(r.markdown).toContain('The experiments took place at three locations with contrasting soils');
    expect(r.markdown).toContain(
      '| Soil | Plots | RMSE raw | RMSE calibrated |\n| --- | --- | --- | --- |\n| Sandy loam | 14 | 6.2 | 2.9 |',
    );
    expect(missing(r.markdown, 'paper-two-columns')).toEqual([]);
  });

  it('three narrow justified columns are text, not tables', async () => {
    const r = await get('newsletter-three-columns');
    expect(r.markdown).not.toContain('| --- |');
    expect(r.markdown).toContain(
      'The municipality has approved a separate cycle lane along the north quay, connecting the ferry terminal with the railway station.',
    );
    expect(missing(r.markdown, 'newsletter-three-columns').length).toBeLessThanOrEqual(1);
  });

  it('a manual: ruled table, nested and numbered lists', async () => {
    const r = await get('manual-steps');
    expect(r.markdown).toContain(
      '| Problem | Possible cause | Solution |\n| --- | --- | --- |\n| The kettle does not switch on | The plug is not connected | Connect the plug to the socket |',
    );
    expect(r.markdown).toContain(
      '- Do not fill the kettle above the maximum mark:\n  - boiling water may be ejected from the spout;\n  - the lid may open while the water boils.\n- Keep',
    );
    expect(r.markdown).toContain(
      '\n\n### Before first use\n\n1. Remove all packaging and stickers from the kettle.\n2. Fill the kettle',
    );
    expect(missing(r.markdown, 'manual-steps')).toEqual([]);
  });

  it('a book: paragraphs told apart by their indented first line, a table with a column of notes', async () => {
    const r = await get('book-chapter');
    expect(r.markdown).toContain(
      'and each needed houses, shops, a chapel and eventually a school.\n\nThe pattern repeated itself with remarkable regularity.',
    );
    expect(r.markdown).toContain('| Weaver (adult man) | 12 shillings | fines deducted for faults in the cloth |');
    expect(r.markdown).not.toContain('RIVERS AND TOWNS');
    expect(missing(r.markdown, 'book-chapter')).toEqual([]);
  });

  it('right-to-left pages keep their words in reading order', async () => {
    const r = await get('rtl-hebrew-report');
    expect(r.markdown.startsWith('# דוח שנתי על משק המים בעיר\n\n')).toBe(true);
    expect(r.markdown).toContain('1. החלפת הצנרת בשכונת הגבעה.\n2. הרחבת מערך המדים החכמים לבתי מגורים.');
    expect(missing(r.markdown, 'rtl-hebrew-report')).toEqual([]);
    // Arabic is drawn in joined letter forms (U+FExx); the text is the letters themselves.
    const ar = await get('rtl-arabic-notice');
    expect(ar.markdown.startsWith('# تقرير المياه السنوي\n\n')).toBe(true);
    expect(ar.markdown).not.toMatch(/[\uFB50-\uFDFF\uFE70-\uFEFF]/);
    expect(missing(ar.markdown, 'rtl-arabic-notice')).toEqual([]);
  });

  it('metadata: page count and the document title', async () => {
    const r = await get('paper-two-columns');
    expect(r.pages).toBe(2);
    expect(r.title).toBe('Low-Cost Soil Moisture Sensing for Smallholder Irrigation');
    expect(r.warnings).toEqual([]);
  });
});

/** Lines of body text from `top` down, 14 pt apart. */
const body = (lines: string[], top: number, x = 72): TextSpec[] =>
  lines.map((text, i) => ({ x, y: top - i * 14, size: 11, text }));

describe('PDFs written for one behaviour each', () => {
  it('headings from font size and weight, levels by size', async () => {
    const pdf = writePdf({
      pages: [
        {
          texts: [
            { x: 72, y: 760, size: 22, text: 'Field Guide', bold: true },
            ...body(
              [
                'An introduction that runs over two lines of text, set in the',
                'body size of the document, as most of its words are.',
              ],
              720,
            ),
            { x: 72, y: 670, size: 15, text: 'Birds of the Coast', bold: true },
            ...body(
              [
                'Gulls and terns nest on the cliffs from April to July and',
                'leave the colonies once the young can fly.',
              ],
              645,
            ),
            { x: 72, y: 600, size: 11, text: 'Identification', bold: true },
            ...body(['Look at the colour of the legs and the bill first.'], 580),
          ],
        },
      ],
    });
    const { markdown, title } = await read(pdf);
    expect(markdown).toBe(
      [
        '# Field Guide',
        'An introduction that runs over two lines of text, set in the body size of the document, as most of its words are.',
        '## Birds of the Coast',
        'Gulls and terns nest on the cliffs from April to July and leave the colonies once the young can fly.',
        '### Identification',
        'Look at the colour of the legs and the bill first.',
      ].join('\n\n'),
    );
    // No title in the document info: the first heading is the title.
    expect(title).toBe('Field Guide');
  });

  it('heading levels from the document outline when it has one', async () => {
    // Both headings are set alike; only the outline says one is a section of the other.
    const pdf = writePdf({
      outline: [
        { title: 'Installation', depth: 0 },
        { title: 'On Linux', depth: 1 },
      ],
      pages: [
        {
          texts: [
            { x: 72, y: 760, size: 14, text: 'Installation', bold: true },
            ...body(['Download the package for your system.'], 735),
            { x: 72, y: 700, size: 14, text: 'On Linux', bold: true },
            ...body(['Unpack the archive and run the installer.'], 675),
          ],
        },
      ],
    });
    expect((await read(pdf)).markdown).toBe(
      '# Installation\n\nDownload the package for your system.\n\n## On Linux\n\nUnpack the archive and run the installer.',
    );
  });

  it('undoes hyphenation at line ends and keeps a compound the document writes with its hyphen', async () => {
    const pdf = writePdf({
      pages: [
        {
          texts: body(
            [
              'The committee reviewed the docu-',
              'ment in a well-',
              'known format, a well known and docu-',
              'mented practice in every depart-',
              'ment of the office.',
            ],
            700,
          ),
        },
      ],
    });
    const { markdown } = await read(pdf);
    expect(markdown).toBe(
      'The committee reviewed the document in a well-known format, a well known and documented practice in every department of the office.',
    );
  });

  it('drops running headers, footers and page numbers; joins a sentence cut by a page break', async () => {
    const page = (n: number, lines: string[]) => ({
      texts: [
        { x: 72, y: 800, size: 9, text: 'ACME Corporation — Internal Audit 2024' },
        ...body(lines, 740),
        { x: 290, y: 40, size: 9, text: String(n) },
      ],
    });
    const pdf = writePdf({
      pages: [
        page(1, [
          'The audit covered the purchasing department and the warehouse',
          'in the first quarter. Stock counts matched the ledger for all but',
        ]),
        page(2, ['three items, which were traced to a delivery booked twice.', 'No further issues were found.']),
        page(3, ['The team recommends a second count in the autumn.']),
      ],
    });
    const { markdown, pages } = await read(pdf);
    expect(pages).toBe(3);
    expect(markdown).toBe(
      'The audit covered the purchasing department and the warehouse in the first quarter. Stock counts matched the ledger for all but three items, which were traced to a delivery booked twice. No further issues were found.\n\nThe team recommends a second count in the autumn.',
    );
  });

  it('a table drawn with ruling lines becomes a GFM table', async () => {
    const xs = [72, 200, 300, 400];
    const ys = [700, 680, 660, 640];
    const lines: [number, number, number, number][] = [
      ...xs.map((x): [number, number, number, number] => [x, 640, x, 700]),
      ...ys.map((y): [number, number, number, number] => [72, y, 400, y]),
    ];
    const cell = (c: number, r: number, text: string, bold = false): TextSpec => ({
      x: xs[c] + 4,
      y: ys[r] - 14,
      size: 10,
      text,
      bold,
    });
    const pdf = writePdf({
      pages: [
        {
          lines,
          texts: [
            ...body(['Results of the spring survey:'], 730),
            cell(0, 0, 'Site', true),
            cell(1, 0, 'Nests', true),
            cell(2, 0, 'Chicks', true),
            cell(0, 1, 'North cliff'),
            cell(1, 1, '42'),
            cell(2, 1, '61'),
            cell(0, 2, 'Harbour wall'),
            cell(1, 2, '17'),
            cell(2, 2, '20'),
            ...body(['Counts were made from the water.'], 610),
          ],
        },
      ],
    });
    const { markdown } = await read(pdf);
    expect(markdown).toBe(
      'Results of the spring survey:\n\n| Site | Nests | Chicks |\n| --- | --- | --- |\n| North cliff | 42 | 61 |\n| Harbour wall | 17 | 20 |\n\nCounts were made from the water.',
    );
  });

  it('a page whose text runs sideways or upside down is read turned upright', async () => {
    const texts = [
      { x: 72, y: 760, size: 20, text: 'Landscape Table', bold: true },
      ...body(['Its first line of text,', 'and its second.'], 730),
    ];
    for (const rotate of [90, 180, 270]) {
      expect((await read(writePdf({ rotate, pages: [{ texts }] }))).markdown).toBe(
        '# Landscape Table\n\nIts first line of text, and its second.',
      );
    }
  });

  it('reads at most max_pages pages and says so', async () => {
    const pdf = writePdf({
      title: 'Three pages',
      pages: [1, 2, 3].map((n) => ({ texts: body([`Text of page ${n}.`], 700) })),
    });
    const r = await read(pdf, 2);
    expect(r.pages).toBe(3);
    expect(r.markdown).toContain('Text of page 2.');
    expect(r.markdown).not.toContain('Text of page 3.');
    expect(r.warnings).toEqual(['the PDF has 3 pages; only the first 2 were read (pdf.max_pages)']);
    expect(r.title).toBe('Three pages');
    expect((await read(pdf)).markdown).toContain('Text of page 3.');
  });

  it('says why a PDF cannot be read: encrypted, damaged, empty', async () => {
    const page = { texts: body(['Secret text.'], 700) };
    await expect(read(writePdf({ pages: [page], encrypted: true }))).rejects.toThrow(
      new PdfUnreadable('it is encrypted and needs a password to open'),
    );
    await expect(read(Buffer.from('%PDF-1.7\nnot a PDF after all\n%%EOF\n'))).rejects.toThrow(
      /^it is damaged or not a PDF \(Invalid PDF structure\.\)$/,
    );
    await expect(read(writePdf({ pages: [page] }).subarray(0, 180))).rejects.toThrow(/damaged/);
    await expect(read(Buffer.alloc(0))).rejects.toBeInstanceOf(PdfUnreadable);
  });

  it('stops between pages once the request has used its time (no worker to stop it)', async () => {
    const pdf = writePdf({ pages: [1, 2].map((n) => ({ texts: body([`Page ${n}.`], 700) })) });
    await expect(pdfToMarkdown(new Uint8Array(pdf), { deadline: Date.now() - 1 })).rejects.toMatchObject({
      code: 'timeout',
    });
  });

  it('a page without a text layer gives an empty markdown and a warning', async () => {
    const r = await read(writePdf({ pages: [{ texts: [], lines: [[72, 700, 300, 700]] }] }));
    expect(r.markdown).toBe('');
    expect(r.warnings).toEqual(['the PDF has no text layer (a scan or images of text); nothing could be read']);
  });
});

const workerUrl = new URL('../../../dist/engine/document/worker.js', import.meta.url);
describe.skipIf(!existsSync(fileURLToPath(workerUrl)))('PDFs in the document pool (needs npm run build)', () => {
  const pools: DocumentPool[] = [];
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it('converts on a worker thread exactly as inline, and reports an unreadable PDF by its reason', async () => {
    const pool = new DocumentPool({ size: 1, workerUrl, warmUpPasses: 0 });
    pools.push(pool);
    const bytes = fixture('paper-two-columns');
    expect(await pool.processPdf(bytes, {})).toEqual(await read(bytes));
    await expect(
      pool.processPdf(new Uint8Array(writePdf({ pages: [{ texts: body(['x'], 700) }], encrypted: true })), {}),
    ).rejects.toThrow('it is encrypted and needs a password to open');
  });

  it('stops a PDF that runs past the per-document time limit; the worker goes on with the next one', async () => {
    const pool = new DocumentPool({ size: 1, workerUrl, warmUpPasses: 0, jobTimeoutMs: 5 });
    pools.push(pool);
    await expect(pool.processPdf(fixture('manual-steps'), {})).rejects.toMatchObject({ code: 'timeout' });
    expect(pool.size).toBe(1);
  });
});
