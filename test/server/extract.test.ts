/** POST /v1/extract and the json format of /v1/scrape through the real service, with a fake LLM. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const productPage = (name: string, price: string, extra = '') => `<html><head><title>${name} | Shop</title>
<script type="application/ld+json">{"@type":"Product","name":"${name}","offers":{"price":"${price}","priceCurrency":"USD"}}</script></head>
<body><h1>${name}</h1>${extra}<p>A long enough description of the ${name}, with commas, details, and a full stop.</p></body></html>`;

let site: FixtureServer;
let llm: FakeLlm;
let svc: TestService;
let withLlm: TestService;

beforeAll(async () => {
  site = await startFixtureServer({
    '/a': productPage('Kettle', '39.90', '<dl><dt>Brand</dt><dd>Acme</dd></dl>'),
    '/b': productPage('Toaster', '24.00', '<p>Tags: kitchen</p>'),
    // The small home page of issue 40: a Model/Price table beside a free-shipping line.
    '/table': `<html><head><title>Acme Widgets</title></head><body><main><h1>Acme Widgets</h1>
<p>Welcome to Acme. We have been making reliable widgets since 1987. Free shipping over $50.</p>
<table><thead><tr><th>Model</th><th>Price</th></tr></thead>
<tbody><tr><td>W-100</td><td>$19.99</td></tr><tr><td>W-200</td><td>1.299,00 €</td></tr></tbody></table></main></body></html>`,
    '/no-author':
      '<html><head><title>Essay</title></head><body><article><h1>Essay</h1><p>Written by Ada Lovelace in 1843, a long paragraph that an LLM would read, with commas, and more.</p></article></body></html>',
  });
  llm = await startFakeLlm();
  svc = await startTestService('sqlite');
  withLlm = await startTestService('sqlite', {
    LLM_BASE_URL: llm.url,
    LLM_API_KEY: 'sk-test',
    LLM_MODEL: 'test-model',
  });
});
afterAll(async () => {
  await svc?.stop();
  await withLlm?.stop();
  await llm?.close();
  await site?.close();
});

describe('POST /v1/extract', () => {
  it('extracts from several URLs concurrently and merges the first non-null values', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/extract',
      {
        urls: [`${site.url}/a`, `${site.url}/b`],
        schema: { name: 'string', price: 'number', brand: 'string', currency: 'string' },
      },
      key,
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe('ok');
    expect(body.results).toEqual([
      {
        url: `${site.url}/a`,
        status: 'ok',
        json: { name: 'Kettle', price: 39.9, brand: 'Acme', currency: 'USD' },
        sources: expect.objectContaining({ price: 'json-ld:offers.price', brand: 'label:Brand' }),
      },
      {
        url: `${site.url}/b`,
        status: 'ok',
        json: { name: 'Toaster', price: 24, brand: null, currency: 'USD' },
        sources: expect.any(Object),
      },
    ]);
    expect(body.data).toEqual({ name: 'Kettle', price: 39.9, brand: 'Acme', currency: 'USD' });
    expect(await svc.credits(accountId)).toBe(4);
  });

  it('concatenates arrays without duplicates when merging', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/extract',
      { urls: [`${site.url}/a`, `${site.url}/b`, `${site.url}/a`], schema: { name: ['string'] } },
      key,
    );
    expect((await res.json()).data).toEqual({ name: ['Kettle', 'Toaster'] });
  });

  it('keeps per-URL errors and charges one credit when some URLs fail', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/extract',
      { urls: [`${site.url}/missing`, `${site.url}/b`], schema: { name: 'string' } },
      key,
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.results[0]).toEqual({
      url: `${site.url}/missing`,
      status: 'error',
      error: 'fetch_failed',
      detail: expect.stringContaining('404'),
    });
    expect(body.data).toEqual({ name: 'Toaster' });
    expect(await svc.credits(accountId)).toBe(4);
  });

  it('answers 502 fetch_failed and charges nothing when every URL fails', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/extract',
      { urls: [`${site.url}/missing`, 'http://127.0.0.1:1/'], schema: { name: 'string' } },
      key,
    );
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: 'fetch_failed', detail: expect.stringContaining('all 2 URLs failed') });
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('validates the request', async () => {
    const { key, accountId } = await svc.newKey(5);
    const cases: [unknown, number, string][] = [
      [{ urls: [`${site.url}/a`] }, 422, 'schema: is required'],
      [{ urls: [`${site.url}/a`], schema: { price: 'money' } }, 422, "schema.price: unknown type 'money'"],
      [{ urls: [], schema: { a: 'string' } }, 400, 'urls: must be an array of 1 to 20'],
      [
        { urls: Array.from({ length: 21 }, () => `${site.url}/a`), schema: { a: 'string' } },
        400,
        'urls: must be an array of 1 to 20',
      ],
      [{ urls: ['ftp://x.example/'], schema: { a: 'string' } }, 400, 'urls[0]: must be an http or https URL'],
      [{ url: `${site.url}/a`, schema: { a: 'string' } }, 400, 'url: unknown field'],
    ];
    for (const [body, status, detail] of cases) {
      const res = await svc.post('/v1/extract', body, key);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect((await res.json()).detail).toContain(detail);
    }
    expect(await svc.credits(accountId)).toBe(5);
  });
});

describe('scrape json format', () => {
  it('returns json and sources next to markdown when a schema is given', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/scrape',
      { url: `${site.url}/a`, schema: { name: 'string', price: 'number' } },
      key,
    );
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.json).toEqual({ name: 'Kettle', price: 39.9 });
    expect(body.sources).toEqual({ name: 'json-ld:name', price: 'json-ld:offers.price' });
    expect(body.markdown).toContain('A long enough description');
  });
});

describe('tables into arrays of objects', () => {
  const schema = { models: [{ model: 'string', price: 'number' }] };
  const rows = [
    { model: 'W-100', price: 19.99 },
    { model: 'W-200', price: 1299 },
  ];

  it('reads each row of the matching table as one object, through /v1/extract', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.post('/v1/extract', { urls: [`${site.url}/table`], schema }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toEqual({ models: rows });
    expect(body.results[0].sources).toEqual({ models: 'table:table (Model, Price)' });
  });

  it('and through /v1/scrape with formats json', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.post('/v1/scrape', { url: `${site.url}/table`, formats: ['json'], schema }, key);
    expect(res.status).toBe(200);
    expect((await res.json()).json).toEqual({ models: rows });
  });
});

describe('optional LLM pass', () => {
  it('asks only for what the deterministic pass left empty, and marks it as llm', async () => {
    const { key } = await withLlm.newKey(5);
    llm.answer = { author: 'Ada Lovelace', year: '1843' };
    llm.requests.length = 0;
    const res = await withLlm.post(
      '/v1/extract',
      {
        urls: [`${site.url}/no-author`],
        schema: { title: 'string', author: 'string', year: 'integer' },
        prompt: 'the essay author',
      },
      key,
    );
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.results[0].json).toEqual({ title: 'Essay', author: 'Ada Lovelace', year: 1843 });
    expect(body.results[0].sources).toMatchObject({
      title: expect.not.stringMatching(/llm/),
      author: 'llm',
      year: 'llm',
    });
    expect(llm.requests).toHaveLength(1);
    const sent = llm.requests[0];
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body.model).toBe('test-model');
    const schema = (sent.body.response_format as { json_schema: { schema: { properties: Record<string, unknown> } } })
      .json_schema.schema;
    expect(Object.keys(schema.properties)).toEqual(['author', 'year']);
    expect(JSON.stringify(sent.body.messages)).toContain('Written by Ada Lovelace');
    expect(JSON.stringify(sent.body.messages)).toContain('the essay author');
  });

  it('leaves fields null when the LLM answers garbage or too late, without failing', async () => {
    const { key } = await withLlm.newKey(5);
    llm.answer = 'garbage';
    const bad = await withLlm.post(
      '/v1/extract',
      { urls: [`${site.url}/no-author`], schema: { title: 'string', author: 'string' } },
      key,
    );
    expect(bad.status).toBe(200);
    expect((await bad.json()).results[0].json).toEqual({ title: 'Essay', author: null });
    llm.answer = 'timeout';
    const slow = await withLlm.post(
      '/v1/extract',
      { urls: [`${site.url}/no-author`], schema: { title: 'string', author: 'string' }, timeout_ms: 3000 },
      key,
    );
    expect(slow.status).toBe(200);
    expect((await slow.json()).results[0].json).toEqual({ title: 'Essay', author: null });
  }, 40_000);

  it('fills scrape json too, without returning markdown that was not asked for', async () => {
    const { key } = await withLlm.newKey(5);
    llm.answer = { author: 'Ada Lovelace' };
    const res = await withLlm.post(
      '/v1/scrape',
      { url: `${site.url}/no-author`, formats: ['json'], schema: { title: 'string', author: 'string' } },
      key,
    );
    const body = await res.json();
    expect(body.json).toEqual({ title: 'Essay', author: 'Ada Lovelace' });
    expect(body.sources.author).toBe('llm');
    expect(body.markdown).toBeUndefined();
  });

  it('coerces the LLM answer like any other value and drops what does not fit', async () => {
    const { key } = await withLlm.newKey(5);
    llm.answer = { author: 42, year: 'not a year' };
    const res = await withLlm.post(
      '/v1/extract',
      { urls: [`${site.url}/no-author`], schema: { author: 'string', year: 'integer' } },
      key,
    );
    expect((await res.json()).results[0].json).toEqual({ author: '42', year: null });
  });
});
