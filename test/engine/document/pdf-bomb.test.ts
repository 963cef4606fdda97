/**
 * Bounded and fair PDFs (issue 39): a compression bomb ends with a clear error, not a hang or
 * gigabytes of memory; the worker it grew is replaced; one owner's bombs do not hold up
 * another owner's small PDF or page.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { pdfToMarkdown, PdfUnreadable } from '../../../src/engine/document/pdf.js';
import { DocumentPool, ownedBy, type DocumentProcessor, type JobControl } from '../../../src/engine/document/pool.js';
import { makePdf, makePdfBomb } from '../../helpers/pdf.js';

const MiB = 2 ** 20;
const bytes = (b: Buffer) => new Uint8Array(b);

describe('a PDF whose streams inflate past the limit', () => {
  it('is refused with a clear reason when nothing could be read before (the default limit, 128 MiB)', async () => {
    const bomb = await makePdfBomb(200 * MiB);
    // The bomb: 204 KB of file.
    expect(bomb.length).toBeLessThan(250_000);
    const read = pdfToMarkdown(bytes(bomb));
    await expect(read).rejects.toBeInstanceOf(PdfUnreadable);
    await expect(read).rejects.toThrow(
      'its streams inflate to more than 128 MiB (the limit for one document) before its first page is read: a compression bomb, or a document too large to read',
    );
  });

  it('gives the pages read before it, and says where it stopped', async () => {
    const bomb = await makePdfBomb(24 * MiB, { before: [['First page words'], ['Second page words']] });
    const r = await pdfToMarkdown(bytes(bomb), { maxInflatedBytes: 8 * MiB });
    expect(r.pages).toBe(3);
    expect(r.markdown).toContain('First page words');
    expect(r.markdown).toContain('Second page words');
    expect(r.warnings).toEqual([
      "the PDF's streams inflate to more than 8 MiB (the limit for one document); only the first 2 of its 3 pages were read",
    ]);
    // Under a limit it fits, the same document reads to its end.
    const whole = await pdfToMarkdown(bytes(bomb), { maxInflatedBytes: 256 * MiB });
    expect(whole.warnings).toEqual([]);
  });

  it('counts Brotli streams too (their decoder writes the whole output at once)', async () => {
    const bomb = await makePdfBomb(32 * MiB, { filter: 'BrotliDecode' });
    await expect(pdfToMarkdown(bytes(bomb), { maxInflatedBytes: 8 * MiB })).rejects.toThrow(
      'its streams inflate to more than 8 MiB',
    );
  });

  it('keeps each document to its own limit when several are read at once on one thread', async () => {
    const [bomb, small] = [await makePdfBomb(24 * MiB), makePdf(['A small PDF'])];
    const results = await Promise.allSettled([
      pdfToMarkdown(bytes(bomb), { maxInflatedBytes: 8 * MiB }),
      pdfToMarkdown(bytes(small), { maxInflatedBytes: 8 * MiB }),
      pdfToMarkdown(bytes(bomb), { maxInflatedBytes: 256 * MiB }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseFulfilledResult<{ markdown: string }>).value.markdown).toBe('A small PDF');
  });
});

describe('owners', () => {
  it("an owner's view of the processor stamps its jobs with the owner, and does not close the pool", async () => {
    const seen: (JobControl | undefined)[] = [];
    let closed = false;
    const inner: DocumentProcessor = {
      process: async (_s, _o, _e, control) => (seen.push(control), { metadata: {} as never }),
      processPdf: async (_b, _o, control) => (
        seen.push(control),
        { markdown: '', title: null, pages: 0, warnings: [] }
      ),
      close: async () => void (closed = true),
    };
    const mine = ownedBy(inner, 'acct-1');
    const deadline = Date.now() + 1000;
    await mine.process('<p>x</p>', { url: 'https://a.example/' }, undefined, { deadline });
    await mine.processPdf!(new Uint8Array(), {});
    await mine.close();
    expect(seen).toEqual([{ deadline, owner: 'acct-1' }, { owner: 'acct-1' }]);
    expect(closed).toBe(false);
  });
});

const workerUrl = new URL('../../../dist/engine/document/worker.js', import.meta.url);
describe.skipIf(!existsSync(fileURLToPath(workerUrl)))('PDF bombs in the document pool (needs npm run build)', () => {
  const pools: DocumentPool[] = [];
  const pool = (o: ConstructorParameters<typeof DocumentPool>[0]) => {
    const p = new DocumentPool({ workerUrl, warmUpPasses: 0, ...o });
    pools.push(p);
    return p;
  };
  afterEach(() => Promise.all(pools.splice(0).map((p) => p.close())));

  it('fails a bomb with the reason, and replaces the worker it grew; a small PDF does not', async () => {
    const p = pool({ size: 1 });
    const small = bytes(makePdf(['Hello from a small PDF']));
    const [first] = p.threadIds;
    expect((await p.processPdf(small, {})).markdown).toBe('Hello from a small PDF');
    expect(p.threadIds).toEqual([first]);
    await expect(p.processPdf(bytes(await makePdfBomb(200 * MiB)), {})).rejects.toThrow(
      'its streams inflate to more than 128 MiB',
    );
    // Replaced at once (its memory goes with its thread), before anything else lands on it.
    expect(p.size).toBe(1);
    expect(p.threadIds).not.toEqual([first]);
    expect((await p.processPdf(small, {})).markdown).toBe('Hello from a small PDF');
  });

  it('an idle worker a PDF grew past a fresh one is replaced once rested: an idle service gives memory back', async () => {
    const p = pool({ size: 1, restedIdleMs: 300 });
    const small = bytes(makePdf(['Hello from a small PDF']));
    const [first] = p.threadIds;
    expect((await p.processPdf(small, {})).markdown).toBe('Hello from a small PDF');
    // pdf.js now loaded: the heap is well past a fresh worker's, kept while work goes on.
    expect(p.threadIds).toEqual([first]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(p.threadIds).not.toEqual([first]);
    expect((await p.processPdf(small, {})).markdown).toBe('Hello from a small PDF');
  });

  it("answers another owner's small PDF and page while one owner's bombs wait their turn", async () => {
    // Two workers: one owner's heavy jobs run one at a time, the other worker stays free.
    const p = pool({ size: 2, pdfMaxInflatedBytes: 64 * MiB });
    const bomb = bytes(await makePdfBomb(200 * MiB));
    const done: string[] = [];
    const note =
      (name: string) =>
      <T>(r: T) => (done.push(name), r);
    const bombs = Array.from({ length: 4 }, (_, i) =>
      p.processPdf(bomb, {}, { owner: 'a' }).then(note(`bomb ${i}`), note(`bomb ${i}`)),
    );
    const pdf = p.processPdf(bytes(makePdf(['B has a small PDF'])), {}, { owner: 'b' }).then(note('b pdf'));
    const page = p
      .process('<html><body><h1>B page</h1><p>A small page of owner B.</p></body></html>', {
        url: 'https://b.example/',
      })
      .then(note('b page'));
    expect((await pdf).markdown).toBe('B has a small PDF');
    expect((await page).markdown).toContain('A small page of owner B.');
    await Promise.all(bombs);
    // B's PDF went to the free worker at once; A's second bomb waited for its first.
    expect(done.indexOf('b pdf')).toBeLessThan(done.indexOf('bomb 1'));
    expect(done.indexOf('b page')).toBeLessThan(done.indexOf('bomb 1'));
    expect(done.filter((d) => d.startsWith('bomb'))).toHaveLength(4);
  });
});
