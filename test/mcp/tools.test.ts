/**
 * `trawl mcp` over stdio, driven by the official MCP client, against a real Trawl service
 * (TRAWL_API_URL, TRAWL_API_KEY) and local sites: the tool list and its schemas; scrape (with a
 * cut to max_tokens and its continuation), search with [n] citations, map, extract, crawl (small
 * and synchronous; large as a job with progress notifications), marketplace, monitors; API errors
 * as tool errors carrying the contract's code; stdout carrying only MCP messages.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectStdio, errorOf, textOf, type StdioSession, type ToolAnswer } from './mcp-client.js';

const para = (i: number) => `Paragraph ${i} of the long page, a plain sentence about tides and the moon, number ${i}.`;
const LONG = articlePage('Long read', Array.from({ length: 80 }, (_, i) => `<p>${para(i + 1)}</p>`).join(''));
const PRODUCT = `<html><head><title>Trail Kettle</title><script type="application/ld+json">{"@type":"Product","name":"Trail Kettle","offers":{"price":"24.50","priceCurrency":"EUR"}}</script></head><body><article><h1>Trail Kettle</h1><p>A light kettle for camping trips, boils a litre in four minutes.</p></article></body></html>`;
const BIG_PAGES = 40;

let site: FixtureServer;
let svc: TestService;
let session: StdioSession;
let accountId: string;
let apiKey: string;

const call = (name: string, args: Record<string, unknown>) =>
  session.client.callTool({ name, arguments: args }) as Promise<ToolAnswer>;

beforeAll(async () => {
  site = await startFixtureServer({
    '/': articlePage(
      'Home',
      `<p>The home page of a small site about the sea, with four pages.</p>${[0, 1, 2, 3].map((i) => `<a href="/n/${i}">Note ${i}</a>`).join(' ')}`,
    ),
    '/long': LONG,
    '/product': PRODUCT,
    '/hook': (_q, res) => res.writeHead(200).end('ok'),
    '/big/': articlePage(
      'Big',
      `<p>The index of a larger site.</p>${Array.from({ length: BIG_PAGES }, (_, i) => `<a href="/big/${i}">Page ${i}</a>`).join(' ')}`,
    ),
    '/dp/B0TESTDE01': readFileSync(join(import.meta.dirname, '../fixtures/marketplace/amazon-de-deal.html'), 'utf8'),
  });
  for (let i = 0; i < 4; i++)
    site.route(
      `/n/${i}`,
      articlePage(`Note ${i}`, `<p>Note ${i} is a small page about tides, with words enough to be content.</p>`),
    );
  // Slow pages, so the job runs long enough to report progress more than once.
  for (let i = 0; i < BIG_PAGES; i++) {
    site.route(
      `/big/${i}`,
      (_q, res) =>
        void setTimeout(
          () =>
            res
              .writeHead(200, { 'content-type': 'text/html' })
              .end(articlePage(`Big ${i}`, `<p>Big page ${i} has a paragraph of content of its own.</p>`)),
          200,
        ),
    );
  }
  const u = site.url;
  site.route('/searx/search', (_q, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        results: [
          { url: `${u}/product`, title: 'A kettle', content: 'Camping kettle' },
          { url: `${u}/long`, title: 'Tides and the moon', content: 'A long read on tides' },
        ],
      }),
    ),
  );
  svc = await startTestService('sqlite', {
    SEARXNG_URL: `${u}/searx`,
    TRAWL_RESOLVE: `www.amazon.de=127.0.0.1:${site.port}`,
    TRAWL_MIN_INTERVAL_SECONDS: '1',
  });
  const k = await svc.newKey(100);
  accountId = k.accountId;
  apiKey = k.key;
  session = await connectStdio({ TRAWL_API_URL: svc.url, TRAWL_API_KEY: k.key });
}, 60_000);

afterAll(async () => {
  await session?.close();
  await svc?.stop();
  await site?.close();
});

describe('trawl mcp (stdio) against a Trawl server', () => {
  it('lists every tool with its JSON-schema input and output', async () => {
    const { tools } = await session.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        'crawl',
        'crawl_status',
        'extract',
        'map',
        'marketplace',
        'meta_ads',
        'monitors_create',
        'monitors_delete',
        'monitors_get',
        'monitors_history',
        'monitors_list',
        'scrape',
        'search',
      ].sort(),
    );
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    const scrape = byName.scrape.inputSchema as any;
    expect(scrape.required).toEqual(['url']);
    expect(scrape.properties.max_tokens).toMatchObject({ type: 'integer', minimum: 100 });
    expect(scrape.properties.formats.items.enum).toEqual(['markdown', 'json', 'links', 'html']);
    expect((byName.extract.inputSchema as any).required.sort()).toEqual(['schema', 'urls']);
    expect((byName.monitors_create.inputSchema as any).required.sort()).toEqual([
      'interval',
      'url',
      'watch',
      'webhook',
    ]);
    expect((byName.meta_ads.inputSchema as any).properties.active_status.enum).toEqual(['active', 'inactive', 'all']);
    expect(byName.monitors_delete.annotations).toMatchObject({ destructiveHint: true });
  });

  it('scrape answers the markdown and its metadata, for one credit', async () => {
    const before = await svc.credits(accountId);
    const r = await call('scrape', { url: `${site.url}/n/1` });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      url: `${site.url}/n/1`,
      title: 'Note 1',
      truncated: false,
      metadata: { status_code: 200 },
    });
    expect(r.structuredContent.markdown).toContain('Note 1 is a small page about tides');
    expect(textOf(r)).toContain(`URL: ${site.url}/n/1`);
    expect(await svc.credits(accountId)).toBe(before - 1);
  });

  it('cuts long markdown at a paragraph boundary within max_tokens, says how to read on, and reads on without another fetch', async () => {
    const before = await svc.credits(accountId);
    const hits = site.hits('/long');
    const first = await call('scrape', { url: `${site.url}/long`, max_tokens: 150 });
    const s = first.structuredContent;
    expect(s.truncated).toBe(true);
    expect(s.markdown.length).toBeLessThanOrEqual(600);
    expect(s.markdown).toMatch(/number \d+\.$/); // a whole paragraph ends it
    expect(s.total_chars).toBeGreaterThan(6000);
    expect(textOf(first)).toContain(
      `[Cut to fit 150 tokens: characters 0–${s.next_offset} of ${s.total_chars} shown. To read on, call scrape again with url "${site.url}/long", the same options and offset ${s.next_offset}`,
    );
    const lastShown = Number(/number (\d+)\.$/.exec(s.markdown)![1]);
    const second = await call('scrape', { url: `${site.url}/long`, max_tokens: 150, offset: s.next_offset });
    expect(second.structuredContent.offset).toBe(s.next_offset);
    expect(second.structuredContent.markdown.startsWith(para(lastShown + 1))).toBe(true);
    // The continuation came from the copy already fetched: one fetch, one credit.
    expect(site.hits('/long')).toBe(hits + 1);
    expect(await svc.credits(accountId)).toBe(before - 1);
    // A budget big enough takes it whole.
    const whole = await call('scrape', { url: `${site.url}/long`, max_tokens: 5000 });
    expect(whole.structuredContent.truncated).toBe(false);
    expect(whole.structuredContent.markdown).toContain(para(80));
  });

  it('search numbers results [n] for citation, with highlights and excerpts', async () => {
    const r = await call('search', { query: 'tides moon', limit: 2, max_tokens: 300 });
    expect(r.isError).toBeFalsy();
    const results = r.structuredContent.results;
    expect(results.map((x: any) => x.citation)).toEqual(['[1]', '[2]']);
    expect(results[0].url).toBe(`${site.url}/long`);
    expect(results[0].highlights[0]).toMatch(/tides and the moon/);
    expect(results[0].excerpt.length).toBeLessThanOrEqual(1200);
    expect(r.structuredContent.excerpts_cut).toBe(true);
    const text = textOf(r);
    expect(text).toMatch(/Cite a result by its number, e\.g\. \[1\]/);
    expect(text).toContain(`[1] Tides and the moon — 127.0.0.1\nURL: ${site.url}/long`);
    expect(text).toContain('[2] A kettle');
    expect(text).toContain("call scrape with a result's URL");
  });

  it('map lists the site URLs', async () => {
    const r = await call('map', { url: `${site.url}/`, use_sitemap: false });
    expect(r.isError).toBeFalsy();
    const urls = r.structuredContent.links.map((l: any) => l.url);
    for (let i = 0; i < 4; i++) expect(urls).toContain(`${site.url}/n/${i}`);
    expect(r.structuredContent.shown).toBe(urls.length);
    expect(textOf(r)).toMatch(/URLs found on/);
  });

  it('extract returns schema-shaped data, and an invalid schema is a tool error with invalid_schema', async () => {
    const r = await call('extract', {
      urls: [`${site.url}/product`],
      schema: { name: 'string', price: 'number', currency: 'string' },
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.data).toEqual({ name: 'Trail Kettle', price: 24.5, currency: 'EUR' });
    expect(r.structuredContent.results).toEqual([{ url: `${site.url}/product`, status: 'ok' }]);
    const bad = await call('extract', { urls: [`${site.url}/product`], schema: { price: 'money' } });
    expect(errorOf(bad)).toEqual({
      error: 'invalid_schema',
      detail: expect.stringMatching(/^schema\.price: unknown type 'money'/),
    });
    expect(bad.structuredContent).toBeUndefined();
  });

  it('crawl of a few pages answers at once, every page listed with an excerpt', async () => {
    const r = await call('crawl', { url: `${site.url}/`, limit: 5, max_depth: 1, use_sitemap: false });
    expect(r.isError).toBeFalsy();
    const c = r.structuredContent;
    expect(c.job).toBeUndefined();
    expect(c.total).toBe(5);
    expect(c.pages.map((p: any) => new URL(p.url).pathname)).toEqual(['/', '/n/0', '/n/1', '/n/2', '/n/3']);
    expect(c.pages[2]).toMatchObject({ title: 'Note 1', depth: 1, status_code: 200 });
    expect(c.pages[2].markdown).toContain('Note 1 is a small page');
    expect(textOf(r)).toContain(`--- Note 1\nURL: ${site.url}/n/1 (depth 1, HTTP 200)\n# Note 1`);
  });

  it('crawl of many pages runs as a job, waits on it and reports progress', async () => {
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const r = (await session.client.callTool(
      {
        name: 'crawl',
        arguments: {
          url: `${site.url}/big/`,
          limit: BIG_PAGES + 1,
          max_depth: 1,
          use_sitemap: false,
          max_tokens: 2000,
        },
      },
      undefined,
      { onprogress: (p) => void progress.push(p), resetTimeoutOnProgress: true },
    )) as ToolAnswer;
    expect(r.isError).toBeFalsy();
    const c = r.structuredContent;
    expect(c.job).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      state: 'completed',
      progress: { done: BIG_PAGES + 1, failed: 0, queued: 0 },
    });
    expect(c.total).toBe(BIG_PAGES + 1);
    // Budget 2000 tokens → 13 pages an answer; the rest through crawl_status with the cursor.
    expect(c.pages.length).toBe(13);
    expect(c.next_cursor).toEqual(expect.any(String));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < progress.length; i++) expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress);
    expect(progress.at(-1)!.progress).toBe(BIG_PAGES + 1);
    expect(progress[0].message).toContain(c.job.job_id);
    expect(textOf(r)).toContain(`call crawl_status with job_id "${c.job.job_id}" and cursor "${c.next_cursor}"`);
    // Reading on: the next pages, none repeated; and the whole job once the cursor runs out.
    const seen = new Set<string>(c.pages.map((p: any) => p.url));
    let cursor: string | undefined = c.next_cursor;
    while (cursor) {
      const next = await call('crawl_status', { job_id: c.job.job_id, cursor, max_tokens: 2000 });
      for (const p of next.structuredContent.pages) {
        expect(seen.has(p.url)).toBe(false);
        seen.add(p.url);
      }
      cursor = next.structuredContent.next_cursor;
    }
    expect(seen.size).toBe(BIG_PAGES + 1);
  });

  it('a job not done within wait_seconds is handed to crawl_status; a call the client cancels cancels its job', async () => {
    const args = { url: `${site.url}/big/`, limit: BIG_PAGES + 1, max_depth: 1, use_sitemap: false, max_tokens: 500 };
    const early = await call('crawl', { ...args, wait_seconds: 0 });
    const job = early.structuredContent.job;
    expect(['queued', 'running']).toContain(job.state);
    expect(textOf(early)).toContain(`The job is still running; call crawl_status with job_id "${job.job_id}"`);
    const later = await call('crawl_status', { job_id: job.job_id, wait_seconds: 60, max_tokens: 500 });
    expect(later.structuredContent.job).toMatchObject({
      job_id: job.job_id,
      state: 'completed',
      progress: { done: BIG_PAGES + 1 },
    });

    const abort = new AbortController();
    const cancelled = session.client
      .callTool({ name: 'crawl', arguments: args }, undefined, {
        signal: abort.signal,
        onprogress: () => abort.abort(),
        resetTimeoutOnProgress: true,
      })
      .then(
        () => 'answered',
        () => 'aborted',
      );
    expect(await cancelled).toBe('aborted');
    const jobs = async () =>
      (await (await fetch(`${svc.url}/v1/jobs?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } })).json())
        .jobs[0];
    const deadline = Date.now() + 10_000;
    while ((await jobs()).state !== 'cancelled' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const last = await jobs();
    expect(last.job_id).not.toBe(job.job_id);
    expect(last.state).toBe('cancelled');
    expect(last.progress.done).toBeLessThan(BIG_PAGES + 1);
  });

  it('marketplace answers the product record', async () => {
    const r = await call('marketplace', {
      marketplace: 'amazon_de',
      url: 'http://www.amazon.de/dp/B0TESTDE01',
      mode: 'basic',
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      marketplace: 'amazon_de',
      product: { id: 'B0TESTDE01', price: 1049.99, currency: 'EUR', in_stock: true },
      notes: [],
    });
    const bad = await call('marketplace', { marketplace: 'amazon_xx', url: 'http://www.amazon.de/dp/B0TESTDE01' });
    expect(errorOf(bad)).toMatchObject({ error: 'invalid_request', detail: expect.stringContaining('amazon_xx') });
  });

  it('monitors: create, list, get, history of a field over runs, delete', async () => {
    const created = await call('monitors_create', {
      url: `${site.url}/n/2`,
      interval: '1h',
      watch: ['title'],
      webhook: `${site.url}/hook`,
    });
    expect(created.isError).toBeFalsy();
    const id = created.structuredContent.monitor.monitor_id;
    expect(id).toMatch(/^mon_/);
    expect(textOf(created)).toContain(`Created monitor ${id}`);
    const list = await call('monitors_list', {});
    expect(list.structuredContent.monitors.map((m: any) => m.monitor_id)).toContain(id);
    expect(textOf(list)).toContain(`${id} [active] ${site.url}/n/2 every 1h, watching title`);
    // Two runs (through the API, as the scheduler would): the field's history has two points.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${svc.url}/v1/monitors/${id}/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(res.status).toBe(200);
    }
    const history = await call('monitors_history', { monitor_id: id, field: 'title' });
    expect(history.structuredContent).toMatchObject({ monitor_id: id, field: 'title', next_cursor: null });
    expect(history.structuredContent.points.map((p: any) => p.value)).toEqual(['Note 2', 'Note 2']);
    const runs = await call('monitors_history', { monitor_id: id });
    expect(runs.structuredContent.runs.map((r: any) => r.status)).toEqual(['succeeded', 'succeeded']);
    const got = await call('monitors_get', { monitor_id: id });
    expect(got.structuredContent.monitor).toMatchObject({ monitor_id: id, last_values: { title: 'Note 2' } });
    const deleted = await call('monitors_delete', { monitor_id: id });
    expect(deleted.structuredContent).toEqual({ monitor_id: id, deleted: true });
    const gone = await call('monitors_get', { monitor_id: id });
    expect(errorOf(gone)).toMatchObject({ error: 'not_found' });
  });

  it('API errors are tool errors with the contract code and detail, never a stack', async () => {
    const missing = await call('scrape', { url: `${site.url}/missing` });
    const e = errorOf(missing);
    expect(e.error).toBe('fetch_failed');
    expect(e.detail).toMatch(/404/);
    expect(textOf(missing)).not.toMatch(/\bat .*\.js:\d+/);
    const badUrl = await call('scrape', { url: 'ftp://example.com/x' });
    expect(errorOf(badUrl)).toMatchObject({ error: 'invalid_request', detail: expect.stringMatching(/^url: /) });
    const noJob = await call('crawl_status', { job_id: 'job_00000000000000000000', wait_seconds: 0 });
    expect(errorOf(noJob)).toMatchObject({ error: 'not_found' });
    // Input the MCP schema refuses never reaches the API, and is a tool error too.
    const wrongType = await call('scrape', { url: 42 });
    expect(wrongType.isError).toBe(true);
  });

  it('a refused key and an empty account answer unauthorized and insufficient_credits with a detail to act on', async () => {
    const broke = await svc.newKey(0);
    for (const [key, code, detail] of [
      ['trawl_notarealkey0000000000000000000000000', 'unauthorized', /TRAWL_API_KEY/],
      [broke.key, 'insufficient_credits', /no credits left/],
    ] as const) {
      const other = await connectStdio({ TRAWL_API_URL: svc.url, TRAWL_API_KEY: key });
      try {
        const r = (await other.client.callTool({
          name: 'scrape',
          arguments: { url: `${site.url}/n/0` },
        })) as ToolAnswer;
        expect(errorOf(r)).toEqual({ error: code, detail: expect.stringMatching(detail) });
        expect(textOf(r)).not.toContain(key);
      } finally {
        await other.close();
      }
    }
  });

  it('wrote nothing but MCP messages on stdout', () => {
    expect(session.clientErrors).toEqual([]);
    expect(session.stderr()).not.toContain(apiKey);
  });
});
