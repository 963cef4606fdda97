/** The error catalogue matches the contract's table, and a bug becomes a bare 500 with no leak. */
import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors.js';
import { loadConfig } from '../../src/config.js';
import { buildServer } from '../../src/server/app.js';
import { MemoryTokenBuckets } from '../../src/server/token-bucket.js';
import { accounts, keys, openStore, type Store } from '../../src/store/index.js';
import type { Engine } from '../../src/engine/index.js';
import type { FastifyInstance } from 'fastify';

const SPEC = resolve(__dirname, '../../../shared/spec/API.md');

describe('error catalogue', () => {
  it.skipIf(!existsSync(SPEC))('has exactly the codes and statuses of API.md section 2', () => {
    const table = readFileSync(SPEC, 'utf8').split('## 2. Errors')[1].split('## 3.')[0];
    const rows = [...table.matchAll(/^\| (\d{3}) \| (\w+) \|/gm)].map((m) => [m[2], Number(m[1])] as const);
    expect(rows.length).toBeGreaterThan(10);
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([k, v]) => [k, v.status])),
    );
  });
});

describe('a bug in the engine', () => {
  let app: FastifyInstance;
  let store: Store;
  let key: string;
  let accountId: string;
  const logged: unknown[] = [];

  beforeAll(async () => {
    store = await openStore({ dataDir: '/tmp', sqliteFile: ':memory:' });
    const broken = {
      http: {
        request: async () => {
          throw new Error('boom: secret internals at /srv/app.js:12');
        },
        checkTarget: async () => undefined,
        close: async () => undefined,
      },
      close: async () => undefined,
    } as unknown as Engine;
    app = await buildServer(
      { config: loadConfig({}), store, engine: broken, rateLimiter: new MemoryTokenBuckets() },
      { logger: { level: 'error', stream: { write: (l: string) => logged.push(JSON.parse(l)) } } },
    );
    const acc = await accounts.createAccount(store.db, { email: 'bug@test.local', credits: 3 });
    accountId = acc.id;
    key = (await keys.createApiKey(store.db, { accountId })).key;
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  it('answers 500 internal_error without a stack trace, logs it with the request id, refunds', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/scrape',
      headers: { authorization: `Bearer ${key}` },
      payload: { url: 'https://example.com/' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'internal_error' });
    expect(res.body).not.toContain('boom');
    const requestId = res.headers['x-request-id'];
    expect(logged.some((l) => (l as { requestId?: string }).requestId === requestId)).toBe(true);
    expect(Number((await accounts.findAccountById(store.db, accountId))!.credits)).toBe(3);
  });

  it('publishes the OpenAPI document generated from the request schemas', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    const body = doc.paths['/v1/scrape'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['url']);
    expect(body.properties.timeout_ms).toMatchObject({ type: 'integer', minimum: 1000, maximum: 120000 });
    expect(body.properties.formats.items.enum).toEqual([
      'markdown',
      'json',
      'html',
      'raw_html',
      'links',
      'screenshot',
      'screenshot@full_page',
    ]);
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining([
        'actions',
        'headers',
        'cookies',
        'mobile',
        'location',
        'viewport',
        'screenshot_format',
        'max_age',
      ]),
    );
    expect(body.additionalProperties).toBe(false);
  });
});
