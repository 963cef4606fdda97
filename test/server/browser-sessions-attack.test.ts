/**
 * Saved browser sessions attacked from outside (issue 44): a page that always shows a password
 * input must not make every request log in again (cost, and lockout of the user's real account);
 * a key changed without TRAWL_SECRET_KEY_PREVIOUS, and cookie values a header cannot carry, are
 * answered in the contract's words, never a 500.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoginSite, type LoginSite } from '../helpers/login-site.js';
import { startTestService, type TestService } from '../helpers/service.js';

const PASSWORD = 'hunter2-PW-attack-77';
const KEY = 'a'.repeat(16) + '0123456789abcdef0123';
const OTHER_KEY = 'b'.repeat(16) + '0123456789abcdef0123';
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

describe('browser sessions under attack', () => {
  let svc: TestService;
  let site: LoginSite;
  const dir = mkdtempSync(join(tmpdir(), 'trawl-sessions-attack-'));
  const env = () => ({
    TRAWL_SECRET_KEY: KEY,
    TRAWL_ALLOW_PRIVATE_NETWORK: '0',
    TRAWL_RESOLVE: [SITE, OTHER].map((h) => `${h}=127.0.0.1:${site.server.port}`).join(','),
    TRAWL_DATA_DIR: dir,
  });

  beforeAll(async () => {
    site = await startLoginSite({ user: 'alice', password: PASSWORD, ttl: 600, host: SITE, other: OTHER });
    // A settings page that always holds a password input (a "change password" form), logged in or not.
    site.server.route(
      '/settings',
      '<html><body><main><h1>Settings</h1><p>Change your password below, as often as you like.</p><form><input type="password" name="new"></form></main></body></html>',
    );
    svc = await startTestService('sqlite', env());
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a page that always shows a password input logs in again once, not on every request', async () => {
    const a = await svc.newKey();
    const made = await call(svc, 'POST', '/v1/sessions', a.key, { name: 'shop', login: recipe(site.server.port) });
    expect(made.status, made.text).toBe(201);
    expect(site.logins).toBe(1);
    const settings = `http://${SITE}:${site.server.port}/settings`;
    for (let i = 0; i < 4; i++) {
      const r = await call(svc, 'POST', '/v1/scrape', a.key, { url: settings, session: 'shop', render: 'http' });
      expect(r.status, r.text).toBe(502);
      expect(r.body.reason).toBe('session_expired');
    }
    // At most one automatic login for a session that a fresh login did not help.
    expect(site.logins).toBeLessThanOrEqual(2);
  }, 120_000);

  it('a cookie value a header cannot carry is refused at creation, never a 500 later', async () => {
    const a = await svc.newKey();
    for (const value of ['x\r\nX-Injected: 1', 'a;b=c', 'sp ace', 'tab\tx']) {
      const made = await call(svc, 'POST', '/v1/sessions', a.key, {
        name: `bad${Math.random().toString(36).slice(2, 8)}`,
        cookies: [{ name: 'sid', value, domain: SITE }],
      });
      if (made.status === 201) {
        const r = await call(svc, 'POST', '/v1/scrape', a.key, {
          url: `http://${SITE}:${site.server.port}/account`,
          session: made.body.session.name,
          render: 'http',
        });
        expect(r.status, `${JSON.stringify(value)}: ${r.text}`).not.toBe(500);
      } else expect(made.status, made.text).toBe(400);
    }
    for (const name of ['a=b', 'x y', 'n;m']) {
      const made = await call(svc, 'POST', '/v1/sessions', a.key, {
        name: `badn${Math.random().toString(36).slice(2, 8)}`,
        cookies: [{ name, value: 'v', domain: SITE }],
      });
      expect(made.status, made.text).toBe(400);
    }
  }, 60_000);

  it('a recipe whose password no longer works is not tried on every request (lockout)', async () => {
    const a = await svc.newKey();
    const port = site.server.port;
    const flags = { accepting: true, valid: true, posts: 0 };
    const form =
      '<html><body><h1>Log in</h1><form method="post" action="/b/login"><input id="user" name="user"><input id="password" type="password" name="password"><button type="submit">Go</button></form></body></html>';
    site.server.route('/b/login', (req, res) => {
      if (req.method !== 'POST') return res.writeHead(200, { 'content-type': 'text/html' }).end(form);
      flags.posts++;
      req.resume();
      req.on('end', () => {
        if (!flags.accepting) return res.writeHead(200, { 'content-type': 'text/html' }).end(form);
        res.writeHead(302, { location: '/b/page', 'set-cookie': 'b=1; Path=/' }).end();
      });
    });
    site.server.route('/b/page', (req, res) =>
      flags.valid && /\bb=1\b/.test(req.headers.cookie ?? '')
        ? res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              '<html><body><main><h1>Inside</h1><p id="ok">Only for the logged in, words enough.</p></main></body></html>',
            )
        : res.writeHead(302, { location: '/b/login' }).end(),
    );
    const made = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'locked',
      login: {
        url: `http://${SITE}:${port}/b/login`,
        actions: [
          { type: 'write', selector: '#user', text: 'alice' },
          { type: 'write', selector: '#password', text: '{{secret.PW}}' },
          { type: 'click', selector: 'button[type=submit]' },
          { type: 'wait', milliseconds: 300 },
        ],
        secrets: { PW: PASSWORD },
      },
    });
    expect(made.status, made.text).toBe(201);
    expect(flags.posts).toBe(1);
    // Its last good login was an hour ago; then the site logs everyone out, and the user changed the password there.
    await svc.store.db
      .updateTable('browser_sessions')
      .set({ last_refreshed_at: new Date(Date.now() - 3_600_000).toISOString() })
      .where('name', '=', 'locked')
      .execute();
    flags.valid = false;
    flags.accepting = false;
    for (let i = 0; i < 3; i++) {
      const r = await call(svc, 'POST', '/v1/scrape', a.key, {
        url: `http://${SITE}:${port}/b/page`,
        session: 'locked',
        render: 'http',
      });
      expect(r.status, r.text).toBe(502);
      expect(r.body.reason).toBe('session_expired');
      expect(r.text).not.toContain(PASSWORD);
    }
    expect(flags.posts).toBe(2);
  }, 120_000);

  it('concurrent reads of a rolling session all succeed, and what is kept afterwards still works', async () => {
    const a = await svc.newKey();
    const made = await call(svc, 'POST', '/v1/sessions', a.key, { name: 'busy', login: recipe(site.server.port) });
    expect(made.status, made.text).toBe(201);
    const logins = site.logins;
    const account = `http://${SITE}:${site.server.port}/account`;
    const read = () => call(svc, 'POST', '/v1/scrape', a.key, { url: account, session: 'busy', render: 'http' });
    const all = await Promise.all([read(), read(), read(), read()]);
    for (const r of all) expect(r.status, r.text).toBe(200);
    // The state kept last is a live one: the next read needs no login.
    const next = await read();
    expect(next.status, next.text).toBe(200);
    expect(site.logins).toBe(logins);
  }, 120_000);

  it('a login recipe reaches no private address: not as its URL, not through a redirect', async () => {
    const a = await svc.newKey();
    const port = site.server.port;
    site.server.route('/admin-only', '<html><body><h1>Internal</h1></body></html>');
    site.server.route('/to-loopback', (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${port}/admin-only` }).end(),
    );
    const steps = [{ type: 'wait', milliseconds: 10 }];
    for (const url of [
      `http://127.0.0.1:${port}/admin-only`,
      `http://[::1]:${port}/admin-only`,
      'http://169.254.169.254/latest/meta-data/',
      `http://${SITE}:${port}/to-loopback`,
    ]) {
      const made = await call(svc, 'POST', '/v1/sessions', a.key, {
        name: `ssrf${Math.random().toString(36).slice(2, 8)}`,
        login: { url, actions: steps },
      });
      expect(made.status, `${url}: ${made.text}`).toBeGreaterThanOrEqual(400);
      expect(made.status, `${url}: ${made.text}`).not.toBe(500);
      expect(made.text).not.toContain('Internal');
    }
    expect(site.server.hits('/admin-only')).toBe(0);
  }, 120_000);

  it('a failing recipe never puts its secret in the answer or a log line, wherever the step uses it', async () => {
    const logged: string[] = [];
    const loudDir = mkdtempSync(join(tmpdir(), 'trawl-sessions-loud-'));
    const loud = await startTestService(
      'sqlite',
      { ...env(), TRAWL_DATA_DIR: loudDir },
      { logger: { level: 'debug', stream: { write: (l: string) => void logged.push(l) } } },
    );
    try {
      const a = await loud.newKey();
      const url = `http://${SITE}:${site.server.port}/login`;
      for (const step of [
        { type: 'click', selector: '{{secret.PW}}' },
        { type: 'execute_javascript', script: 'throw new Error("bad {{secret.PW}}")' },
      ]) {
        const made = await call(loud, 'POST', '/v1/sessions', a.key, {
          name: `leak${Math.random().toString(36).slice(2, 8)}`,
          login: { url, actions: [step], secrets: { PW: PASSWORD } },
        });
        expect(made.status, made.text).toBeGreaterThanOrEqual(400);
        expect(made.status, made.text).not.toBe(500);
        expect(made.text, JSON.stringify(step)).not.toContain(PASSWORD);
      }
      for (const line of logged) expect(line).not.toContain(PASSWORD);
    } finally {
      await loud.stop();
      rmSync(loudDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a GET login form that fails never shows the secret, not even URL-encoded in the page address', async () => {
    const a = await svc.newKey();
    const special = 'p@ss w0rd&!/é';
    site.server.route(
      '/g/login',
      '<html><body><h1>Log in</h1><form method="get" action="/g/login"><input id="user" name="user"><input id="password" type="password" name="password"><button type="submit">Go</button></form></body></html>',
    );
    const made = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'getform',
      login: {
        url: `http://${SITE}:${site.server.port}/g/login`,
        actions: [
          { type: 'write', selector: '#user', text: 'alice' },
          { type: 'write', selector: '#password', text: '{{secret.PW}}' },
          { type: 'click', selector: 'button[type=submit]' },
          { type: 'wait', milliseconds: 300 },
        ],
        secrets: { PW: special },
      },
    });
    expect(made.status, made.text).toBe(422);
    const forms = [special, encodeURIComponent(special), new URLSearchParams({ p: special }).toString().slice(2)];
    for (const f of forms) expect(made.text, f).not.toContain(f);
    expect(made.text).not.toMatch(/w0rd/);
  }, 60_000);

  it("another account can neither refresh nor read through another's session, and learns nothing from the answer", async () => {
    const a = await svc.newKey();
    const b = await svc.newKey();
    const made = await call(svc, 'POST', '/v1/sessions', a.key, { name: 'mine', login: recipe(site.server.port) });
    expect(made.status, made.text).toBe(201);
    const logins = site.logins;
    const url = `http://${SITE}:${site.server.port}/account`;
    const tries = [
      ['POST', '/v1/sessions/mine/refresh', undefined],
      ['POST', '/firecrawl/v2/scrape', { url, session: 'mine' }],
      ['POST', '/firecrawl/v1/scrape', { url, session: 'mine' }],
      ['POST', '/v1/scrape', { url, session: 'mine', render: 'browser' }],
    ] as const;
    for (const [method, path, body] of tries) {
      const mine = await call(svc, method, path, b.key, body);
      const none = await call(
        svc,
        method,
        path.replace('mine', 'nosuch'),
        b.key,
        body && { ...body, session: 'nosuch' },
      );
      expect(mine.status, `${path}: ${mine.text}`).toBe(404);
      // The same words as for a name no account has (but the name asked).
      expect(mine.text.replaceAll('mine', 'nosuch')).toBe(none.text);
    }
    expect(site.logins).toBe(logins);
    expect(await svc.credits(b.accountId)).toBe(100);
  }, 60_000);

  it('an account keeps at most 100 sessions', async () => {
    const a = await svc.newKey();
    const make = (i: number) =>
      call(svc, 'POST', '/v1/sessions', a.key, {
        name: `many-${i}`,
        cookies: [{ name: 'sid', value: `v${i}`, domain: SITE }],
      });
    for (let i = 0; i < 100; i++) expect((await make(i)).status).toBe(201);
    const over = await make(100);
    expect(over.status, over.text).toBe(400);
    expect(over.body.detail).toMatch(/100 sessions/);
    expect((await call(svc, 'DELETE', '/v1/sessions/many-0', a.key)).status).toBe(200);
    expect((await make(100)).status).toBe(201);
  }, 120_000);

  it('a key changed without TRAWL_SECRET_KEY_PREVIOUS: the sessions answer in words, never a 500', async () => {
    const a = await svc.newKey();
    const made = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'keyed',
      cookies: [{ name: 'sid', value: 'v-KEYED', domain: SITE }],
    });
    expect(made.status, made.text).toBe(201);
    await svc.stop();
    svc = await startTestService('sqlite', { ...env(), TRAWL_SECRET_KEY: OTHER_KEY });
    const list = await call(svc, 'GET', '/v1/sessions', a.key);
    expect(list.status, list.text).toBe(200);
    expect(list.body.sessions).toMatchObject([{ name: 'keyed', status: 'unreadable', cookie_count: 0 }]);
    expect(list.text).not.toContain('v-KEYED');
    const one = await call(svc, 'GET', '/v1/sessions/keyed', a.key);
    expect(one.status, one.text).toBe(400);
    expect(one.body.detail).toMatch(/TRAWL_SECRET_KEY_PREVIOUS/);
    const used = await call(svc, 'POST', '/v1/scrape', a.key, {
      url: `http://${SITE}:${site.server.port}/account`,
      session: 'keyed',
      render: 'http',
    });
    expect(used.status, used.text).toBe(400);
    expect(used.body.detail).toMatch(/TRAWL_SECRET_KEY/);
    // Deleting it still works, so the user can upload it again.
    expect((await call(svc, 'DELETE', '/v1/sessions/keyed', a.key)).status).toBe(200);
  }, 60_000);
});
