/**
 * PDFs through the API: POST /v1/scrape on a PDF served by a local server gives structured
 * markdown with metadata.pages and metadata.title, honours pdf.max_pages, and answers an
 * encrypted or damaged PDF with 502 fetch_failed saying why.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';
import { makePdfBomb } from '../../helpers/pdf.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { writePdf } from './pdf-writer.js';

const report = readFileSync(new URL('../../fixtures/pdf/report-unruled-tables.pdf', import.meta.url));
const pdf =
  (body: Buffer, type = 'application/pdf') =>
  (_req: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(200, { 'content-type': type }).end(body);

let service: TestService;
let site: FixtureServer;
let key: string;
let accountId: string;

beforeAll(async () => {
  // A lower limit on what a PDF may inflate to, as an operator would set it.
  service = await startTestService('sqlite', { TRAWL_PDF_MAX_INFLATED_MB: '16' });
  ({ key, accountId } = await service.newKey(100));
  site = await startFixtureServer({
    '/report.pdf': pdf(report),
    // No content type: known by its %PDF- signature.
    '/download': pdf(report, ''),
    '/locked.pdf': pdf(
      writePdf({ pages: [{ texts: [{ x: 72, y: 700, size: 12, text: 'Salaries 2024' }] }], encrypted: true }),
    ),
    '/broken.pdf': pdf(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage\n')),
    '/bomb.pdf': pdf(await makePdfBomb(64 * 2 ** 20)),
  });
});

afterAll(async () => {
  await site?.close();
  await service?.stop();
});

const scrape = (body: Record<string, unknown>) => service.post('/v1/scrape', body, key);

describe('POST /v1/scrape on a PDF', () => {
  it('returns structured markdown, the page count and the title', async () => {
    const res = await scrape({ url: `${site.url}/report.pdf` });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.markdown.startsWith('# Community Library Annual Report 2023\n\n')).toBe(true);
    expect(body.markdown).toContain('| Collection | 2022 | 2023 | Change |\n| --- | --- | --- | --- |');
    expect(body.markdown).not.toContain('Page 1 of 2');
    expect(body.metadata).toMatchObject({
      title: 'Community Library Annual Report 2023',
      pages: 2,
      content_type: 'application/pdf',
      status_code: 200,
    });
    expect(body.warnings).toBeUndefined();
  });

  it('knows a PDF by its signature when the server gives no content type', async () => {
    const body = await (await scrape({ url: `${site.url}/download` })).json();
    expect(body.metadata.pages).toBe(2);
    expect(body.markdown).toContain('## Highlights');
  });

  it('a cached result read with another pdf.max_pages is not served (the limit is part of the cache key)', async () => {
    const url = `${site.url}/report.pdf?cache-key`;
    const one = await (await scrape({ url, pdf: { max_pages: 1 }, max_age: 60_000 })).json();
    expect(one.metadata.cache).toBe('miss');
    const all = await (await scrape({ url, max_age: 60_000 })).json();
    expect(all.metadata.cache).toBe('miss');
    expect(all.warnings).toBeUndefined();
    const again = await (await scrape({ url, pdf: { max_pages: 1 }, max_age: 60_000 })).json();
    expect(again.metadata.cache).toBe('hit');
    expect(again.markdown).toBe(one.markdown);
  });

  it('reads at most pdf.max_pages pages, and says so', async () => {
    const res = await scrape({ url: `${site.url}/report.pdf`, pdf: { max_pages: 1 } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.metadata.pages).toBe(2);
    expect(body.markdown).toContain('## Highlights');
    expect(body.markdown).not.toContain('## Priorities for 2024');
    expect(body.warnings).toEqual(['the PDF has 2 pages; only the first 1 were read (pdf.max_pages)']);
  });

  it('answers 502 fetch_failed naming why for an encrypted or a damaged PDF', async () => {
    const locked = await scrape({ url: `${site.url}/locked.pdf` });
    expect(locked.status).toBe(502);
    expect(await locked.json()).toEqual({
      error: 'fetch_failed',
      detail: `${site.url}/locked.pdf could not be read as a PDF: it is encrypted and needs a password to open`,
    });
    const broken = await scrape({ url: `${site.url}/broken.pdf` });
    expect(broken.status).toBe(502);
    const body = await broken.json();
    expect(body.error).toBe('fetch_failed');
    expect(body.detail).toMatch(/broken\.pdf could not be read as a PDF: it is damaged or not a PDF/);
  });

  it('answers a compression bomb with 502 fetch_failed saying so, and charges nothing', async () => {
    const before = await service.credits(accountId);
    const res = await scrape({ url: `${site.url}/bomb.pdf` });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: 'fetch_failed',
      detail: `${site.url}/bomb.pdf could not be read as a PDF: its streams inflate to more than 16 MiB (the limit for one document) before its first page is read: a compression bomb, or a document too large to read`,
    });
    expect(await service.credits(accountId)).toBe(before);
  });

  it('refuses a bad pdf option with 400 invalid_request naming the field', async () => {
    for (const pdf of [{ max_pages: 0 }, { max_pages: 'all' }, { pages: 3 }, 'yes']) {
      const res = await scrape({ url: `${site.url}/report.pdf`, pdf });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toBe('invalid_request');
      expect(body.detail).toMatch(/^pdf/);
    }
  });
});
