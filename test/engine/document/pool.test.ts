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
    const extraction = pageExtraction(
      compileSchema({ name: 'string', price: 'number', currency: 'string', sku: 'string' }),
    );
    // A job whose extractor cannot run here: the worker must do it from the schema alone.
    const remote = await p.process(product, opts, {
      ...extraction,
      here: () => {
        throw new Error('extraction ran on the main thread');
      },
    });
    expect(remote.extracted).toEqual({
      json: { name: 'Kettle', price: 39, currency: 'EUR', sku: 'K-1' },
      sources: expect.objectContaining({ price: 'json-ld:offers.price' }),
    });
    expect(remote.extracted).toEqual(
      extractFromDocument(parseHtml(product), {
        schema: compileSchema({ name: 'string', price: 'number', currency: 'string', sku: 'string' }),
        url: opts.url,
        html: product,
      }),
    );
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

  it('fails only the page a dying worker was running, re-runs the one queued behind it, and replaces the worker', async () => {
    const p = pool(1);
    const running = p.process(page(1), opts);
    const behind = p.process(page(2), opts);
    await (p as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots[0].worker.terminate();
    await expect(running).rejects.toThrow(/document worker exited/);
    expect((await behind).metadata.title).toBe('Page 2');
    expect(p.size).toBe(1);
    expect((await p.process(page(3), opts)).metadata.title).toBe('Page 3');
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
    const p = new DocumentPool({
      size: 1,
      workerUrl: new URL('../../helpers/silent-worker.mjs', import.meta.url),
      jobTimeoutMs: 200,
    });
    pools.push(p);
    // The silent worker never answers: without the watchdog this never settles (the test's own timeout catches that).
    await expect(p.process(page(1), opts)).rejects.toMatchObject({ code: 'timeout' });
    // Replaced (timeouts are not crashes), so the pool still has its worker.
    expect(p.size).toBe(1);
  });
});

describe.skipIf(!compiled)('one hostile page does not stall the others (needs npm run build)', () => {
  const slowUrl = new URL('../../helpers/slow-worker.mjs', import.meta.url);
  const spin = (pad = 0) => `<html><body><p>SPIN</p>${'x'.repeat(pad)}</body></html>`;
  const slow = (o: { jobTimeoutMs?: number; express?: boolean; largeSlowMs?: number } = {}) => {
    const p = new DocumentPool({
      size: 1,
      workerUrl: slowUrl,
      jobTimeoutMs: o.jobTimeoutMs ?? 30_000,
      express: o.express ?? false,
      largeSlowMs: o.largeSlowMs,
    });
    pools.push(p);
    return p;
  };

  it('stops a page over its budget; the page queued behind it on that worker is re-run and answered', async () => {
    // (A budget a fresh worker's start and a page fit in on a loaded machine: the hostile page never ends.)
    const p = slow({ jobTimeoutMs: 2_000 });
    const hostile = p.process(spin(), opts);
    const next = p.process(page(5), opts);
    await expect(hostile).rejects.toMatchObject({ code: 'timeout' });
    expect((await next).metadata.title).toBe('Page 5');
  });

  it("stops a page when its request's deadline passes, before the pool's own limit", async () => {
    // The pool's own limit (30 s) is the test's timeout: only the request's deadline can end the page in time.
    const p = slow({ jobTimeoutMs: 30_000 });
    await expect(p.process(spin(), opts, undefined, { deadline: Date.now() + 250 })).rejects.toMatchObject({
      code: 'timeout',
      detail: expect.stringMatching(/time budget/),
    });
    expect((await p.process(page(6), opts)).metadata.title).toBe('Page 6');
  });

  it('drops a page whose caller left — queued, posted ahead, or running', async () => {
    const p = slow();
    const queuedGone = new AbortController();
    const aheadGone = new AbortController();
    const runningGone = new AbortController();
    const hostile = p.process(spin(), opts, undefined, { signal: runningGone.signal });
    const prefetched = p.process(page(7), opts);
    const ahead = p.process(page(12), opts, undefined, { signal: aheadGone.signal });
    // A large page is posted only to an idle worker: it waits in the pool's queue.
    const queued = p.process(page(8) + `<!--${'z'.repeat(300_000)}-->`, opts, undefined, { signal: queuedGone.signal });
    expect(p.queued).toBe(1);
    queuedGone.abort(new Error('client left'));
    await expect(queued).rejects.toThrow('client left');
    expect(p.queued).toBe(0);
    aheadGone.abort(new Error('client left early'));
    await expect(ahead).rejects.toThrow('client left early');
    runningGone.abort(new Error('client left too'));
    await expect(hostile).rejects.toThrow('client left too');
    expect((await prefetched).metadata.title).toBe('Page 7');
  });

  it('still drops the pages of a shared signal after its earlier pages all came back', async () => {
    const p = slow();
    const crawl = new AbortController();
    const control = { signal: crawl.signal };
    // A crawl's first page is answered: no page of that signal is left in the pool.
    expect((await p.process(page(9), opts, undefined, control)).metadata.title).toBe('Page 9');
    const running = p.process(spin(), opts, undefined, control);
    const ahead = p.process(page(10), opts, undefined, control);
    const dropped = Promise.all([
      expect(running).rejects.toThrow('crawl cancelled'),
      expect(ahead).rejects.toThrow('crawl cancelled'),
    ]);
    crawl.abort(new Error('crawl cancelled'));
    await dropped;
    expect((await p.process(page(11), opts)).metadata.title).toBe('Page 11');
  });

  it('answers a small page on the express worker while a large one runs', async () => {
    const p = slow({ jobTimeoutMs: 5_000, express: true });
    const large = p.process(spin(400_000), opts);
    // Order, not speed: the small page is answered while the large one (which only its 5 s limit ends) still runs.
    const order: string[] = [];
    void large.then(
      () => order.push('large'),
      () => order.push('large'),
    );
    expect((await p.process(page(9), opts)).metadata.title).toBe('Page 9');
    order.push('small');
    expect(p.expressRunning).toBe(true);
    await large.catch(() => {});
    expect(order).toEqual(['small', 'large']);
  });

  it('starts no express worker for a large page that is quickly done', async () => {
    // (Its limit well past the page's time even on a loaded machine: this is about the rule, not speed.)
    const p = slow({ express: true, largeSlowMs: 5_000 });
    // A real large page (a 400 KB article) takes milliseconds: the small ones behind it wait.
    const large = p.process(page(13) + `<!--${'q'.repeat(400_000)}-->`, opts);
    const small = Array.from({ length: 4 }, (_, i) => p.process(page(20 + i), opts));
    expect((await large).metadata.title).toBe('Page 13');
    expect((await Promise.all(small)).map((r) => r.metadata.title)).toEqual([
      'Page 20',
      'Page 21',
      'Page 22',
      'Page 23',
    ]);
    expect(p.expressRunning).toBe(false);
  });

  it('runs one large page at a time on two workers, small pages beside it', async () => {
    const p = new DocumentPool({ size: 2, workerUrl: slowUrl, jobTimeoutMs: 700, express: false });
    pools.push(p);
    const hostile = p.process(spin(300_000), opts);
    hostile.catch(() => {});
    let largeDone = false;
    const large = p.process(page(14) + `<!--${'z'.repeat(300_000)}-->`, opts).then((r) => ((largeDone = true), r));
    // The other worker is free, but only for small pages: the large one waits its turn.
    expect((await p.process(page(15), opts)).metadata.title).toBe('Page 15');
    expect(largeDone).toBe(false);
    expect(p.queued).toBe(1);
    await expect(hostile).rejects.toMatchObject({ code: 'timeout' });
    expect((await large).metadata.title).toBe('Page 14');
  });

  it('runs the smallest waiting page first', async () => {
    const p = slow({ jobTimeoutMs: 400 });
    const hostile = p.process(spin(), opts);
    hostile.catch(() => {});
    const done: string[] = [];
    const big = p.process(page(10) + `<!--${'y'.repeat(600_000)}-->`, opts).then(() => done.push('big'));
    const small = p.process(page(11), opts).then(() => done.push('small'));
    await Promise.all([big, small]);
    expect(done).toEqual(['small', 'big']);
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
