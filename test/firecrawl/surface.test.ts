/**
 * The /firecrawl scope over raw HTTP: the same keys, rate limits, credits and usage log as /v1,
 * answered in Firecrawl's shapes; options Trawl cannot honour refused by name (400, nothing
 * charged) unless they carry the value Trawl behaves as; another account's job is 404; the
 * JSON Schema is read into Trawl's schema (or refused naming the path); `summary` and the json
 * prompt go to the configured LLM.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usage } from '../../src/store/index.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTestSite, type TestSite } from './site.js';

let svc: TestService;
let t: TestSite;

beforeAll(async () => {
  t = await startTestSite();
  svc = await startTestService('sqlite', { SEARXNG_URL: t.searx.url });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await t?.close();
});

async function call(method: string, path: string, key: string | undefined, body?: unknown) {
  const res = await fetch(`${svc.url}/firecrawl${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('auth, limits, credits and usage as /v1, in Firecrawl shapes', () => {
  it('401 without a valid key, nothing logged', async () => {
    const r = await call('POST', '/v2/scrape', undefined, { url: `${t.site.url}/` });
    expect(r).toMatchObject({
      status: 401,
      body: {
        success: false,
        code: 'unauthorized',
        error: expect.stringContaining('authorization: missing; send the header "Authorization: Bearer trawl_…"'),
      },
    });
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    const bad = await call('GET', '/v2/team/credit-usage', 'trawl_00000000000000000000000000000000');
    expect(bad.status).toBe(401);
  });

  it('429 with Retry-After from the same bucket as /v1', async () => {
    const { key } = await svc.newKey(10, 2);
    expect((await call('GET', '/v2/team/credit-usage', key)).status).toBe(200);
    // The second request of the minute goes through /v1: the bucket is the key's, not the surface's.
    expect((await svc.post('/v1/search', { query: '' }, key)).status).toBe(400);
    const r = await call('GET', '/v1/team/credit-usage', key);
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ success: false, code: 'rate_limited', retry_after: expect.any(Number) });
    expect(r.body.error).toMatch(/^Rate limit exceeded: retry after \d+ s$/);
    expect(r.headers.get('retry-after')).toBe(String(r.body.retry_after));
  });

  it('402 with no credit left, before any work', async () => {
    const { key } = await svc.newKey(0);
    const hits = t.site.hits('/');
    const r = await call('POST', '/v2/scrape', key, { url: `${t.site.url}/` });
    expect(r).toMatchObject({ status: 402, body: { success: false, code: 'insufficient_credits' } });
    expect(t.site.hits('/')).toBe(hits);
  });

  it('charges one credit per scrape, map, search, extract and job, none for reads; logs each request', async () => {
    const { key, accountId } = await svc.newKey(20);
    expect((await call('POST', '/v2/scrape', key, { url: `${t.site.url}/docs/intro` })).status).toBe(200);
    expect((await call('POST', '/v1/map', key, { url: t.site.url })).status).toBe(200);
    expect((await call('POST', '/v2/search', key, { query: 'tides' })).status).toBe(200);
    expect(
      (
        await call('POST', '/v2/extract', key, {
          urls: [`${t.site.url}/product/anchor`],
          schema: { type: 'object', properties: { sku: { type: 'string' } } },
        })
      ).body.data,
    ).toEqual({ sku: 'ANC-12' });
    const crawl = await call('POST', '/v2/crawl', key, { url: `${t.site.url}/docs/intro`, limit: 2 });
    expect(crawl.status).toBe(200);
    expect(await svc.credits(accountId)).toBe(15);
    expect((await call('GET', `/v2/crawl/${crawl.body.id}`, key)).status).toBe(200);
    expect((await call('GET', `/v2/crawl/${crawl.body.id}/errors`, key)).status).toBe(200);
    expect((await call('GET', '/v2/team/credit-usage', key)).body).toEqual({
      success: true,
      data: { remainingCredits: 15, billingPeriodStart: null, billingPeriodEnd: null },
    });
    expect(await svc.credits(accountId)).toBe(15);
    const rows = await usage.listUsage(svc.store.db, accountId);
    const endpoints = rows.map((r) => `${r.endpoint} ${r.status} ${r.credits}`);
    expect(endpoints).toEqual(
      expect.arrayContaining([
        'POST /firecrawl/v2/scrape 200 1',
        'POST /firecrawl/v1/map 200 1',
        'POST /firecrawl/v2/search 200 1',
        'POST /firecrawl/v2/extract 200 1',
        'POST /firecrawl/v2/crawl 200 1',
        'GET /firecrawl/v2/crawl/:id 200 0',
        'GET /firecrawl/v2/team/credit-usage 200 0',
      ]),
    );
  });

  it("refunds a failed scrape and answers it in Firecrawl's shape", async () => {
    const { key, accountId } = await svc.newKey(3);
    const r = await call('POST', '/v2/scrape', key, { url: `${t.site.url}/gone` });
    expect(r.status).toBe(502);
    expect(r.body).toEqual({ success: false, code: 'fetch_failed', error: expect.stringContaining('404') });
    expect(await svc.credits(accountId)).toBe(3);
    const priv = await call('POST', '/v2/scrape', key, { url: 'ftp://example.com/' });
    expect(priv.body).toEqual({ success: false, code: 'invalid_request', error: 'url: must be an http or https URL' });
  });

  it("answers body faults, unknown paths and unknown ids in Firecrawl's shape", async () => {
    const { key } = await svc.newKey(3);
    expect(await call('POST', '/v2/scrape', key, '{"url": ')).toMatchObject({
      status: 400,
      body: { success: false, code: 'invalid_request', error: expect.stringContaining('not valid JSON') },
    });
    expect(await call('POST', '/v2/scrape', key, [1])).toMatchObject({
      status: 400,
      body: { success: false, error: 'body: must be a JSON object' },
    });
    const text = await fetch(`${svc.url}/firecrawl/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ success: false, code: 'unsupported_media_type' });
    expect(await call('POST', '/v2/agent', key, {})).toMatchObject({
      status: 404,
      body: { success: false, code: 'not_found', error: expect.stringContaining('POST /firecrawl/v2/agent') },
    });
    expect(await call('GET', '/v2/crawl/not-a-job', key)).toMatchObject({
      status: 404,
      body: { success: false, code: 'not_found' },
    });
  });

  it('pages a job by `next` (absolute, with skip and the limit asked), every page once', async () => {
    const { key } = await svc.newKey(3);
    const urls = ['/', '/docs/intro', '/docs/setup', '/blog/tides', '/product/anchor', '/gone'].map(
      (p) => `${t.site.url}${p}`,
    );
    const started = await call('POST', '/v2/batch/scrape', key, { urls });
    let status: any;
    for (let i = 0; i < 100; i++) {
      status = (await call('GET', `/v2/batch/scrape/${started.body.id}?limit=100`, key)).body;
      if (status.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toMatchObject({ success: true, status: 'completed', completed: 5, total: 6, creditsUsed: 1 });
    expect(status.next).toBeUndefined();
    expect(Date.parse(status.expiresAt) - Date.now()).toBeGreaterThan(71 * 3_600_000);
    const seen: string[] = [];
    let next: string | undefined = `${svc.url}/firecrawl/v2/batch/scrape/${started.body.id}?limit=2`;
    let answers = 0;
    while (next) {
      const res = await fetch(next, { headers: { authorization: `Bearer ${key}` } });
      const b = (await res.json()) as any;
      answers++;
      seen.push(...b.data.map((d: any) => d.metadata.sourceURL));
      if (b.next)
        expect(b.next).toMatch(
          new RegExp(`^${svc.url}/firecrawl/v2/batch/scrape/${started.body.id}\\?skip=\\d+&limit=2$`),
        );
      next = b.next;
    }
    // Six pages, two per answer; the failed one is not a document (it is an error).
    expect(answers).toBe(3);
    expect(seen.sort()).toEqual(urls.filter((u) => !u.endsWith('/gone')).sort());
    const errors = (await call('GET', `/v2/batch/scrape/${started.body.id}/errors`, key)).body;
    expect(errors).toEqual({
      success: true,
      errors: [
        {
          id: expect.stringMatching(/^job_\w+-\d+$/),
          url: `${t.site.url}/gone`,
          code: 'fetch_failed',
          error: expect.stringContaining('404'),
        },
      ],
      robotsBlocked: [],
    });
  });

  it("another account's crawl is 404 to read, cancel or list errors", async () => {
    const a = await svc.newKey(3);
    const b = await svc.newKey(3);
    const started = await call('POST', '/v1/crawl', a.key, { url: `${t.site.url}/docs/intro`, limit: 1 });
    expect(started.status).toBe(200);
    for (const [m, p] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/errors'],
    ]) {
      const r = await call(m, `/v1/crawl/${started.body.id}${p}`, b.key);
      expect(r, `${m} ${p}`).toMatchObject({ status: 404, body: { success: false, code: 'not_found' } });
    }
    expect((await call('GET', `/v1/crawl/${started.body.id}`, a.key)).status).toBe(200);
  });

  it('stays out of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${svc.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).some((p) => p.includes('firecrawl'))).toBe(false);
  });
});

describe('options Trawl cannot honour are refused by name, nothing charged', () => {
  const refused: [string, string, Record<string, unknown>, string][] = [
    ['/v2/scrape', 'a pdf action', { actions: [{ type: 'pdf', format: 'A4' }] }, 'actions[0].type'],
    [
      '/v2/scrape',
      'scrolling inside an element',
      {
        actions: [
          { type: 'click', selector: '#go' },
          { type: 'scroll', selector: '#list' },
        ],
      },
      'actions[1].selector',
    ],
    ['/v2/scrape', 'an OCR parser', { parsers: [{ type: 'pdf', mode: 'ocr' }] }, 'parsers[0].mode'],
    ['/v2/scrape', 'the image parser', { parsers: ['pdf', 'image'] }, 'parsers[1]'],
    ['/v2/scrape', 'no PDF parsing', { parsers: [] }, 'parsers'],
    ['/v2/scrape', 'per-page PDF markdown', { parsers: [{ type: 'pdf', pages: true }] }, 'parsers[0].pages'],
    ['/v2/scrape', 'cache-only reads', { minAge: 1000 }, 'minAge'],
    ['/v2/scrape', 'a cache read never stored', { maxAge: 60_000, storeInCache: false }, 'storeInCache'],
    [
      '/v2/scrape',
      'two viewports',
      {
        formats: [{ type: 'screenshot', viewport: { width: 800, height: 600 } }],
        actions: [{ type: 'screenshot', viewport: { width: 1024, height: 600 } }],
      },
      'actions[0].viewport',
    ],
    ['/v2/scrape', 'includeTags', { includeTags: ['main'] }, 'includeTags'],
    // (A single scrape takes a tier of its own; jobs climb the ladder by themselves.)
    ['/v2/batch/scrape', 'proxy stealth in a batch', { urls: ['https://example.com/'], proxy: 'stealth' }, 'proxy'],
    ['/v2/scrape', 'changeTracking', { formats: [{ type: 'changeTracking' }] }, 'formats[0]'],
    ['/v2/scrape', 'summary without an LLM', { formats: ['summary'] }, 'formats[0]'],
    [
      '/v2/scrape',
      'json prompt without schema',
      { formats: [{ type: 'json', prompt: 'the price' }] },
      'formats[0].schema',
    ],
    ['/v2/scrape', 'an unknown option', { colour: 'blue' }, 'colour'],
    [
      '/v1/scrape',
      'v1 changeTrackingOptions',
      { changeTrackingOptions: { modes: ['git-diff'] } },
      'changeTrackingOptions',
    ],
    ['/v2/crawl', 'a wildcard URL', { url: 'https://example.com/blog/*' }, 'url'],
    ['/v2/crawl', 'crawl prompt', { prompt: 'only blog posts' }, 'prompt'],
    ['/v2/crawl', 'allowExternalLinks', { allowExternalLinks: true }, 'allowExternalLinks'],
    ['/v2/crawl', 'sitemap only', { sitemap: 'only' }, 'sitemap'],
    ['/v2/crawl', 'rawHtml in a crawl', { scrapeOptions: { formats: ['rawHtml'] } }, 'scrapeOptions.formats'],
    ['/v2/crawl', 'timeout in a crawl', { scrapeOptions: { timeout: 5000 } }, 'scrapeOptions.timeout'],
    ['/v1/crawl', 'v1 delay', { delay: 2 }, 'delay'],
    ['/v2/map', 'sitemap only', { sitemap: 'only' }, 'sitemap'],
    ['/v2/search', 'news', { query: 'x', sources: ['web', 'news'] }, 'sources[1]'],
    ['/v2/search', 'tbs', { query: 'x', tbs: 'qdr:d' }, 'tbs'],
    ['/v2/search', 'html for results', { query: 'x', scrapeOptions: { formats: ['html'] } }, 'scrapeOptions.formats'],
    [
      '/v2/search',
      'headers for results',
      { query: 'x', scrapeOptions: { formats: ['markdown'], headers: { 'x-a': '1' } } },
      'scrapeOptions.headers',
    ],
    [
      '/v2/search',
      'screenshots of results',
      { query: 'x', scrapeOptions: { formats: ['screenshot'] } },
      'scrapeOptions.formats[0]',
    ],
    [
      '/v2/search',
      'actions on results',
      { query: 'x', scrapeOptions: { actions: [{ type: 'scrape' }] } },
      'scrapeOptions.actions',
    ],
    ['/v2/extract', 'prompt only', { urls: ['https://example.com/'], prompt: 'the price' }, 'schema'],
    [
      '/v2/extract',
      'web search',
      {
        urls: ['https://example.com/'],
        schema: { type: 'object', properties: { a: { type: 'string' } } },
        enableWebSearch: true,
      },
      'enableWebSearch',
    ],
    [
      '/v2/extract',
      'a wildcard URL',
      { urls: ['https://example.com/*'], schema: { type: 'object', properties: { a: { type: 'string' } } } },
      'urls[0]',
    ],
    ['/v2/batch/scrape', 'appendToId', { urls: ['https://example.com/'], appendToId: 'job_x' }, 'appendToId'],
  ];
  it.each(refused)('%s: %s', async (path, _what, extra, option) => {
    const { key, accountId } = await svc.newKey(2);
    const hits = t.site.hits('/');
    const body = { ...(/search|extract|batch/.test(path) ? {} : { url: `${t.site.url}/` }), ...extra };
    const r = await call('POST', path, key, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'invalid_request', details: { unsupported_option: option } });
    expect(r.body.error).toMatch(
      new RegExp(`^${option.replace(/[[\].]/g, '\\$&')}: not supported by Trawl's Firecrawl-compatible API — .+`),
    );
    expect(await svc.credits(accountId)).toBe(2);
    expect(t.site.hits('/')).toBe(hits);
  });

  it('accepts them at the values Trawl behaves as', async () => {
    const { key } = await svc.newKey(5);
    const r = await call('POST', '/v2/scrape', key, {
      url: `${t.site.url}/docs/setup`,
      mobile: false,
      actions: [],
      headers: {},
      skipTlsVerification: false,
      removeBase64Images: true,
      proxy: 'basic',
      maxAge: 172_800_000,
      storeInCache: true,
      parsers: ['pdf'],
      onlyMainContent: true,
      origin: 'js-sdk@4.42.0',
      integration: 'my-app',
    });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('a wrench, a rope');
  });

  it('reads values of mapped options strictly', async () => {
    const { key } = await svc.newKey(5);
    expect((await call('POST', '/v2/scrape', key, { url: `${t.site.url}/`, timeout: 500_000 })).body.error).toBe(
      'timeout: must be an integer from 1000 to 120000 (milliseconds)',
    );
    expect((await call('POST', '/v2/search', key, { query: 'x', limit: 50 })).body.error).toBe(
      "limit: must be an integer from 1 to 20 (Trawl's search answers at most 20 results)",
    );
    expect(
      (await call('POST', '/v2/crawl', key, { url: `${t.site.url}/`, includePaths: ['(a)\\1'] })).body.error,
    ).toMatch(/^includePaths\[0\]: backreferences, lookarounds/);
    expect(
      (await call('POST', '/v2/crawl', key, { url: `${t.site.url}/`, includePaths: ['(unclosed'] })).body.error,
    ).toMatch(/^includePaths\[0\]: not a valid regular expression/);
    expect((await call('POST', '/v2/batch/scrape', key, { urls: [`${t.site.url}/`, 'not a url'] })).body.error).toMatch(
      /^urls\[1\]: must be an http or https URL/,
    );
    // The browser options are read with /v1's rules, errors naming Firecrawl's paths.
    const bad = async (path: string, body: Record<string, unknown>) =>
      (await call('POST', path, key, { url: `${t.site.url}/`, ...body })).body.error;
    expect(await bad('/v2/scrape', { headers: { Host: 'x.test' } })).toBe(
      "headers.Host: cannot be set: the host is the URL's",
    );
    expect(await bad('/v2/scrape', { location: { country: 'XX' } })).toBe(
      'location.country: must be an ISO 3166-1 alpha-2 code of a country, such as "DE"',
    );
    expect(await bad('/v2/scrape', { actions: [{ type: 'wait' }] })).toBe(
      'actions[0]: a wait needs either "milliseconds" (1 to 60000) or "selector", not both',
    );
    expect(await bad('/v2/scrape', { actions: [{ type: 'hover', selector: 'a' }] })).toMatch(
      /^actions\[0\]\.type: must be one of wait, click, write, press, scroll, screenshot, scrape, executeJavascript/,
    );
    expect(await bad('/v2/scrape', { actions: [{ type: 'screenshot', fullPage: 'yes' }] })).toMatch(
      /^actions\[0\]\.fullPage: /,
    );
    expect(
      await bad('/v2/scrape', { timeout: 10_000, waitFor: 6000, actions: [{ type: 'wait', milliseconds: 5000 }] }),
    ).toBe(
      'actions: the waits (waitFor and wait steps) add up to 11000 ms, which does not fit in timeout (10000 ms); wait less or raise timeout',
    );
    expect(await bad('/v2/scrape', { maxAge: -1 })).toBe('maxAge: must be a whole number of milliseconds, 0 or more');
    expect(await bad('/v2/crawl', { scrapeOptions: { actions: [{ type: 'wait', milliseconds: 40_000 }] } })).toBe(
      "scrapeOptions.actions: the waits (waitFor and wait steps) add up to 40000 ms, which does not fit in a crawled page's budget (30000 ms); wait less",
    );
  });
});

describe('JSON Schema for json extraction', () => {
  it('reads nested objects, arrays, nullable types, enums and $refs', async () => {
    const { key } = await svc.newKey(5);
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        name: { type: ['string', 'null'], description: 'the product name' },
        offer: { $ref: '#/$defs/Offer' },
        sku: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        currency: { enum: ['EUR', 'USD'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name'],
      additionalProperties: false,
      $defs: { Offer: { type: 'object', properties: { price: { type: 'number' } } } },
    };
    const r = await call('POST', '/v2/scrape', key, {
      url: `${t.site.url}/product/anchor`,
      formats: [{ type: 'json', schema }],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.json).toMatchObject({ name: 'Galvanised Anchor', sku: 'ANC-12', tags: [] });
    expect(Object.keys(r.body.data.json).sort()).toEqual(['currency', 'name', 'offer', 'sku', 'tags']);
    expect(r.body.data.markdown).toBeUndefined();
  });

  it('reaches the table reader: an array of objects whose properties name the columns', async () => {
    const { key } = await svc.newKey(5);
    t.site.route(
      '/price-list',
      `<html><head><title>Price list</title></head><body><main><h1>Price list</h1><p>Free shipping over $50.</p>
      <table><tr><th>Model</th><th>Price</th></tr><tr><td>A-1</td><td>$12.50</td></tr><tr><td>A-2</td><td>$15</td></tr></table></main></body></html>`,
    );
    const schema = {
      type: 'object',
      properties: {
        models: {
          type: 'array',
          items: { type: 'object', properties: { model: { type: 'string' }, price: { type: 'number' } } },
        },
      },
    };
    const r = await call('POST', '/v2/scrape', key, {
      url: `${t.site.url}/price-list`,
      formats: [{ type: 'json', schema }],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({
      models: [
        { model: 'A-1', price: 12.5 },
        { model: 'A-2', price: 15 },
      ],
    });
  });

  it('refuses what has no schema-object form, naming where (422)', async () => {
    const { key, accountId } = await svc.newKey(5);
    const fanOut: Record<string, unknown> = { D19: { type: 'string' } };
    for (let i = 0; i < 19; i++)
      fanOut[`D${i}`] = {
        type: 'object',
        properties: { a: { $ref: `#/$defs/D${i + 1}` }, b: { $ref: `#/$defs/D${i + 1}` } },
      };
    const cases: [unknown, unknown][] = [
      [
        { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
        'formats[0].schema.properties.a: anyOf/oneOf is supported only as one type or null',
      ],
      [
        { type: 'object', properties: { a: { type: 'array' } } },
        'formats[0].schema.properties.a.items: an array needs "items" with one JSON Schema',
      ],
      [
        { type: 'array', items: { type: 'string' } },
        'formats[0].schema: the root must be an object schema ({"type":"object","properties":{…}})',
      ],
      [
        { type: 'object', properties: { a: { type: 'string', not: { const: 'x' } } } },
        "formats[0].schema.properties.a.not: JSON Schema keyword 'not' is not supported by Trawl's extractor (supported: type, properties, items, enum, const, anyOf/oneOf with null, $ref, format, description, required)",
      ],
      [
        { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } },
        'formats[0].schema.properties.a.$ref: only references inside the schema ("#/…") are supported',
      ],
      [
        { type: 'object', properties: { ['__proto__']: { type: 'string' } } },
        'formats[0].schema.properties.__proto__: "__proto__" cannot be a field name; choose another name',
      ],
      [
        { type: 'object', properties: { a: { $ref: '#' } } },
        expect.stringMatching(
          /^formats\[0\]\.schema(\.properties\.a)+: \$ref nests too deep \(a recursive schema has no schema-object form\)$/,
        ),
      ],
      // $refs that fan out (each level refers twice to the next: 2^19 paths), stopped by the node budget.
      [
        { type: 'object', properties: { x: { $ref: '#/$defs/D0' } }, $defs: fanOut },
        expect.stringMatching(/: the schema is too large \(more than 2000 nodes once its \$refs are followed\)$/),
      ],
    ];
    for (const [schema, error] of cases) {
      const r = await call('POST', '/v2/scrape', key, { url: `${t.site.url}/`, formats: [{ type: 'json', schema }] });
      expect(r.status, String(error)).toBe(422);
      expect(r.body).toEqual({ success: false, code: 'invalid_schema', error });
    }
    expect(await svc.credits(accountId)).toBe(5);
  });
});

describe('with an LLM configured', () => {
  let llm: FakeLlm;
  let withLlm: TestService;
  beforeAll(async () => {
    llm = await startFakeLlm();
    withLlm = await startTestService('sqlite', { LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model' });
  }, 60_000);
  afterAll(async () => {
    await withLlm?.stop();
    await llm?.close();
  });
  const post = async (key: string, body: unknown) => {
    const res = await fetch(`${withLlm.url}/firecrawl/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('writes the summary format from the page', async () => {
    const { key } = await withLlm.newKey(5);
    llm.answer = { summary: 'The page explains that tides come from the pull of the Moon.' };
    llm.requests.length = 0;
    const r = await post(key, { url: `${t.site.url}/blog/tides`, formats: ['summary'] });
    expect(r.status).toBe(200);
    expect(r.body.data.summary).toBe('The page explains that tides come from the pull of the Moon.');
    expect(r.body.data.markdown).toBeUndefined();
    const asked = JSON.stringify(llm.requests[0].body);
    expect(asked).toContain('gravitational pull of the Moon');
    expect(asked).toContain('summary');
  });

  it('answers no summary as the upstream failure it is, and refunds', async () => {
    const { key, accountId } = await withLlm.newKey(5);
    llm.answer = 'garbage';
    const r = await post(key, { url: `${t.site.url}/blog/tides`, formats: ['markdown', 'summary'] });
    expect(r).toMatchObject({
      status: 502,
      body: {
        success: false,
        code: 'fetch_failed',
        error: 'summary: the configured LLM wrote no summary of this page',
      },
    });
    expect(await withLlm.credits(accountId)).toBe(5);
  });

  it("passes the json format's prompt to the LLM as its hint", async () => {
    const { key } = await withLlm.newKey(5);
    llm.answer = { motto: 'Anchors aweigh' };
    llm.requests.length = 0;
    const r = await post(key, {
      url: `${t.site.url}/product/anchor`,
      formats: [
        {
          type: 'json',
          prompt: 'the shop motto, if any',
          schema: { type: 'object', properties: { name: { type: 'string' }, motto: { type: 'string' } } },
        },
      ],
    });
    expect(r.body.data.json).toEqual({ name: 'Galvanised Anchor', motto: 'Anchors aweigh' });
    expect(JSON.stringify(llm.requests[0].body)).toContain('Hint: the shop motto, if any');
  });

  it('reads json from a prompt alone (issue 43)', async () => {
    const { key } = await withLlm.newKey(5);
    llm.answer = { product: 'Galvanised Anchor' };
    llm.requests.length = 0;
    const r = await post(key, {
      url: `${t.site.url}/product/anchor`,
      formats: [{ type: 'json', prompt: 'the product name' }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.json).toEqual({ product: 'Galvanised Anchor' });
    expect(JSON.stringify(llm.requests[0].body)).toContain('Request: the product name');
  });
});
