/**
 * Bounded PDFs (issue 39): a compression bomb ends with a clear error, not a hang or
 * gigabytes of memory.
 */
import { describe, expect, it } from 'vitest';
import { pdfToMarkdown, PdfUnreadable } from '../../../src/engine/document/pdf.js';
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
