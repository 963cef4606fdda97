/**
 * The document worker pool runs the compiled pipeline (dist/, built by `npm test` first) on
 * worker threads: same output as inline, jobs spread over workers, crashes contained.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processHtml } from '../../../src/engine/document/index.js';
import { DocumentPool } from '../../../src/engine/document/pool.js';
import { parseHtml } from '../../../src/engine/document/dom.js';
import { extractFromDocument, pageExtraction } from '../../../src/engine/extract/index.js';
import { compileSchema } from '../../../src/engine/extract/schema.js';

const workerUrl = new URL('../../../dist/engine/document/worker.js', import.meta.url);
const compiled = existsSync(fileURLToPath(workerUrl));
const pools: DocumentPool[] = [];
const pool = (size: number, url = workerUrl, warmUpPasses?: number) => {
  const p = new DocumentPool({ size, workerUrl: url, warmUpPasses });
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const page = (i: number) =>
  `<html><head><title>Page ${i}</title><meta name="description" content="About ${i}"></head><body><nav><a href="/">Home</a></nav>
  <article><h1>Page ${i}</h1><p>Paragraph ${i} has words enough, with commas, to be the reading text of the page. <a href="/p/${i + 1}">next</a></p>
  <ul><li>first ${i}</li><li>second</li></ul></article></body></html>`;
const opts = { url: 'https://site.example/p/1', markdown: true, links: true, onlyMainContent: true };

describe.skipIf(!compiled)('document pool (needs npm run build)', () => {
  it('gives the same result as the inline pipeline', async () => {
    const p = pool(1);
    expect(p.size).toBe(1);
    expect(await p.process(page(7), opts)).toEqual(processHtml(page(7), opts));
  });

  it('extracts on the worker what extraction finds inline, from the schema sent as data', async () => {
    const p = pool(1);
    const product = `<html><head><title>Kettle</title><script type="application/ld+json">{"@type":"Product","name":"Kettle","sku":"K-1","offers":{"price":"39.00","priceCurrency":"EUR"}}</script></head><body><h1>Kettle</h1><p>Boils water.</p></body></html>`;
    const extraction = pageExtraction(compileSchema({ name: 'string', price: 'number', currency: 'string', sku: 'string' }));
    // A job whose extractor cannot run here: the worker must do it from the schema alone.
    const remote = await p.process(product, opts, { ...extraction, here: () => { throw new Error('extraction ran on the main thread'); } });
    expect(remote.extracted).toEqual({ json: { name: 'Kettle', price: 39, currency: 'EUR', sku: 'K-1' }, sources: expect.objectContaining({ price: 'json-ld:offers.price' }) });
    expect(remote.extracted).toEqual(extractFromDocument(parseHtml(product), { schema: compileSchema({ name: 'string', price: 'number', currency: 'string', sku: 'string' }), url: opts.url, html: product }));
    const { extracted: _e, ...doc } = remote;
    expect(doc).toEqual(processHtml(product, opts));
  });

  it('spreads many concurrent jobs over its workers and answers each with its own page', async () => {
    const p = pool(2);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => p.process(page(i), opts)));
    results.forEach((r, i) => {
      expect(r.metadata.title).toBe(`Page ${i}`);
      expect(r.links).toContain(`https://site.example/p/${i + 1}`);
    });
  });

  it('fails only the jobs of a worker that dies, and replaces it', async () => {
    const p = pool(1);
    const doomed = p.process(page(1), opts);
    await (p as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots[0].worker.terminate();
    await expect(doomed).rejects.toThrow(/document worker exited/);
    expect(p.size).toBe(1);
    expect((await p.process(page(2), opts)).metadata.title).toBe('Page 2');
  });

  it('warms each worker up at start, answering pages posted meanwhile between passes', async () => {
    // Enough passes to last seconds: a page posted now must not wait for all of them.
    const p = pool(1, workerUrl, 5_000);
    let warm = false;
    const ready = p.ready().then((ms) => ((warm = true), ms));
    expect(await p.process(page(4), opts)).toEqual(processHtml(page(4), opts));
    expect(warm).toBe(false);
    await p.close();
    // A worker that is gone is ready (with nothing to report), not awaited forever.
    expect(await ready).toBeGreaterThanOrEqual(0);
    const q = pool(1, workerUrl, 5);
    expect(await q.ready()).toBeGreaterThan(0);
    expect(await pool(1, workerUrl, 0).ready()).toBe(0);
  });

  it('refuses work once closed', async () => {
    const p = pool(1);
    await p.close();
    await expect(p.process(page(1), opts)).rejects.toThrow(/closed/);
  });
});

describe('document pool watchdog', () => {
  it('stops a worker that sits on a page too long, fails that page with a timeout, and carries on', async () => {
    const p = new DocumentPool({ size: 1, workerUrl: new URL('../../helpers/silent-worker.mjs', import.meta.url), jobTimeoutMs: 200 });
    pools.push(p);
    const started = Date.now();
    await expect(p.process(page(1), opts)).rejects.toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
    // Replaced (timeouts are not crashes), so the pool still has its worker.
    expect(p.size).toBe(1);
  });
});

describe('document pool without workers', () => {
  it('processes inline when there is no compiled worker script or size is 0', async () => {
    for (const p of [pool(2, new URL('./no-such-worker.js', import.meta.url)), pool(0)]) {
      expect(p.size).toBe(0);
      expect(await p.process(page(3), opts)).toEqual(processHtml(page(3), opts));
    }
  });
});
