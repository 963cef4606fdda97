/**
 * The dashboard end to end in headless Chromium (Debian's, driven by playwright-core): sign up,
 * create a key and call /v1/scrape with it, see usage and credits change, reveal and rotate the
 * webhook secret, revoke the key and see the API refuse it, log out. Each page's screenshot is
 * saved under test-results/dashboard/. Then the security properties without a browser: CSRF,
 * cookie flags, login rate limit, another account's key, no key or secret left in pages.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { keys, webhooks } from '../../src/store/index.js';

const SHOTS = join(import.meta.dirname, '../../test-results/dashboard');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
if (!chromiumPath)
  console.warn('skipped: dashboard browser tests need Chromium (apt-get install chromium, or CHROMIUM_PATH)');

describe('dashboard', () => {
  let svc: TestService;
  let site: FixtureServer;
  let browser: Browser | undefined;
  let price = 10;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    site = await startFixtureServer({
      '/article': articlePage(
        'Deep Sea Widgets',
        '<p>Widgets for the deep sea, described at some length for the tests, with a sentence or two more.</p>',
      ),
      '/product': (_q, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>Lamp</title></head><body><main><h1>Lamp</h1><p class="price">$${(price += 1).toFixed(2)}</p></main></body></html>`,
          ),
    });
    svc = await startTestService('sqlite', { TRAWL_SIGNUP_CREDITS: '25' });
    if (chromiumPath)
      browser = await chromium.launch({
        executablePath: chromiumPath,
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
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await site?.close();
  });

  /** Screenshot, then an accessibility audit of the page (axe-core, WCAG 2 A/AA rules): no serious or critical violation. */
  const shot = async (p: Page, name: string) => {
    await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    await p.addScriptTag({ path: AXE });
    const found = await p.evaluate(async () => {
      const r = await (
        window as unknown as {
          axe: {
            run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }>;
          };
        }
      ).axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] });
      return r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.nodes.length})`);
    });
    expect({ page: name, violations: found }).toEqual({ page: name, violations: [] });
  };

  it.skipIf(!chromiumPath)(
    'a person signs up, makes a key, uses it, rotates the secret, revokes the key and logs out',
    async () => {
      // bypassCSP: only so the audit script can be injected; the pages themselves run under their CSP otherwise.
      const context = await browser!.newContext({ viewport: { width: 1100, height: 800 }, bypassCSP: true });
      const p = await context.newPage();
      p.on('dialog', (d) => void d.accept());
      await p.goto(`${svc.url}/`);
      expect(new URL(p.url()).pathname).toBe('/login');
      await shot(p, '01-login');
      await p.click('text=Create one');
      await p.fill('#email', 'dana@example.com');
      await p.fill('#password', 'correct horse battery');
      await p.click('button[type=submit]');
      // Sign-up answers the same for a new or a taken email, so the new account logs in next.
      await p.waitForURL(`${svc.url}/login?signed_up=1`);
      expect(await p.textContent('[role=status]')).toContain('your account is ready');
      await p.fill('#email', 'dana@example.com');
      await p.fill('#password', 'correct horse battery');
      await p.click('button[type=submit]');
      await p.waitForURL(`${svc.url}/`);
      expect(await p.textContent('[data-testid=credits]')).toBe('25');
      await p.waitForSelector('#chart .uplot');
      await shot(p, '02-overview-empty');

      await p.click('nav >> text=API keys');
      await p.fill('#name', 'ci');
      await p.click('form[action="/keys"] button[type=submit]');
      const key = (await p.textContent('#new-key'))!.trim();
      expect(key).toMatch(/^trawl_[0-9A-Za-z]{40}$/);
      await shot(p, '03-key-created');

      const res = await svc.post('/v1/scrape', { url: `${site.url}/article` }, key);
      expect(res.status).toBe(200);
      await p.click('nav >> text=Overview');
      expect(await p.textContent('[data-testid=credits]')).toBe('24');
      expect(await p.textContent('table[aria-label="Latest requests"]')).toContain('POST /v1/scrape');
      await p.waitForSelector('#chart .uplot');
      await shot(p, '04-overview-used');

      await p.click('nav >> text=Webhook secret');
      expect(await p.content()).not.toMatch(/whsec_/);
      await p.click('text=Reveal secret');
      const before = (await p.textContent('#secret'))!.trim();
      expect(before).toMatch(/^whsec_/);
      await p.check('input[name=confirm]');
      await p.click('text=Rotate secret');
      const after = (await p.textContent('#secret'))!.trim();
      expect(after).toMatch(/^whsec_/);
      expect(after).not.toBe(before);
      // The rotated-out secret keeps signing for the overlap, and the page says until when.
      expect(await p.textContent('[data-testid=previous-secret]')).toMatch(/previous secret still signs/);
      await shot(p, '05-secret-rotated');

      // Playground: a scrape with markdown and JSON, its cost and the curl command.
      await p.click('nav >> text=Playground');
      await p.fill('#p-url', `${site.url}/product`);
      await p.check('input[name=formats][value=json]');
      await p.fill('#p-schema', '{"price":"number"}');
      await p.click('form[action="/playground"] button[type=submit]');
      await p.waitForSelector('[data-testid=json]');
      expect(JSON.parse((await p.textContent('[data-testid=json]'))!)).toEqual({ price: expect.any(Number) });
      expect(await p.textContent('[data-testid=markdown]')).toContain('# Lamp');
      expect(await p.textContent('#curl')).toContain('Bearer trawl_…');
      expect(await p.content()).not.toContain(key);
      await shot(p, '06a-playground');

      // Monitors: a bad interval shows the API's own message; a good one is created, run, charted.
      await p.click('nav >> text=Monitors');
      await shot(p, '06-monitors-empty');
      await p.fill('#m-url', `${site.url}/product`);
      await p.fill('#m-interval', '10 minutes');
      await p.fill('#m-watch', 'price, title');
      await p.fill('#m-webhook', 'http://127.0.0.1:9/hook');
      await p.fill('#m-schema', '{"price":"number"}');
      await p.click('form[action="/monitors"] button[type=submit]');
      expect(await p.textContent('[role=alert]')).toMatch(/^interval: "10 minutes" is not an interval/);
      await shot(p, '07-monitor-error');
      await p.fill('#m-interval', '1d');
      await p.fill('#m-conditions', '[{"field":"price","op":"below","value":50}]');
      await p.click('form[action="/monitors"] button[type=submit]');
      expect(await p.textContent('[role=alert]')).toMatch(/^conditions\[0\]\.op: must be one of/);
      await p.fill('#m-conditions', '[{"field":"price","op":"increased"}]');
      await p.click('form[action="/monitors"] button[type=submit]');
      await p.waitForURL(/\/monitors\/mon_/);
      await p.click('button:has-text("Pause")');
      await p.waitForSelector('text=paused · ok');
      await p.click('button:has-text("Run now")');
      await p.waitForSelector('text=Run finished');
      await p.click('button:has-text("Run now")');
      await p.waitForSelector('text=a change was found');
      expect(await p.textContent('table[aria-label=Runs]')).toContain('succeeded');
      await p.waitForSelector('#chart-price .uplot');
      await shot(p, '08-monitor-page');

      await p.click('nav >> text=API keys');
      expect(await p.content()).not.toContain(key);
      await p.click('button:has-text("Revoke")');
      await p.waitForSelector('text=Key revoked');
      await shot(p, '09-key-revoked');
      expect((await svc.post('/v1/scrape', { url: `${site.url}/article` }, key)).status).toBe(401);

      await p.setViewportSize({ width: 390, height: 844 });
      await p.click('nav >> text=Overview');
      await shot(p, '10-overview-phone');
      await p.click('text=Log out');
      await p.waitForURL(/\/login$/);
      await p.goto(`${svc.url}/keys`);
      expect(new URL(p.url()).pathname).toBe('/login');
      await context.close();
    },
    120_000,
  );

  // --- Security, without a browser ------------------------------------------------------------
  const signup = async (email: string) => {
    const body = `email=${encodeURIComponent(email)}&password=longenough1`;
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    await fetch(`${svc.url}/signup`, { method: 'POST', redirect: 'manual', headers, body });
    const res = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers, body });
    const cookie = res.headers.get('set-cookie')!;
    return { cookie, token: cookie.split(';')[0] };
  };
  const csrfOf = async (cookie: string) =>
    /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${svc.url}/keys`, { headers: { cookie } })).text())![1];
  const postForm = (path: string, cookie: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
      body: new URLSearchParams(body).toString(),
    });

  it('sets the session cookie HttpOnly and SameSite, and refuses forms without the CSRF token or from another site', async () => {
    const { cookie, token } = await signup('erin@example.com');
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    const csrf = await csrfOf(token);
    expect((await postForm('/keys', token, { name: 'x' })).status).toBe(403);
    expect((await postForm('/keys', token, { name: 'x', csrf: 'A'.repeat(csrf.length) })).status).toBe(403);
    expect((await postForm('/keys', token, { name: 'x', csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    const ok = await postForm('/keys', token, { name: 'x', csrf });
    expect(ok.status).toBe(201);
    const shown = /id="new-key">([^<]+)</.exec(await ok.text())![1];
    // Shown once: not in the keys page afterwards, nor the secret anywhere until revealed.
    const later = await (await fetch(`${svc.url}/keys`, { headers: { cookie: token } })).text();
    expect(later).not.toContain(shown);
    expect(await (await fetch(`${svc.url}/secret`, { headers: { cookie: token } })).text()).not.toMatch(/whsec_/);
    expect(await (await fetch(`${svc.url}/`, { headers: { cookie: token } })).text()).not.toMatch(
      /whsec_|trawl_[0-9A-Za-z]{40}/,
    );
  });

  it("cannot revoke another account's key", async () => {
    const a = await signup('fay@example.com');
    const b = await signup('gus@example.com');
    const csrfA = await csrfOf(a.token);
    const made = await postForm('/keys', a.token, { csrf: csrfA });
    expect(made.status).toBe(201);
    const accountA = (
      await svc.store.db
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', 'fay@example.com')
        .executeTakeFirstOrThrow()
    ).id;
    const [keyA] = await keys.listKeys(svc.store.db, accountA);
    const csrfB = await csrfOf(b.token);
    expect((await postForm(`/keys/${keyA.id}/revoke`, b.token, { csrf: csrfB })).status).toBe(404);
    expect((await keys.listKeys(svc.store.db, accountA))[0].revoked_at).toBeNull();
  });

  it("cannot see or change another account's monitor", async () => {
    const a = await signup('ida@example.com');
    const b = await signup('jon@example.com');
    const csrfA = await csrfOf(a.token);
    const made = await postForm('/monitors', a.token, {
      csrf: csrfA,
      url: `${site.url}/product`,
      interval: '1d',
      watch: 'title',
      webhook: 'http://127.0.0.1:9/hook',
    });
    expect(made.status).toBe(303);
    const id = made.headers.get('location')!.split('/').pop()!;
    expect((await fetch(`${svc.url}/monitors/${id}`, { headers: { cookie: a.token } })).status).toBe(200);
    const seen = await fetch(`${svc.url}/monitors/${id}`, { headers: { cookie: b.token } });
    expect(seen.status).toBe(404);
    expect(await seen.text()).not.toContain(`${site.url}/product`);
    const csrfB = await csrfOf(b.token);
    for (const action of ['state', 'run', 'delete', 'webhook-state'])
      expect((await postForm(`/monitors/${id}/${action}`, b.token, { csrf: csrfB, state: 'paused' })).status).toBe(404);
    expect(
      (await svc.store.db.selectFrom('monitors').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state,
    ).toBe('active');
    expect(await (await fetch(`${svc.url}/monitors`, { headers: { cookie: b.token } })).text()).not.toContain(id);
  });

  it('shows a disabled webhook on the list and the monitor page, and re-enables it', async () => {
    const a = await signup('kim@example.com');
    const csrf = await csrfOf(a.token);
    const made = await postForm('/monitors', a.token, {
      csrf,
      url: `${site.url}/product`,
      interval: '1d',
      watch: 'title',
      webhook: 'http://127.0.0.1:9/hook',
    });
    const id = made.headers.get('location')!.split('/').pop()!;
    const pageOf = async () => (await fetch(`${svc.url}/monitors/${id}`, { headers: { cookie: a.token } })).text();
    expect(await pageOf()).not.toContain('data-testid="webhook-disabled"');
    // As a 410 Gone answer would.
    await webhooks.disableWebhook(
      svc.store.db,
      id,
      'the receiver answered 410 Gone at 2026-11-26T00:00:00.000Z',
      new Date().toISOString(),
    );
    const disabled = await pageOf();
    expect(disabled).toContain('data-testid="webhook-disabled"');
    expect(disabled).toContain('410 Gone');
    expect(await (await fetch(`${svc.url}/monitors`, { headers: { cookie: a.token } })).text()).toContain(
      '<strong>disabled</strong>',
    );
    const res = await postForm(`/monitors/${id}/webhook-state`, a.token, { csrf });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Webhook re-enabled.');
    expect(
      await svc.store.db
        .selectFrom('monitors')
        .select(['webhook_state', 'webhook_disabled_reason'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ webhook_state: 'active', webhook_disabled_reason: null });
  });

  it('limits login attempts per address', async () => {
    await signup('hal@example.com');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await postForm('/login', '', { email: 'hal@example.com', password: 'wrong-password' })).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const right = await postForm('/login', '', { email: 'hal@example.com', password: 'longenough1' });
    expect(right.status).toBe(429); // the right password too, until the window passes
    expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('serves its assets compressed to browsers that read gzip, cached for an hour', async () => {
    const { gunzipSync } = await import('node:zlib');
    const res = await fetch(`${svc.url}/assets/uPlot.iife.min.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const plain = await (
      await fetch(`${svc.url}/assets/uPlot.iife.min.js`, { headers: { 'accept-encoding': 'identity' } })
    ).arrayBuffer();
    expect(plain.byteLength).toBeGreaterThan(40_000);
    // fetch decodes gzip itself; the raw request shows the wire size.
    const { request } = await import('node:http');
    const wire = await new Promise<Buffer>((ok) =>
      request(`${svc.url}/assets/uPlot.iife.min.js`, { headers: { 'accept-encoding': 'gzip' } }, (r) => {
        const c: Buffer[] = [];
        r.on('data', (d) => c.push(d));
        r.on('end', () => ok(Buffer.concat(c)));
      }).end(),
    );
    expect(wire.length).toBeLessThan(plain.byteLength / 2);
    expect(gunzipSync(wire).byteLength).toBe(plain.byteLength);
    // Only the listed assets: an encoded path out of the folder is not one.
    const escape = await fetch(`${svc.url}/assets/..%2Fpackage.json`);
    expect(escape.status).toBe(404);
    expect(await escape.text()).not.toContain('"dependencies"');
  });

  it('answers pages without a session with a redirect to log in, and the API stays JSON', async () => {
    const r = await fetch(`${svc.url}/keys`, { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/login?next=%2Fkeys');
    const api = await fetch(`${svc.url}/v1/nope`);
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: 'not_found' });
  });
});
