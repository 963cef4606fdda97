/**
 * The API reference (issue 29). The OpenAPI document gives every /v1 operation its request body,
 * its success answer and its error answers (the contract's `{error, detail}` with the codes the
 * route can return), each with examples that match their own schemas; real answers of a running
 * service — successes and errors — match the schemas documented for their status. /docs loads in
 * headless Chromium with every request staying on the service (no CDN), public, under its own CSP,
 * and shows the operations; the dashboard keeps its CSP.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const SHOTS = join(import.meta.dirname, '../../test-results/docs');
const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
if (!chromiumPath)
  console.warn('skipped: /docs browser test needs Chromium (apt-get install chromium, or CHROMIUM_PATH)');

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('API reference', () => {
  let svc: TestService;
  let site: FixtureServer;
  let hooks: WebhookReceiver;
  let doc: Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  beforeAll(async () => {
    site = await startFixtureServer({
      '/': articlePage(
        'Home',
        '<p>The home page of a small site, with a few words and <a href="/about">a link</a>.</p>',
      ),
      '/about': articlePage('About', '<p>What this small site is about, in a sentence or two of text.</p>'),
      '/lamp':
        '<html><head><title>Lamp</title><script type="application/ld+json">{"@type":"Product","name":"Brass Lamp","offers":{"price":"49.90","priceCurrency":"EUR"}}</script></head><body><main><h1>Brass Lamp</h1><p>A lamp of brass, €49.90.</p></main></body></html>',
    });
    hooks = await startWebhookReceiver();
    svc = await startTestService('sqlite');
    doc = (await (await fetch(`${svc.url}/v1/openapi.json`)).json()) as Json;
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hooks?.close();
  });

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] as Json })),
    );

  /** The media object documented for `status` of `method path` (a Fastify pattern such as /v1/monitors/:id). */
  const documented = (method: string, pattern: string, status: number): Json | undefined => {
    const path = pattern.replace(/:([a-z_]+)/g, '{$1}');
    return doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json'];
  };

  /** A real answer: its status must be documented for the operation and its body must match that schema. */
  const conforms = async (method: string, pattern: string, res: Response): Promise<Json> => {
    const body = (await res.json()) as Json;
    const media = documented(method, pattern, res.status);
    expect(media, `${method} ${pattern} answered ${res.status}, which its documentation does not list`).toBeDefined();
    const validate = ajv.compile(media!.schema);
    expect(
      validate(body) ? [] : validate.errors,
      `${method} ${pattern} ${res.status}: ${JSON.stringify(body).slice(0, 300)}`,
    ).toEqual([]);
    return body;
  };

  it('documents every /v1 operation with its body, its success answer, its errors and examples', () => {
    const ops = operations().filter((o) => o.path.startsWith('/v1/'));
    expect(ops.length).toBeGreaterThanOrEqual(23);
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toEqual(expect.any(String));
      expect(op.tags?.length, where).toBeGreaterThan(0);
      expect(op.security, where).toEqual([{ bearer: [] }]);
      const statuses = Object.keys(op.responses);
      const success = statuses.filter((s) => /^2\d\d$/.test(s));
      expect(success.length, where).toBeGreaterThan(0);
      for (const s of success) {
        const media = op.responses[s].content['application/json'];
        expect(media.schema.type, `${where} ${s}`).toBe('object');
        expect(media.example, `${where} ${s} example`).toBeDefined();
        expect(op.responses[s].headers['x-request-id'], where).toBeDefined();
      }
      // Every authenticated operation can meet a bad key, the rate limit and a bug.
      for (const s of ['401', '429', '500']) expect(statuses, where).toContain(s);
      expect(op.responses['429'].headers['retry-after'], where).toBeDefined();
      for (const s of statuses.filter((x) => /^[45]\d\d$/.test(x))) {
        const media = op.responses[s].content['application/json'];
        expect(media.schema.required, `${where} ${s}`).toContain('error');
        const codes: string[] = media.schema.properties.error.enum;
        expect(codes.length, `${where} ${s}`).toBeGreaterThan(0);
        // One example per code, each a body of that status.
        expect(Object.keys(media.examples).sort(), `${where} ${s}`).toEqual([...codes].sort());
      }
      if (method === 'post' && op.requestBody) {
        const media = op.requestBody.content['application/json'];
        expect(media.schema.type, where).toBe('object');
        expect(media.example ?? media.examples, `${where} body examples`).toBeDefined();
        for (const s of ['400', '413', '415']) expect(statuses, where).toContain(s);
      }
      for (const p of path.match(/\{(\w+)\}/g) ?? [])
        expect(
          op.parameters?.some((x: Json) => x.in === 'path' && `{${x.name}}` === p),
          `${where} ${p}`,
        ).toBe(true);
    }
    // The billable fetching routes list the fetch errors.
    for (const p of ['/v1/scrape', '/v1/crawl', '/v1/marketplace']) {
      const r = doc.paths[p].post.responses;
      expect(r['502'].content['application/json'].schema.properties.error.enum).toEqual(['fetch_failed', 'blocked']);
      expect(r['402'].content['application/json'].schema.properties.error.enum).toEqual(['insufficient_credits']);
    }
    expect(doc.paths['/v1/crawl'].post.responses['202']).toBeDefined();
    expect(doc.paths['/v1/monitors'].post.responses['201']).toBeDefined();
  });

  it('every example matches the schema it illustrates (answers and request bodies)', () => {
    let checked = 0;
    for (const { path, method, op } of operations()) {
      for (const [status, r] of Object.entries<Json>(op.responses)) {
        const media = r.content?.['application/json'];
        if (!media) continue;
        const validate = ajv.compile(media.schema);
        const examples = [media.example, ...Object.values<Json>(media.examples ?? {}).map((e) => e.value)].filter(
          (x) => x !== undefined,
        );
        for (const ex of examples) {
          expect(validate(ex) ? [] : validate.errors, `${method} ${path} ${status}`).toEqual([]);
          checked++;
        }
      }
      const body = op.requestBody?.content['application/json'];
      if (body) {
        const validate = ajv.compile(body.schema);
        for (const ex of [body.example, ...Object.values<Json>(body.examples ?? {}).map((e) => e.value)].filter(
          Boolean,
        )) {
          expect(validate(ex) ? [] : validate.errors, `${method} ${path} body`).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('real answers, successes and errors, match the documented schema of their status', async () => {
    const { key } = await svc.newKey(100);
    const call = (method: string, path: string, body?: unknown, k: string | null = key) =>
      fetch(`${svc.url}${path}`, {
        method,
        headers: {
          ...(k ? { authorization: `Bearer ${k}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });

    await conforms('GET', '/v1/account', await call('GET', '/v1/account'));
    expect((await conforms('GET', '/v1/account', await call('GET', '/v1/account', undefined, null))).error).toBe(
      'unauthorized',
    );
    await conforms(
      'POST',
      '/v1/scrape',
      await call('POST', '/v1/scrape', { url: `${site.url}/`, formats: ['markdown', 'links', 'html'] }),
    );
    await conforms(
      'POST',
      '/v1/scrape',
      await call('POST', '/v1/scrape', { url: `${site.url}/lamp`, schema: { name: 'string', price: 'number' } }),
    );
    expect(
      (await conforms('POST', '/v1/scrape', await call('POST', '/v1/scrape', { url: `${site.url}/missing` }))).error,
    ).toBe('fetch_failed');
    expect(
      (await conforms('POST', '/v1/scrape', await call('POST', '/v1/scrape', { url: `${site.url}/`, timeout_ms: 5 })))
        .detail,
    ).toMatch(/^timeout_ms:/);
    expect(
      (
        await conforms(
          'POST',
          '/v1/scrape',
          await call('POST', '/v1/scrape', { url: `${site.url}/`, formats: ['json'] }),
        )
      ).error,
    ).toBe('invalid_schema');
    expect((await conforms('POST', '/v1/scrape', await call('POST', '/v1/scrape', '{"url":'))).error).toBe(
      'invalid_request',
    );
    const bare = await fetch(`${svc.url}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect((await conforms('POST', '/v1/scrape', bare)).error).toBe('unsupported_media_type');
    await conforms('POST', '/v1/crawl', await call('POST', '/v1/crawl', { url: `${site.url}/`, limit: 5 }));
    await conforms('POST', '/v1/map', await call('POST', '/v1/map', { url: `${site.url}/` }));
    await conforms(
      'POST',
      '/v1/extract',
      await call('POST', '/v1/extract', {
        urls: [`${site.url}/lamp`, `${site.url}/missing`],
        schema: { name: 'string', price: 'number' },
      }),
    );

    const batch = await conforms(
      'POST',
      '/v1/batch/scrape',
      await call('POST', '/v1/batch/scrape', { urls: [`${site.url}/`, `${site.url}/missing`] }),
    );
    const async = await conforms(
      'POST',
      '/v1/crawl',
      await call('POST', '/v1/crawl', { url: `${site.url}/`, async: true, limit: 3 }),
    );
    for (let i = 0; i < 100; i++) {
      const j = (await (await call('GET', `/v1/jobs/${batch.job.job_id}`)).json()) as Json;
      if (j.job.state === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const pages = await conforms('GET', '/v1/jobs/:id', await call('GET', `/v1/jobs/${batch.job.job_id}`));
    expect(pages.pages).toHaveLength(2);
    await conforms('GET', '/v1/jobs', await call('GET', '/v1/jobs'));
    await conforms('DELETE', '/v1/jobs/:id', await call('DELETE', `/v1/jobs/${async.job.job_id}`));
    expect((await conforms('GET', '/v1/jobs/:id', await call('GET', '/v1/jobs/job_00000000000000000000'))).error).toBe(
      'not_found',
    );
    expect((await conforms('GET', '/v1/jobs', await call('GET', '/v1/jobs?limit=0'))).error).toBe('invalid_request');

    site.route(
      '/price',
      `<html><head><title>Lamp</title></head><body><main><h1>Lamp</h1><p class="price">Price: €12.00</p></main></body></html>`,
    );
    const created = await conforms(
      'POST',
      '/v1/monitors',
      await call('POST', '/v1/monitors', {
        url: `${site.url}/price`,
        interval: '1h',
        watch: ['title'],
        webhook: hooks.url,
      }),
    );
    const id = created.monitor.monitor_id;
    await conforms('GET', '/v1/monitors', await call('GET', '/v1/monitors'));
    await conforms('POST', '/v1/monitors/:id/run', await call('POST', `/v1/monitors/${id}/run`));
    site.route(
      '/price',
      `<html><head><title>Lamp, now cheaper</title></head><body><main><h1>Lamp</h1><p>Price: €9.00</p></main></body></html>`,
    );
    const run = await conforms('POST', '/v1/monitors/:id/run', await call('POST', `/v1/monitors/${id}/run`));
    expect(run.run.changes).toEqual({ title: { from: 'Lamp', to: 'Lamp, now cheaper' } });
    await hooks.waitFor(1);
    await conforms('GET', '/v1/monitors/:id', await call('GET', `/v1/monitors/${id}`));
    await conforms('PATCH', '/v1/monitors/:id', await call('PATCH', `/v1/monitors/${id}`, { state: 'paused' }));
    await conforms('GET', '/v1/monitors/:id/runs', await call('GET', `/v1/monitors/${id}/runs`));
    await conforms('GET', '/v1/monitors/:id/history', await call('GET', `/v1/monitors/${id}/history?field=title`));
    const deliveries = await conforms(
      'GET',
      '/v1/monitors/:id/deliveries',
      await call('GET', `/v1/monitors/${id}/deliveries`),
    );
    const dlv = deliveries.deliveries[0].delivery_id;
    await conforms(
      'POST',
      '/v1/monitors/:id/deliveries/:delivery_id/redeliver',
      await call('POST', `/v1/monitors/${id}/deliveries/${dlv}/redeliver`),
    );
    await conforms(
      'POST',
      '/v1/webhooks/replay',
      await call('POST', '/v1/webhooks/replay', { since: '2026-01-01T00:00:00Z', monitor_id: id }),
    );
    expect(
      (
        await conforms(
          'POST',
          '/v1/monitors',
          await call('POST', '/v1/monitors', {
            url: `${site.url}/price`,
            interval: '1h',
            watch: ['price'],
            webhook: hooks.url,
            schema: { price: 'money' },
          }),
        )
      ).error,
    ).toBe('invalid_schema');
    await conforms('DELETE', '/v1/monitors/:id', await call('DELETE', `/v1/monitors/${id}`));
    expect((await conforms('GET', '/v1/monitors/:id', await call('GET', `/v1/monitors/${id}`))).error).toBe(
      'not_found',
    );

    const poor = await svc.newKey(0);
    expect(
      (await conforms('POST', '/v1/scrape', await call('POST', '/v1/scrape', { url: `${site.url}/` }, poor.key))).error,
    ).toBe('insufficient_credits');
    const slow = await svc.newKey(10, 1);
    await call('GET', '/v1/account', undefined, slow.key);
    const limited = await call('GET', '/v1/account', undefined, slow.key);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await conforms('GET', '/v1/account', limited)).error).toBe('rate_limited');

    await conforms('GET', '/healthz', await fetch(`${svc.url}/healthz`));
    await conforms('GET', '/readyz', await fetch(`${svc.url}/readyz`));
  }, 60_000);

  it('serves /docs and its assets without a key, under their own CSP, with nothing loaded from elsewhere; the dashboard keeps its CSP', async () => {
    const page = await fetch(`${svc.url}/docs`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await page.text();
    // Every asset the page names is on this service (relative), and there is nothing inline to run.
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(3);
    for (const ref of refs) expect(ref, ref).toMatch(/^\/docs\/static\//);
    expect(html).not.toMatch(/<script>[^<]/);
    const init = await (await fetch(`${svc.url}/docs/static/swagger-initializer.js`)).text();
    expect(init).toContain('/v1/openapi.json');
    expect(init).toContain('validatorUrl: null');
    // No address elsewhere in the code (the plugin's one comment cites a web page; it loads nothing).
    const code = init.replace(/^\s*\/\/.*$/gm, '');
    expect(code.match(/https?:\/\/[^'"\s)]+/g) ?? []).toEqual([]);
    for (const ref of refs) {
      const r = await fetch(`${svc.url}${ref}`);
      expect(r.status, ref).toBe(200);
    }
    const login = await fetch(`${svc.url}/login`);
    expect(login.headers.get('content-security-policy')).toBe(
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'",
    );
    expect((await fetch(`${svc.url}/v1/openapi.json`)).status).toBe(200);
  });

  it.skipIf(!chromiumPath)(
    '/docs loads in Chromium from this service alone and shows every operation',
    async () => {
      mkdirSync(SHOTS, { recursive: true });
      let browser: Browser | undefined;
      try {
        browser = await chromium.launch({
          executablePath: chromiumPath!,
          headless: true,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-dev-shm-usage',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
            '--disable-quic',
          ],
        });
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const requests: string[] = [];
        const failed: string[] = [];
        const blockedByCsp: string[] = [];
        context.on('request', (r) => void requests.push(r.url()));
        context.on('requestfailed', (r) => void failed.push(`${r.url()} ${r.failure()?.errorText}`));
        const p = await context.newPage();
        p.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) blockedByCsp.push(m.text());
        });
        await p.goto(`${svc.url}/docs`);
        await p.waitForSelector('.opblock', { timeout: 20_000 });
        await p.waitForLoadState('networkidle');
        const ops = operations();
        expect(await p.locator('.opblock').count()).toBe(ops.length);
        const shown = await p.locator('.opblock-summary-path').allTextContents();
        for (const path of ['/v1/scrape', '/v1/crawl', '/v1/monitors/{id}', '/v1/jobs/{id}', '/readyz'])
          expect(shown.map((s) => s.replace(/\u200b/g, ''))).toContain(path);
        expect(await p.textContent('.info .title')).toContain('Trawl API');
        // An operation opens on its answers: the documented error codes are there.
        await p.click('#operations-Scrape-scrape .opblock-summary');
        await p.waitForSelector('#operations-Scrape-scrape .responses-table');
        const responses = await p.textContent('#operations-Scrape-scrape .responses-wrapper');
        for (const text of ['200', '402', '502', 'fetch_failed', 'insufficient_credits'])
          expect(responses).toContain(text);
        await p.screenshot({ path: join(SHOTS, 'docs.png'), fullPage: false });
        // Nothing left the service: every request went to it (data: URLs are inline images).
        const elsewhere = requests.filter((u) => !u.startsWith(`${svc.url}/`) && !u.startsWith('data:'));
        expect(elsewhere).toEqual([]);
        expect(requests).toContain(`${svc.url}/v1/openapi.json`);
        expect(requests.some((u) => u.startsWith(`${svc.url}/docs/static/swagger-ui-bundle.js`))).toBe(true);
        expect(failed).toEqual([]);
        expect(blockedByCsp).toEqual([]);
        await context.close();
      } finally {
        await browser?.close();
      }
    },
    60_000,
  );
});
