/**
 * Saved browser sessions (issue 44) end to end on a local login site (CSRF token, a rolling session
 * cookie that expires on the site's own clock, a redirect to /login when it has): made by a login
 * recipe or uploaded, used by /v1/scrape on the HTTP path and in Chromium, what the site sets kept,
 * expiry answered as blocked/session_expired with one automatic login, never sent to another site,
 * never seen by another account, and no cookie value or secret in any answer, log line or stored
 * row. The service runs without TRAWL_ALLOW_PRIVATE_NETWORK: names are pinned with TRAWL_RESOLVE.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startLoginSite, type LoginSite } from '../helpers/login-site.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();
const PASSWORD = 'hunter2-PW-5e1f9a';
const KEY = 'k'.repeat(16) + '0123456789abcdef0123';
const SITE = 'www.shop.test';
const OTHER = 'other.test';

const recipe = (port: number) => ({
  url: `http://${SITE}:${port}/login`,
  actions: [
    { type: 'write', selector: '#user', text: 'alice' },
    { type: 'write', selector: '#password', text: '{{secret.PW}}' },
    { type: 'click', selector: 'button[type=submit]' },
    { type: 'wait', selector: '#orders' },
  ],
  secrets: { PW: PASSWORD },
});

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any> };
}

/** No issued sid and no secret in this text. */
function clean(site: LoginSite, text: string, what: string) {
  expect(text, what).not.toContain(PASSWORD);
  for (const sid of site.issued) expect(text, `${what} holds ${sid}`).not.toContain(sid);
}

describe.each(DIALECTS)('browser sessions: store and answers (%s)', (dialect) => {
  let svc: TestService;
  let bare: TestService;
  let site: LoginSite;

  beforeAll(async () => {
    site = await startLoginSite({ user: 'alice', password: PASSWORD, ttl: 600, host: SITE, other: OTHER });
    svc = await startTestService(dialect, { TRAWL_SECRET_KEY: KEY });
    bare = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await bare?.stop();
    await site?.close();
  });

  it('stores an upload sealed, shows names and counts only, and keeps it to its account', async () => {
    const a = await svc.newKey();
    const b = await svc.newKey();
    const value = 'sid-UPLOADED-1b2c3d';
    site.issued.push(value);
    const made = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'shop',
      storage_state: {
        cookies: [
          { name: 'sid', value, domain: SITE, path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' },
          { name: 'ad', value: 'sid-ELSEWHERE', domain: `.${OTHER}`, path: '/', expires: -1 },
        ],
        origins: [{ origin: `http://${SITE}`, localStorage: [{ name: 'token', value: 'sid-LOCALSTORE' }] }],
      },
    });
    site.issued.push('sid-ELSEWHERE', 'sid-LOCALSTORE');
    expect(made.status).toBe(201);
    expect(made.body.session).toMatchObject({
      name: 'shop',
      sites: ['shop.test', 'other.test'],
      status: 'active',
      has_login: false,
      cookie_count: 2,
      local_storage: [{ origin: `http://${SITE}`, items: 1 }],
    });
    clean(site, made.text, 'create answer');
    const list = await call(svc, 'GET', '/v1/sessions', a.key);
    expect(list.body.sessions.map((s: { name: string }) => s.name)).toEqual(['shop']);
    clean(site, list.text, 'list');
    clean(site, (await call(svc, 'GET', '/v1/sessions/shop', a.key)).text, 'get');
    // Another account: not listed, not found, cannot delete or use it.
    expect((await call(svc, 'GET', '/v1/sessions', b.key)).body.sessions).toEqual([]);
    expect((await call(svc, 'GET', '/v1/sessions/shop', b.key)).status).toBe(404);
    expect((await call(svc, 'DELETE', '/v1/sessions/shop', b.key)).status).toBe(404);
    const used = await call(svc, 'POST', '/v1/scrape', b.key, { url: `http://${SITE}/account`, session: 'shop' });
    expect(used.status).toBe(404);
    expect(await svc.credits(b.accountId)).toBe(100);
    // Nothing in clear at rest: the rows, and (SQLite) every file of the database.
    const rows = await svc.store.db.selectFrom('browser_sessions').selectAll().execute();
    clean(site, JSON.stringify(rows), 'stored rows');
    if (dialect === 'sqlite')
      for (const f of readdirSync(svc.config.dataDir).filter((n) => /\.(db|sqlite)/.test(n)))
        clean(site, readFileSync(join(svc.config.dataDir, f)).toString('latin1'), f);
    // Same name again: 400; then deleted.
    expect(
      (
        await call(svc, 'POST', '/v1/sessions', a.key, {
          name: 'shop',
          cookies: [{ name: 'x', value: 'y', domain: SITE }],
        })
      ).status,
    ).toBe(400);
    expect((await call(svc, 'DELETE', '/v1/sessions/shop', a.key)).body).toEqual({
      status: 'ok',
      name: 'shop',
      deleted: true,
    });
    expect((await call(svc, 'GET', '/v1/sessions/shop', a.key)).status).toBe(404);
  });

  it('refuses bad bodies with the field at fault, and refuses to store anything without TRAWL_SECRET_KEY', async () => {
    const a = await svc.newKey();
    const both = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'x',
      cookies: [{ name: 'a', value: 'b', domain: SITE }],
      login: recipe(1),
    });
    expect(both.status).toBe(400);
    expect(both.body.detail).toMatch(/exactly one of storage_state, cookies or login/);
    const missing = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'x',
      login: { ...recipe(1), secrets: {} },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toMatch(/\{\{secret\.PW\}\} is not in login\.secrets/);
    const suffix = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'x',
      sites: ['co.uk'],
      cookies: [{ name: 'a', value: 'b', domain: SITE }],
    });
    expect(suffix.status).toBe(400);
    const k = await bare.newKey();
    const nokey = await call(bare, 'POST', '/v1/sessions', k.key, {
      name: 'x',
      cookies: [{ name: 'a', value: 'sid-NOKEY', domain: SITE }],
    });
    expect(nokey.status).toBe(400);
    expect(nokey.body).toMatchObject({ error: 'invalid_request' });
    expect(nokey.body.detail).toMatch(/TRAWL_SECRET_KEY/);
    expect(nokey.text).not.toContain('sid-NOKEY');
    expect(await bare.store.db.selectFrom('browser_sessions').selectAll().execute()).toEqual([]);
  });
});

describe.skipIf(!chromium)('browser sessions used by /v1/scrape (real Chromium, sqlite)', () => {
  let svc: TestService;
  let site: LoginSite;
  const logged: string[] = [];

  beforeAll(async () => {
    site = await startLoginSite({ user: 'alice', password: PASSWORD, ttl: 600, host: SITE, other: OTHER });
    const pins = [SITE, OTHER].map((h) => `${h}=127.0.0.1:${site.server.port}`).join(',');
    svc = await startTestService(
      'sqlite',
      { TRAWL_SECRET_KEY: KEY, TRAWL_ALLOW_PRIVATE_NETWORK: '0', TRAWL_RESOLVE: pins },
      { logger: { level: 'debug', stream: { write: (l: string) => void logged.push(l) } } },
    );
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const port = () => site.server.port;
  const account = () => `http://${SITE}:${port()}/account`;

  it('logs in with a recipe, reads behind the login on both paths, keeps what the site sets, and re-logs in once on expiry', async () => {
    const a = await svc.newKey();
    const start = await svc.credits(a.accountId);
    const made = await call(svc, 'POST', '/v1/sessions', a.key, { name: 'shop', login: recipe(port()) });
    expect(made.status, made.text).toBe(201);
    expect(made.body.session).toMatchObject({ sites: ['shop.test'], has_login: true, status: 'active' });
    expect(site.logins).toBe(1);
    // A recipe run in the browser is paid for: 1 credit when it saves the session.
    expect(await svc.credits(a.accountId)).toBe(start - 1);
    // The HTTP path, three times: the site rotates its cookie on every visit, so each read works
    // only if the one before kept what the site set.
    for (let i = 0; i < 3; i++) {
      const r = await call(svc, 'POST', '/v1/scrape', a.key, { url: account(), session: 'shop', render: 'http' });
      expect(r.status, r.text).toBe(200);
      expect(r.body.markdown).toContain('Orders of alice');
      clean(site, r.text, 'scrape answer');
    }
    // Never through the result cache: max_age does not serve a page read with a session.
    const seenBefore = site.siteCookies.filter((c) => c.path === '/account').length;
    for (let i = 0; i < 2; i++) {
      const r = await call(svc, 'POST', '/v1/scrape', a.key, {
        url: account(),
        session: 'shop',
        render: 'http',
        max_age: 600_000,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body.metadata.cache).toBeUndefined();
    }
    expect(site.siteCookies.filter((c) => c.path === '/account').length).toBe(seenBefore + 2);
    expect(await svc.store.db.selectFrom('result_cache').selectAll().execute()).toEqual([]);
    // The browser path, with the cookie the HTTP path left.
    const inBrowser = await call(svc, 'POST', '/v1/scrape', a.key, {
      url: account(),
      session: 'shop',
      render: 'browser',
    });
    expect(inBrowser.status, inBrowser.text).toBe(200);
    expect(inBrowser.body.markdown).toContain('Orders of alice');
    // And the HTTP path again with what the browser left.
    expect(
      (await call(svc, 'POST', '/v1/scrape', a.key, { url: account(), session: 'shop', render: 'http' })).status,
    ).toBe(200);
    expect(site.logins).toBe(1);
    // The Firecrawl surface takes it too (Trawl's own option on scrape).
    const fc = await call(svc, 'POST', '/firecrawl/v2/scrape', a.key, { url: account(), session: 'shop' });
    expect(fc.status, fc.text).toBe(200);
    expect(fc.body.data.markdown).toContain('Orders of alice');
    clean(site, fc.text, 'firecrawl answer');
    // The site's clock passes its session's life: one automatic login, then the content.
    site.clock.now += 601;
    const before = await svc.credits(a.accountId);
    const again = await call(svc, 'POST', '/v1/scrape', a.key, { url: account(), session: 'shop', render: 'http' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.markdown).toContain('Orders of alice');
    expect(site.logins).toBe(2);
    expect(await svc.credits(a.accountId)).toBe(before - 1);
    const shown = await call(svc, 'GET', '/v1/sessions/shop', a.key);
    expect(shown.body.session.status).toBe('active');
    expect(shown.body.session.last_refreshed_at).toEqual(expect.any(String));
    // No sid went to the other site, and none of them or the password is in the log.
    expect(site.otherCookies.filter((c) => c.cookie)).toEqual([]);
    for (const line of logged) clean(site, line, 'log line');
  }, 120_000);

  it('an uploaded session that expires: 502 blocked, reason session_expired, no credit, marked expired', async () => {
    const a = await svc.newKey();
    const login = await call(svc, 'POST', '/v1/sessions', a.key, { name: 'tmp', login: recipe(port()) });
    expect(login.status).toBe(201);
    // Re-upload its cookies as a session without a recipe: read the sealed state back through a scrape is not possible,
    // so an upload with a cookie the site never issued stands for an expired one.
    const up = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'stale',
      cookies: [{ name: 'sid', value: 'sid-NEVER-ISSUED', domain: SITE }],
    });
    site.issued.push('sid-NEVER-ISSUED');
    expect(up.status).toBe(201);
    const before = await svc.credits(a.accountId);
    for (const render of ['http', 'browser']) {
      const r = await call(svc, 'POST', '/v1/scrape', a.key, { url: account(), session: 'stale', render });
      expect(r.status, r.text).toBe(502);
      expect(r.body).toMatchObject({ error: 'blocked', reason: 'session_expired' });
      expect(r.body.detail).toMatch(/^session "stale" has expired: /);
      clean(site, r.text, 'expired answer');
    }
    expect(await svc.credits(a.accountId)).toBe(before);
    expect((await call(svc, 'GET', '/v1/sessions/stale', a.key)).body.session.status).toBe('expired');
  }, 120_000);

  it('a recipe that does not log in is 422 action_failed, stores nothing, and never quotes its secret', async () => {
    const a = await svc.newKey();
    const start = await svc.credits(a.accountId);
    // No credit, no browser run: 402 before the recipe reaches the site.
    const broke = await svc.newKey(0);
    const loginsBefore = site.logins;
    const unpaid = await call(svc, 'POST', '/v1/sessions', broke.key, { name: 'shop', login: recipe(port()) });
    expect(unpaid.status, unpaid.text).toBe(402);
    expect(unpaid.body).toEqual({ error: 'insufficient_credits' });
    expect(site.logins).toBe(loginsBefore);
    const wrong = 'wrong-PW-c0ffee';
    const r = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'bad',
      login: {
        ...recipe(port()),
        actions: recipe(port()).actions.slice(0, 3),
        secrets: { PW: wrong },
      },
    });
    expect(r.status, r.text).toBe(422);
    expect(r.body).toMatchObject({ error: 'action_failed' });
    expect(r.text).not.toContain(wrong);
    expect((await call(svc, 'GET', '/v1/sessions/bad', a.key)).status).toBe(404);
    // A recipe that fails costs nothing.
    expect(await svc.credits(a.accountId)).toBe(start);
    for (const l of logged) expect(l).not.toContain(wrong);
  }, 120_000);

  it('never sends the session to another site: not on a redirect, not to its sub-resources, not as the target', async () => {
    const a = await svc.newKey();
    expect((await call(svc, 'POST', '/v1/sessions', a.key, { name: 'shop', login: recipe(port()) })).status).toBe(201);
    site.otherCookies.length = 0;
    for (const render of ['http', 'browser']) {
      const r = await call(svc, 'POST', '/v1/scrape', a.key, {
        url: `http://${SITE}:${port()}/away`,
        session: 'shop',
        render,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body.markdown).toContain('Another site altogether');
    }
    // The account page's image and script fetch to the other site, in the browser.
    expect(
      (await call(svc, 'POST', '/v1/scrape', a.key, { url: account(), session: 'shop', render: 'browser' })).status,
    ).toBe(200);
    expect(site.otherCookies.map((c) => c.path)).toEqual(expect.arrayContaining(['/landing', '/pixel.png']));
    expect(site.otherCookies.filter((c) => c.cookie)).toEqual([]);
    // Another site as the target: refused before anything is fetched, no credit.
    const before = await svc.credits(a.accountId);
    const elsewhere = await call(svc, 'POST', '/v1/scrape', a.key, {
      url: `http://${OTHER}:${port()}/landing`,
      session: 'shop',
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.detail).toMatch(/belongs to shop\.test/);
    expect(await svc.credits(a.accountId)).toBe(before);
  }, 120_000);
});
