/** JSON Schema on /v1/scrape and /v1/extract, and a prompt alone with and without an LLM (issue 43). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const PRODUCT = `<html><head><title>Kettle | Shop</title>
<script type="application/ld+json">{"@type":"Product","name":"Kettle","brand":{"@type":"Brand","name":"Acme"},
"offers":{"price":"39.90","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script></head>
<body><h1>Kettle</h1><p>A long enough description of the kettle, with commas, details, and a full stop.</p>
<table><thead><tr><th>Model</th><th>Price</th></tr></thead>
<tbody><tr><td>K-1</td><td>$19.99</td></tr><tr><td>K-2</td><td>$29.99</td></tr></tbody></table></body></html>`;

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The product name' },
    price: { type: 'number' },
    availability: { type: 'string', enum: ['in_stock', 'out_of_stock'] },
    brand: { type: 'object', properties: { name: { type: 'string' } } },
    models: {
      type: 'array',
      items: { type: 'object', properties: { model: { type: 'string' }, price: { type: 'number' } } },
    },
  },
  required: ['name', 'price'],
};

let site: FixtureServer;
let llm: FakeLlm;
let svc: TestService;
let withLlm: TestService;

beforeAll(async () => {
  site = await startFixtureServer({
    '/p': PRODUCT,
    '/essay':
      '<html><head><title>Essay</title></head><body><article><h1>Essay</h1><p>Written by Ada Lovelace in 1843, a long paragraph that an LLM would read, with commas, and more.</p></article></body></html>',
  });
  llm = await startFakeLlm();
  svc = await startTestService('sqlite');
  withLlm = await startTestService('sqlite', { LLM_BASE_URL: llm.url, LLM_MODEL: 'test-model' });
});
afterAll(async () => {
  await svc?.stop();
  await withLlm?.stop();
  await llm?.close();
  await site?.close();
});

const expected = {
  name: 'Kettle',
  price: 39.9,
  availability: 'in_stock',
  brand: { name: 'Acme' },
  models: [
    { model: 'K-1', price: 19.99 },
    { model: 'K-2', price: 29.99 },
  ],
};

describe('JSON Schema', () => {
  it('is accepted by /v1/extract: nested objects, arrays of objects, enum, required', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.post('/v1/extract', { urls: [`${site.url}/p`], schema: SCHEMA }, key);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toEqual(expected);
    expect(body.results[0].json).toEqual(expected);
  });

  it('is accepted by /v1/scrape (json format implied by the schema)', async () => {
    const { key } = await svc.newKey(5);
    const res = await svc.post('/v1/scrape', { url: `${site.url}/p`, schema: SCHEMA }, key);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.json).toEqual(expected);
  });

  it('answers 422 invalid_schema naming the path of a bad schema, on both routes, and charges nothing', async () => {
    const { key, accountId } = await svc.newKey(5);
    const bad: [unknown, string][] = [
      [
        { type: 'object', properties: { price: { type: 'money' } } },
        'schema.properties.price.type: unknown type "money"',
      ],
      [
        { type: 'object', properties: { tags: { type: 'array' } } },
        'schema.properties.tags.items: an array needs "items"',
      ],
      [
        { type: 'object', properties: { a: { type: 'string', enum: [1, 2] } } },
        'schema.properties.a.enum[0]: 1 is not a string',
      ],
      [{ type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }, 'schema.required: "b"'],
      [
        { name: 'string', price: { type: 'number', description: 'the price' } },
        'schema.price: looks like JSON Schema inside the short form',
      ],
    ];
    for (const [schema, detail] of bad) {
      for (const [path, body] of [
        ['/v1/extract', { urls: [`${site.url}/p`], schema }],
        ['/v1/scrape', { url: `${site.url}/p`, formats: ['json'], schema }],
      ] as const) {
        const res = await svc.post(path, body, key);
        const answer = await res.json();
        expect(res.status, `${path} ${JSON.stringify(schema)}`).toBe(422);
        expect(answer.error).toBe('invalid_schema');
        expect(answer.detail).toContain(detail);
      }
    }
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('gives the LLM the descriptions and enums of the fields it is asked for', async () => {
    const { key } = await withLlm.newKey(5);
    llm.requests.length = 0;
    llm.answer = { author: 'Ada Lovelace', kind: 'Essay' };
    const res = await withLlm.post(
      '/v1/extract',
      {
        urls: [`${site.url}/essay`],
        schema: {
          type: 'object',
          properties: {
            author: { type: 'string', description: 'who wrote it' },
            kind: { type: 'string', enum: ['essay', 'news'] },
          },
        },
      },
      key,
    );
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.results[0].json).toEqual({ author: 'Ada Lovelace', kind: 'essay' });
    const sent = (llm.requests[0].body.response_format as { json_schema: { schema: Record<string, any> } }).json_schema
      .schema;
    expect(sent.properties.author.description).toBe('who wrote it');
    expect(sent.properties.kind.enum).toEqual(['essay', 'news', null]);
  });
});

describe('a prompt without a schema', () => {
  it('drives the LLM on /v1/extract and /v1/scrape when one is configured', async () => {
    const { key } = await withLlm.newKey(5);
    llm.requests.length = 0;
    llm.answer = { author: 'Ada Lovelace', year: 1843 };
    const res = await withLlm.post('/v1/extract', { urls: [`${site.url}/essay`], prompt: 'who wrote it, when' }, key);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toEqual({ author: 'Ada Lovelace', year: 1843 });
    expect(body.results[0].sources).toEqual({ author: 'llm', year: 'llm' });
    expect(JSON.stringify(llm.requests[0].body.messages)).toContain('who wrote it, when');
    expect(JSON.stringify(llm.requests[0].body.messages)).toContain('Written by Ada Lovelace');

    const scraped = await withLlm.post(
      '/v1/scrape',
      { url: `${site.url}/essay`, formats: ['json'], prompt: 'who wrote it, when' },
      key,
    );
    const s = await scraped.json();
    expect(scraped.status, JSON.stringify(s)).toBe(200);
    expect(s.json).toEqual({ author: 'Ada Lovelace', year: 1843 });
    expect(s.markdown).toBeUndefined();
  });

  it('is a 422 saying what to do when the server has no LLM', async () => {
    const { key, accountId } = await svc.newKey(5);
    for (const [path, body] of [
      ['/v1/extract', { urls: [`${site.url}/essay`], prompt: 'who wrote it' }],
      ['/v1/scrape', { url: `${site.url}/essay`, formats: ['json'], prompt: 'who wrote it' }],
    ] as const) {
      const res = await svc.post(path, body, key);
      const answer = await res.json();
      expect(res.status).toBe(422);
      expect(answer.error).toBe('invalid_schema');
      expect(answer.detail).toContain('this server has no LLM');
      expect(answer.detail).toContain('LLM_BASE_URL');
      expect(answer.detail).toContain('"type":"object"');
    }
    const none = await svc.post('/v1/extract', { urls: [`${site.url}/essay`] }, key);
    expect((await none.json()).detail).toMatch(/^schema: is required; send a JSON Schema/);
    expect(await svc.credits(accountId)).toBe(5);
  });
});
