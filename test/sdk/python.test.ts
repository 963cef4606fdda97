/**
 * The Python SDK (sdk/python) against the real service: starts Trawl (SQLite) with a local fixture
 * site, a fake SearXNG, a fake Meta Graph API and amazon.de pinned to the fixture site, makes keys
 * (plenty of credits, none, a 60/min rate limit, another account, an account mid secret-rotation),
 * signs webhook deliveries with the official npm `standardwebhooks` library, then runs
 * `python3 -m unittest discover -s sdk/python/tests` with all of it in its environment and
 * requires every Python test to run (none skipped) and pass.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/store/index.js';
import { startFakeMeta, type FakeMeta } from '../helpers/fake-meta.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ROOT = join(import.meta.dirname, '../..');
const PYTHON = process.env.PYTHON ?? 'python3';

/** python3 ≥ 3.9 on PATH, or why not. */
function pythonProblem(): string | undefined {
  const r = spawnSync(PYTHON, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return `${PYTHON} was not found on PATH`;
  const [major, minor] = r.stdout.trim().split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 9)
    ? undefined
    : `${PYTHON} is ${r.stdout.trim()}; the SDK needs 3.9 or later`;
}
const problem = pythonProblem();
if (problem) console.warn(`test/sdk/python.test.ts skipped: ${problem}`);

const productPage = (price: number) => `<!doctype html><html><head><title>Deep Sea Widget | Shop</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Deep Sea Widget","offers":{"@type":"Offer","price":"${price}","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script>
</head><body><main><h1>Deep Sea Widget</h1><p class="price">$${price}</p><p>A widget for the deep sea, pressure-rated, with a long description paragraph.</p></main></body></html>`;

const html = (res: import('node:http').ServerResponse, body: string) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);

/** Deliveries signed in Node, for the Python verifier: fresh, stale, future, rotated, tampered, seed. */
function npmSignedCases() {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const other = `whsec_${randomBytes(32).toString('base64')}`;
  const wh = new Webhook(secret);
  const wo = new Webhook(other);
  const id = 'evt_npmsigned000000000001';
  const body = JSON.stringify({
    id,
    event: 'change.detected',
    monitor_id: 'mon_npm',
    url: 'https://example.com/p',
    sequence: 7,
    changes: { title: { from: 'Café', to: 'Café ☕ — “nouveau”' } },
    at: new Date().toISOString(),
  });
  const at = (offsetS: number) => new Date(Date.now() + offsetS * 1000);
  const std = (d: Date, signature: string) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(d.getTime() / 1000)),
    'webhook-signature': signature,
    'content-type': 'application/json',
  });
  const now = at(0);
  const fresh = std(now, wh.sign(id, now, body));
  // The library that signed it verifies it (so a Python failure is the verifier's, not the case's).
  wh.verify(body, fresh);
  expect(() =>
    wh.verify(body, { ...fresh, 'webhook-signature': fresh['webhook-signature'].replace(/=+$/, '') }),
  ).toThrow();
  const cases = [
    { name: 'fresh', body, headers: fresh, valid: true },
    {
      name: 'stale (10 min old)',
      body,
      headers: std(at(-600), wh.sign(id, at(-600), body)),
      valid: false,
      error: 'stale_timestamp',
    },
    {
      name: 'future (10 min ahead)',
      body,
      headers: std(at(600), wh.sign(id, at(600), body)),
      valid: false,
      error: 'future_timestamp',
    },
    {
      name: 'rotated: new and old entries, verified with the old',
      body,
      headers: std(now, `${wo.sign(id, now, body)} ${wh.sign(id, now, body)}`),
      valid: true,
    },
    {
      name: 'rotated: verified with either secret',
      body,
      headers: std(now, `${wh.sign(id, now, body)} ${wo.sign(id, now, body)}`),
      valid: true,
      secrets: [other],
    },
    {
      name: 'signed with another secret',
      body,
      headers: std(now, wo.sign(id, now, body)),
      valid: false,
      error: 'invalid_signature',
    },
    {
      name: 'tampered body',
      body: body.replace('nouveau', 'ancien'),
      headers: fresh,
      valid: false,
      error: 'invalid_signature',
    },
    // The library compares base64 text: the same MAC without its padding is refused.
    {
      name: 'signature without base64 padding',
      body,
      headers: { ...fresh, 'webhook-signature': fresh['webhook-signature'].replace(/=+$/, '') },
      valid: false,
      error: 'invalid_signature',
    },
    {
      name: 'seed X-Service-Signature, accepted when asked',
      body,
      headers: { 'X-Service-Signature': `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}` },
      valid: true,
      allow_seed: true,
    },
    {
      name: 'seed X-Service-Signature alone, by default',
      body,
      headers: { 'X-Service-Signature': `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}` },
      valid: false,
      error: 'missing_signature',
    },
    {
      name: 'seed with another secret',
      body,
      headers: { 'X-Service-Signature': `sha256=${createHmac('sha256', other).update(body, 'utf8').digest('hex')}` },
      valid: false,
      error: 'invalid_signature',
      allow_seed: true,
    },
  ];
  return { secret, cases };
}

describe.skipIf(!!problem)('Python SDK: python3 -m unittest against the service', () => {
  let site: FixtureServer;
  let meta: FakeMeta;
  let svc: TestService;
  let dir: string;
  const env: Record<string, string> = {};

  beforeAll(async () => {
    const ticks = new Map<string, number>();
    site = await startFixtureServer({
      '/': '<html><head><title>Lantern Works</title></head><body><nav><a href="/article">Lanterns</a> <a href="/docs/1">Docs one</a> <a href="/docs/2">Docs two</a> <a href="/product">Widget</a></nav><main><h1>Lantern Works</h1><p>Makers of lanterns for the deep sea since 1921, with a workshop by the harbour.</p></main></body></html>',
      '/article': articlePage(
        'Deep sea lanterns',
        '<p>Deep sea lanterns glow at the bottom of the sea, where no sunlight reaches the sand.</p><p>Read the <a href="/docs/1">first guide</a> and the <a href="/docs/2">second guide</a>.</p>',
      ),
      '/docs/1': articlePage('Docs one', '<p>The first guide to fitting a lantern to a diving bell, step by step.</p>'),
      '/docs/2': articlePage('Docs two', '<p>The second guide: cleaning the glass of a lantern after a long dive.</p>'),
      '/product': productPage(19.99),
      // The price moves on every fetch of a URL: each monitor run after the first sees a change.
      '/ticker': (req, res) => {
        const n = (ticks.get(req.url!) ?? 0) + 1;
        ticks.set(req.url!, n);
        html(res, productPage(10 + n));
      },
      '/slow': async (_req, res) => {
        await new Promise((r) => setTimeout(r, 250));
        html(
          res,
          articlePage('Slow', '<p>A page that takes its time to answer, with words enough to be the content.</p>'),
        );
      },
      '/dp/B0TESTDE01': readFileSync(join(ROOT, 'test/fixtures/marketplace/amazon-de-deal.html'), 'utf8'),
    });
    const u = site.url;
    site.route('/searx/search', (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          results: [
            { url: `${u}/article`, title: 'Deep sea lanterns', content: 'Lanterns that glow' },
            { url: `${u}/docs/1`, title: 'Docs one', content: 'A guide' },
            { url: `${u}/docs/2`, title: 'Docs two', content: 'Another guide' },
          ],
        }),
      ),
    );
    const record = (id: string, body: string) => ({
      id,
      ad_creative_bodies: [body],
      ad_delivery_start_time: '2026-01-05T10:00:00+0000',
      publisher_platforms: ['facebook', 'instagram'],
      ad_snapshot_url: `https://www.facebook.com/ads/archive/render_ad/?id=${id}&access_token=SECRET`,
    });
    meta = await startFakeMeta({
      pages: { 'acme-lanterns': { id: '424242', name: 'Acme Lanterns' } },
      firstBatch: {},
      nextPages: {},
      graphRecords: [
        record('9001', 'Lanterns for the deep sea'),
        record('9002', 'Now in brass'),
        record('9003', 'Free shipping'),
      ],
      graphPageSize: 2,
    });
    svc = await startTestService('sqlite', {
      SEARXNG_URL: `${u}/searx`,
      TRAWL_RESOLVE: `www.amazon.de=127.0.0.1:${site.port}`,
      META_ACCESS_TOKEN: 'EAAsdktesttoken123',
      META_GRAPH_BASE_URL: meta.url,
      META_AD_LIBRARY_BASE_URL: meta.url,
      TRAWL_MIN_INTERVAL_SECONDS: '1',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
      TRAWL_WEBHOOK_MAX_ATTEMPTS: '2',
    });
    const main = await svc.newKey(1000);
    const other = await svc.newKey(100);
    const poor = await svc.newKey(0);
    const slow = await svc.newKey(100, 60);
    const rotated = await svc.newKey(100);
    const secretOf = async (accountId: string) =>
      (await accounts.findAccountById(svc.store.db, accountId))!.signing_secret;
    const oldSecret = await secretOf(rotated.accountId);
    const newSecret = await accounts.rotateSigningSecret(svc.store.db, rotated.accountId, 3_600_000);

    dir = mkdtempSync(join(tmpdir(), 'trawl-sdk-py-'));
    const signed = join(dir, 'npm-signed.json');
    writeFileSync(signed, JSON.stringify(npmSignedCases()));
    Object.assign(env, {
      TRAWL_TEST_REQUIRE_SERVICE: '1',
      TRAWL_TEST_URL: svc.url,
      TRAWL_TEST_KEY: main.key,
      TRAWL_TEST_OTHER_KEY: other.key,
      TRAWL_TEST_POOR_KEY: poor.key,
      TRAWL_TEST_SLOW_KEY: slow.key,
      TRAWL_TEST_WEBHOOK_SECRET: await secretOf(main.accountId),
      TRAWL_TEST_ROTATED_KEY: rotated.key,
      TRAWL_TEST_ROTATED_SECRET: newSecret,
      TRAWL_TEST_ROTATED_OLD_SECRET: oldSecret,
      TRAWL_TEST_FIXTURE_URL: u,
      TRAWL_TEST_MARKETPLACE_URL: 'http://www.amazon.de/dp/B0TESTDE01',
      TRAWL_TEST_META_ADVERTISER: 'acme-lanterns',
      TRAWL_TEST_NPM_SIGNED: signed,
    });
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await meta?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs every Python test (none skipped) and they pass', async () => {
    // Asynchronous: the service answers from this same process while Python runs.
    const child = spawn(PYTHON, ['-m', 'unittest', 'discover', '-s', 'sdk/python/tests', '-v'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        LANG: 'C.UTF-8',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONUNBUFFERED: '1',
        ...env,
      },
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    if (code !== 0) console.error(output);
    expect(code, output).toBe(0);
    const ran = Number(/Ran (\d+) tests?/.exec(output)?.[1] ?? 0);
    expect(ran, output).toBeGreaterThanOrEqual(40);
    expect(output).not.toMatch(/skipped/);
    // The key never appears in what the tests print.
    expect(output).not.toContain(env.TRAWL_TEST_KEY);
  }, 240_000);
});
