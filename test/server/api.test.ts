/**
 * The HTTP contract (API.md sections 1–2) through the real service, once per store.
 * Every error code, the order of checks, credits under concurrency, usage rows.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { keys, usage } from '../../src/store/index.js';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Fixture article</title>
<meta name="description" content="A page written for the tests."></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Fixture article</h1>
<p>This paragraph is the content of the page, with enough words, commas, and sentences to count as reading text.</p>
<p>A second paragraph follows, also long enough to be kept by the main-content step of the pipeline.</p>
</article><footer>Copyright footer text</footer></body></html>`;

// A full forum thread whose sign-up form carries a Turnstile box: a page, not a wall (issue 40).
const FORUM = readFileSync(join(__dirname, '../fixtures/bot-walls/forum-thread-turnstile.html'), 'utf8');

const CAPTCHA = `<html><head><title>Just a moment...</title></head><body><div id="challenge-form">Checking your browser</div>
<script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script></body></html>`;

for (const dialect of DIALECTS) {
  describe(`API contract on ${dialect}`, () => {
    let svc: TestService;
    let site: FixtureServer;

    beforeAll(async () => {
      site = await startFixtureServer({
        '/article': ARTICLE,
        '/forum': FORUM,
        '/captcha': (_q, res) => res.writeHead(403, { 'content-type': 'text/html' }).end(CAPTCHA),
        '/slow': async (_q, res) => {
          await new Promise((r) => setTimeout(r, 3000));
          res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
        },
        '/image': (_q, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10)),
        '/late': async (_q, res) => {
          await new Promise((r) => setTimeout(r, 300));
          res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
        },
      });
      svc = await startTestService(dialect);
    });
    afterAll(async () => {
      await svc?.stop();
      await site?.close();
    });

    it('scrapes a page, charges one credit and logs usage', async () => {
      const { key, accountId } = await svc.newKey(5);
      const res = await svc.post(
        '/v1/scrape',
        { url: `${site.url}/article`, formats: ['markdown', 'links', 'html'] },
        key,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('10000');
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
      const body = await res.json();
      expect(body.status).toBe('ok');
      expect(body.url).toBe(`${site.url}/article`);
      // The headline repeats <title>: it is still the markdown's first line, once.
      expect(body.markdown.split('\n')[0]).toBe('# Fixture article');
      expect(body.markdown.match(/# Fixture article/g)).toHaveLength(1);
      expect(body.warnings).toBeUndefined();
      expect(body.markdown).toContain('This paragraph is the content');
      expect(body.markdown).not.toContain('Copyright footer');
      expect(body.markdown).not.toContain('About');
      expect(body.links).toEqual([`${site.url}/`, `${site.url}/about`]);
      expect(body.html).toContain('<p>This paragraph');
      expect(body.metadata).toMatchObject({
        title: 'Fixture article',
        description: 'A page written for the tests.',
        language: 'en',
        status_code: 200,
        content_type: 'text/html',
        source_url: `${site.url}/article`,
      });
      expect(await svc.credits(accountId)).toBe(4);
      const rows = await usage.listUsage(svc.store.db, accountId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        endpoint: 'POST /v1/scrape',
        status: 200,
        credits: 1,
        request_id: res.headers.get('x-request-id'),
      });
      // The request's own duration (also without a logger): it took at least the page's 300 ms.
      const asked = performance.now();
      await svc.post('/v1/scrape', { url: `${site.url}/late` }, key);
      const seen = performance.now() - asked;
      const late = (await usage.listUsage(svc.store.db, accountId))[0];
      expect(late.duration_ms).toBeGreaterThanOrEqual(280);
      // Milliseconds, and the server's own part of what the caller waited (not seconds or µs).
      expect(late.duration_ms).toBeLessThanOrEqual(Math.ceil(seen));
    });

    it('GET /v1/account costs nothing', async () => {
      const { key, accountId } = await svc.newKey(3);
      const res = await fetch(`${svc.url}/v1/account`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual({ account_id: accountId, email: expect.stringContaining('@test.local'), credits: 3 });
      expect(await svc.credits(accountId)).toBe(3);
    });

    it('401 for missing, malformed, unknown and revoked keys, with nothing logged', async () => {
      const { key, accountId, keyId } = await svc.newKey(5);
      // The contract's body, exactly; each cause named in WWW-Authenticate (RFC 6750), so the
      // caller knows what to fix.
      const cases: [Record<string, string>, string][] = [
        [{}, "authorization: missing; send the header 'Authorization: Bearer trawl_...' with an API key"],
        [{ 'x-api-key': key }, 'the key goes in the Authorization header, not x-api-key'],
        [{ authorization: key }, "authorization: the key must follow 'Bearer '"],
        [{ authorization: 'Basic abc' }, 'authorization: the Basic scheme is not accepted'],
        [{ authorization: 'Bearer nope' }, "authorization: 'nope...' is not a Trawl API key"],
        [
          { authorization: `Bearer trawl_${'x'.repeat(40)}` },
          'authorization: this API key is not known to this server',
        ],
      ];
      for (const [headers, detail] of cases) {
        const res = await fetch(`${svc.url}/v1/scrape`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ url: `${site.url}/article` }),
        });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'unauthorized' });
        const challenge = res.headers.get('www-authenticate') ?? '';
        expect(challenge).toMatch(/^Bearer realm="trawl"/);
        expect(challenge).toContain(detail);
      }
      expect(
        (await fetch(`${svc.url}/v1/account`, { headers: { authorization: 'Bearer nope' } })).headers.get(
          'www-authenticate',
        ),
      ).toContain('error="invalid_token"');
      await keys.revokeKey(svc.store.db, accountId, keyId);
      const revoked = await svc.post('/v1/scrape', { url: `${site.url}/article` }, key);
      expect(revoked.status).toBe(401);
      expect(await revoked.json()).toEqual({ error: 'unauthorized' });
      expect(revoked.headers.get('www-authenticate')).toMatch(
        /error_description="authorization: this API key \(trawl_\w{6}\.\.\.\) was revoked on \d{4}-\d{2}-\d{2}; create a new one/,
      );
      expect(await svc.credits(accountId)).toBe(5);
      expect(await usage.listUsage(svc.store.db, accountId)).toHaveLength(0);
    });

    it('auth is checked before the body is parsed', async () => {
      const res = await svc.post('/v1/scrape', '{not json');
      expect(res.status).toBe(401);
    });

    it('400 invalid_request names the field, charges nothing', async () => {
      const { key, accountId } = await svc.newKey(5);
      const cases: [unknown, string][] = [
        ['{"url":', 'body: is not valid JSON'],
        ['[]', 'body: must be a JSON object'],
        [{}, 'url: is required'],
        [{ url: 42 }, 'url: must be an http or https URL'],
        [{ url: 'ftp://example.com/x' }, 'url: must be an http or https URL'],
        [{ url: 'not a url' }, 'url: must be an http or https URL'],
        [{ url: `${site.url}/article`, timeout_ms: 999_999 }, 'timeout_ms: must be an integer from 1000 to 120000'],
        [{ url: `${site.url}/article`, timeout_ms: 1500.5 }, 'timeout_ms: must be an integer from 1000 to 120000'],
        [
          { url: `${site.url}/article`, formats: ['pdf'] },
          'formats[0]: must be one of markdown, json, html, raw_html, links',
        ],
        [{ url: `${site.url}/article`, formats: 'markdown' }, 'formats: must be an array'],
        [{ url: `${site.url}/article`, only_main_content: 'yes' }, 'only_main_content: must be true or false'],
        [{ url: `${site.url}/article`, render: 'magic' }, 'render: must be one of auto, http, browser'],
        [{ url: `${site.url}/article`, formt: ['markdown'] }, 'formt: unknown field'],
      ];
      for (const [body, detail] of cases) {
        const res = await svc.post('/v1/scrape', body, key);
        const json = await res.json();
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(json.error).toBe('invalid_request');
        expect(json.detail).toContain(detail);
      }
      expect(await svc.credits(accountId)).toBe(5);
    });

    it('415 for non-JSON bodies and 413 for bodies over 1 MiB', async () => {
      const { key, accountId } = await svc.newKey(5);
      const plain = await svc.post('/v1/scrape', 'url=x', key, { 'content-type': 'text/plain' });
      expect(plain.status).toBe(415);
      expect((await plain.json()).error).toBe('unsupported_media_type');
      const form = await svc.post('/v1/scrape', 'url=x', key, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(form.status).toBe(415);
      const huge = await svc.post('/v1/scrape', { url: `${site.url}/article`, pad: 'x'.repeat(1024 * 1024 + 10) }, key);
      expect(huge.status).toBe(413);
      expect((await huge.json()).error).toBe('payload_too_large');
      expect(await svc.credits(accountId)).toBe(5);
    });

    it('422 invalid_schema with the path of the fault', async () => {
      const { key, accountId } = await svc.newKey(5);
      const cases: [unknown, string][] = [
        [{ url: `${site.url}/article`, formats: ['json'] }, 'schema: is required'],
        [{ url: `${site.url}/article`, schema: 'price' }, 'schema: must be an object'],
        [{ url: `${site.url}/article`, schema: {} }, 'schema: must have at least one field'],
        [{ url: `${site.url}/article`, schema: { price: 'money' } }, "schema.price: unknown type 'money'"],
        [
          { url: `${site.url}/article`, schema: { items: [{ price: 'float' }] } },
          "schema.items[0].price: unknown type 'float'",
        ],
        [
          { url: `${site.url}/article`, schema: { tags: ['string', 'number'] } },
          'schema.tags: an array type must have exactly one element',
        ],
        [
          { url: `${site.url}/article`, schema: { a: { b: { c: { d: { e: { f: 'string' } } } } } } },
          'schema.a.b.c.d.e: too deep',
        ],
      ];
      // Raw JSON: a JavaScript object literal cannot hold a "__proto__" key.
      cases.push([
        `{"url":"${site.url}/article","schema":{"__proto__":"string"}}`,
        'schema.__proto__: "__proto__" cannot be a field name',
      ]);
      cases.push([
        `{"url":"${site.url}/article","schema":{"item":{"__proto__":{"x":"string"}}}}`,
        'schema.item.__proto__:',
      ]);
      for (const [body, detail] of cases) {
        const res = await svc.post('/v1/scrape', body, key);
        const json = await res.json();
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(json).toEqual({ error: 'invalid_schema', detail: expect.stringContaining(detail) });
      }
      // Elsewhere in the body such a key is a 400 that says where.
      const elsewhere = await svc.post('/v1/scrape', `{"url":"${site.url}/article","__proto__":{"admin":true}}`, key);
      expect(elsewhere.status).toBe(400);
      expect(await elsewhere.json()).toEqual({
        error: 'invalid_request',
        detail: expect.stringContaining('__proto__'),
      });
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
      expect(await svc.credits(accountId)).toBe(5);
    });

    it('402 before any work when the account has no credits', async () => {
      const { key } = await svc.newKey(0);
      const before = site.hits('/article');
      const res = await svc.post('/v1/scrape', { url: `${site.url}/article` }, key);
      expect(res.status).toBe(402);
      expect(await res.json()).toEqual({ error: 'insufficient_credits' });
      expect(site.hits('/article')).toBe(before);
    });

    it('429 with retry_after in whole seconds and the Retry-After header', async () => {
      const { key, accountId } = await svc.newKey(10, 2);
      expect((await svc.post('/v1/scrape', { url: `${site.url}/article` }, key)).status).toBe(200);
      expect((await svc.post('/v1/scrape', { url: `${site.url}/article` }, key)).status).toBe(200);
      const res = await svc.post('/v1/scrape', { url: `${site.url}/article` }, key);
      expect(res.status).toBe(429);
      const body = await res.json();
      expect(Object.keys(body).sort()).toEqual(['error', 'retry_after']);
      expect(body.error).toBe('rate_limited');
      expect(Number.isInteger(body.retry_after) && body.retry_after >= 1 && body.retry_after <= 30).toBe(true);
      expect(res.headers.get('retry-after')).toBe(String(body.retry_after));
      expect(await svc.credits(accountId)).toBe(8);
    });

    it('502 fetch_failed with the upstream status, and for refused connections and non-HTML', async () => {
      const { key, accountId } = await svc.newKey(5);
      const missing = await svc.post('/v1/scrape', { url: `${site.url}/missing` }, key);
      expect(missing.status).toBe(502);
      const mj = await missing.json();
      expect(mj.error).toBe('fetch_failed');
      expect(mj.detail).toContain('404');
      const refused = await svc.post('/v1/scrape', { url: 'http://127.0.0.1:1/' }, key);
      expect(refused.status).toBe(502);
      expect((await refused.json()).detail).toContain('connection refused');
      const image = await svc.post('/v1/scrape', { url: `${site.url}/image` }, key);
      expect(image.status).toBe(502);
      expect((await image.json()).detail).toContain('image/png');
      expect(await svc.credits(accountId)).toBe(5);
    });

    it('502 blocked for a bot wall, not billed', async () => {
      const { key, accountId } = await svc.newKey(5);
      const res = await svc.post('/v1/scrape', { url: `${site.url}/captcha` }, key);
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ error: 'blocked', detail: expect.stringContaining('Cloudflare') });
      expect(await svc.credits(accountId)).toBe(5);
    });

    it('scrapes a page that embeds a challenge widget for a form of its own', async () => {
      const { key } = await svc.newKey(5);
      const res = await svc.post('/v1/scrape', { url: `${site.url}/forum`, render: 'http' }, key);
      expect(res.status).toBe(200);
      expect((await res.json()).markdown).toContain('The tug worked perfectly');
    });

    it('504 timeout when the work exceeds timeout_ms, not billed', async () => {
      const { key, accountId } = await svc.newKey(5);
      const res = await svc.post('/v1/scrape', { url: `${site.url}/slow`, timeout_ms: 1000, render: 'http' }, key);
      expect(res.status).toBe(504);
      expect((await res.json()).error).toBe('timeout');
      expect(await svc.credits(accountId)).toBe(5);
    });

    it('refunds the credit when the client goes away before the answer', async () => {
      const { key, accountId } = await svc.newKey(5);
      const ac = new AbortController();
      const pending = fetch(`${svc.url}/v1/scrape`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ url: `${site.url}/slow`, render: 'http' }),
        signal: ac.signal,
      }).catch((e) => e);
      await new Promise((r) => setTimeout(r, 300));
      expect(await svc.credits(accountId)).toBe(4); // reserved while the work runs
      ac.abort();
      await pending;
      let credits = 0;
      for (let i = 0; i < 40 && credits !== 5; i++) {
        await new Promise((r) => setTimeout(r, 100));
        credits = await svc.credits(accountId);
      }
      expect(credits).toBe(5);
    });

    it('404 not_found for unknown paths', async () => {
      const res = await fetch(`${svc.url}/v1/nothing-here`);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe('not_found');
    });

    it('credits stay exact under dozens of concurrent requests', async () => {
      const { key, accountId } = await svc.newKey(20);
      const results = await Promise.all(
        Array.from({ length: 60 }, () =>
          svc.post('/v1/scrape', { url: `${site.url}/article`, formats: ['links'] }, key).then((r) => r.status),
        ),
      );
      expect(results.filter((s) => s === 200)).toHaveLength(20);
      expect(results.filter((s) => s === 402)).toHaveLength(40);
      expect(await svc.credits(accountId)).toBe(0);
      const rows = await usage.listUsage(svc.store.db, accountId, 1000);
      expect(rows).toHaveLength(60);
      expect(rows.reduce((n, r) => n + r.credits, 0)).toBe(20);
    });

    it('refunds every credit when concurrent requests fail upstream', async () => {
      const { key, accountId } = await svc.newKey(10);
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          svc.post('/v1/scrape', { url: `${site.url}/${i % 2 ? 'article' : 'missing'}` }, key).then((r) => r.status),
        ),
      );
      const ok = results.filter((s) => s === 200).length;
      expect(ok).toBeLessThanOrEqual(10);
      expect(await svc.credits(accountId)).toBe(10 - ok);
    });
  });
}

describe('errors before any route runs', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
  });
  afterAll(async () => svc?.stop());

  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const u = new URL(svc.url);
      const sock = connect(Number(u.port), u.hostname, () => sock.write(request));
      let out = '';
      sock.on('data', (d) => (out += d));
      sock.on('close', () => resolve(out));
      sock.on('error', reject);
    });

  it('answers headers that are too large, and requests that are not HTTP, in the contract shape', async () => {
    const huge = await raw(
      `POST /v1/scrape HTTP/1.1\r\nHost: x\r\nX-Pad: ${'x'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toMatch(/x-request-id: req_/i);
    expect(JSON.parse(huge.split('\r\n\r\n')[1])).toEqual({
      error: 'invalid_request',
      detail: expect.stringMatching(/headers/),
    });
    const junk = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(junk).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(junk.split('\r\n\r\n')[1])).toEqual({ error: 'invalid_request', detail: expect.any(String) });
  });
});

describe('SSRF guard through the API', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({ '/article': ARTICLE });
    site.route('/to-private', (_q, res) => res.writeHead(302, { location: `${site.url}/article` }).end());
    svc = await startTestService('sqlite', {
      TRAWL_ALLOW_PRIVATE_NETWORK: '0',
      TRAWL_RESOLVE: `public.test=127.0.0.1:${site.port}`,
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('403 forbidden_target for private addresses in any spelling, not billed', async () => {
    const { key, accountId } = await svc.newKey(20);
    const port = site.port;
    const targets = [
      `http://127.0.0.1:${port}/article`,
      `http://localhost:${port}/article`,
      `http://2130706433:${port}/article`,
      `http://0x7f000001:${port}/article`,
      `http://127.1:${port}/article`,
      `http://0177.0.0.1:${port}/article`,
      `http://[::1]:${port}/article`,
      `http://[::ffff:127.0.0.1]:${port}/article`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
    ];
    for (const url of targets) {
      const res = await svc.post('/v1/scrape', { url }, key);
      const body = await res.json();
      expect(res.status, url).toBe(403);
      expect(body.error).toBe('forbidden_target');
      expect(body.detail).toMatch(/resolves to/);
    }
    expect(await svc.credits(accountId)).toBe(20);
  });

  it('refuses a redirect hop to a private address', async () => {
    const { key, accountId } = await svc.newKey(5);
    const direct = await svc.post('/v1/scrape', { url: `http://public.test:${site.port}/article` }, key);
    expect(direct.status).toBe(200);
    const before = site.hits('/article');
    const res = await svc.post('/v1/scrape', { url: `http://public.test:${site.port}/to-private` }, key);
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('forbidden_target');
    expect(site.hits('/article')).toBe(before);
    expect(await svc.credits(accountId)).toBe(4);
  });
});

describe('a JavaScript-only page on a server without Chromium', () => {
  let svc: TestService;
  let site: FixtureServer;
  const SHELL =
    '<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/bundle.js"></script></body></html>';
  beforeAll(async () => {
    site = await startFixtureServer({ '/app': SHELL, '/article': ARTICLE });
    svc = await startTestService('sqlite', { CHROMIUM_PATH: '/nonexistent/chromium' });
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('render auto answers what the HTML holds, with a warning that names the fix', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post('/v1/scrape', { url: `${site.url}/app` }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.markdown).toBe('');
    expect(body.warnings[0]).toMatch(/JavaScript/);
    expect(body.warnings[0]).toMatch(/chromium/);
    expect(body.warnings[0]).toMatch(/CHROMIUM_PATH/);
    // Nothing came back (issue 32): it says so, and that answer is not charged.
    expect(body.warnings.slice(1)).toEqual([
      expect.stringMatching(/almost no text/),
      expect.stringMatching(/no credit was charged/),
    ]);
    // A page that needs no browser carries no warning.
    expect((await (await svc.post('/v1/scrape', { url: `${site.url}/article` }, key)).json()).warnings).toBeUndefined();
    // Extraction says it per URL.
    const ex = await (
      await svc.post('/v1/extract', { urls: [`${site.url}/app`], schema: { title: 'string' } }, key)
    ).json();
    expect(ex.results[0].warnings?.[0]).toMatch(/CHROMIUM_PATH/);
    expect(await svc.credits(accountId)).toBe(3);
  });

  it('render browser stays a clear error, not charged', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post('/v1/scrape', { url: `${site.url}/app`, render: 'browser' }, key);
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error).toBe('fetch_failed');
    expect(body.detail).toMatch(/CHROMIUM_PATH/);
    expect(await svc.credits(accountId)).toBe(5);
  });
});
