/**
 * The dashboard against hostile input, without a browser: odd paths and bodies never 500, login
 * and sign-up refuse other sites, `next=` stays on this origin, failed logins slow the sending
 * address (not the account), sign-up does not tell which emails exist, and password hashes are
 * scrypt N=2^17 with old ones upgraded on login. Requests go through node:http so that raw
 * paths reach the server unchanged and a second client address (127.0.0.2) can be used.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { clientKey, LoginThrottle } from '../../src/web/login-throttle.js';

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

describe('dashboard hardening', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  /** One request, the path sent byte for byte; `from` is the client's local address. */
  const req = (method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer; from?: string } = {}) =>
    new Promise<Res>((ok, fail) => {
      const u = new URL(svc.url);
      const r = httpRequest({ host: u.hostname, port: u.port, method, path, headers: opts.headers, localAddress: opts.from }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
      });
      r.on('error', fail);
      r.end(opts.body);
    });
  const form = (body: Record<string, string>, extra: Record<string, string> = {}) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded', ...extra }, body: new URLSearchParams(body).toString() });
  /** An account and a logged-in session cookie for it. */
  const account = async (email: string, password = 'longenough1', from?: string) => {
    await req('POST', '/signup', { ...form({ email, password }), from });
    const res = await req('POST', '/login', { ...form({ email, password }), from });
    expect(res.status).toBe(303);
    return String(res.headers['set-cookie']).split(';')[0];
  };

  it('answers odd paths, bodies and encodings with a 4xx, never a 500', async () => {
    const cookie = await account('odd@example.com', 'longenough1', '127.0.0.3');
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const r = await req('GET', `/assets/${name}`);
      expect({ name, status: r.status }).toEqual({ name, status: 404 });
    }
    for (const path of ['/assets/%E0%A4%A', '/assets/%zz', '/monitors/%E0%A4%A', '/%zz', '/keys/%zz/revoke', '/login?next=%E0%A4%A', '/login?next=%zz&x=%E0%A4%A']) {
      const r = await req('GET', path, { headers: { cookie } });
      expect({ path, ok: r.status < 500 }).toEqual({ path, ok: true });
    }
    expect((await req('GET', '/keys', { headers: { cookie: 'trawl_session=%zz%E0%A4%A' } })).status).toBe(303);
    const bodies: [string | undefined, string | Buffer][] = [
      ['application/json', '{"email":"odd@example.com","password":"longenough1"}'],
      ['application/json', '{bad'],
      ['text/plain', 'email=odd@example.com'],
      ['application/octet-stream', Buffer.from([0, 1, 2, 255])],
      ['multipart/form-data; boundary=x', '--x--'],
      [undefined, Buffer.from([0xde, 0xad])],
    ];
    for (const path of ['/login', '/signup', '/logout', '/keys', '/monitors', '/playground', '/secret/reveal', '/secret/rotate', '/account/password']) {
      for (const [type, body] of bodies) {
        const r = await req('POST', path, { headers: { cookie, ...(type ? { 'content-type': type } : {}) }, body });
        expect({ path, type, status: r.status }).toEqual({ path, type, status: 415 });
        expect(r.headers['content-type']).toMatch(/^text\/html/);
      }
      // Empty, and broken escapes inside a real form: read as (odd) fields, refused as a form.
      for (const r of [await req('POST', path, { headers: { cookie, 'content-length': '0' } }), await req('POST', path, { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=%E0%A4%A&password=%zz&csrf=%zz&next=%E0%A4%A' })]) {
        expect({ path, status: r.status >= 300 && r.status < 500 }).toEqual({ path, status: true });
      }
    }
  });

  it('refuses a login or sign-up form sent from another site (login CSRF)', async () => {
    await account('csrf@example.com', 'longenough1', '127.0.0.4');
    const creds = { email: 'csrf@example.com', password: 'longenough1' };
    for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { referer: 'https://evil.example/login' }, { origin: 'not a url' }]) {
      for (const path of ['/login', '/signup']) {
        const r = await req('POST', path, { ...form(path === '/login' ? creds : { email: 'new-csrf@example.com', password: 'longenough1' }, headers), from: '127.0.0.4' });
        expect({ path, headers, status: r.status }).toEqual({ path, headers, status: 403 });
        expect(r.headers['set-cookie']).toBeUndefined();
      }
    }
    expect(await svc.store.db.selectFrom('accounts').select('id').where('email', '=', 'new-csrf@example.com').executeTakeFirst()).toBeUndefined();
    // This site's own Origin or Referer, or neither (curl), is accepted.
    const host = new URL(svc.url).host;
    for (const headers of [{ origin: `http://${host}` }, { referer: `http://${host}/login` }, {}]) {
      expect((await req('POST', '/login', { ...form(creds, headers), from: '127.0.0.4' })).status).toBe(303);
    }
  });

  it('after login goes only to a path on this site (next=)', async () => {
    await account('next@example.com', 'longenough1', '127.0.0.5');
    const hostile = ['/\\evil.example', '//evil.example', '/\\/evil.example', 'https://evil.example', 'javascript:alert(1)', '/%5Cevil.example', '%2F%2Fevil.example', '/%2F/evil.example', '/%5C%5Cevil.example', '/\t/evil.example', '/\n/evil.example', '/%09/evil.example', '/%0a/evil.example', '/ /evil.example', 'evil.example', '', '/%E0%A4%A'];
    for (const next of hostile) {
      const r = await req('POST', '/login', { ...form({ email: 'next@example.com', password: 'longenough1', next }), from: '127.0.0.5' });
      expect({ next, location: r.headers.location }).toEqual({ next, location: '/' });
      const shown = await req('GET', `/login?next=${encodeURIComponent(next)}`);
      expect({ next, field: /name="next" value="([^"]*)"/.exec(shown.text)?.[1] }).toEqual({ next, field: '/' });
    }
    for (const next of ['/keys', '/monitors/mon_1?tab=runs', '/login?next=%2Fkeys']) {
      const r = await req('POST', '/login', { ...form({ email: 'next@example.com', password: 'longenough1', next }), from: '127.0.0.5' });
      expect(r.headers.location).toBe(next);
    }
  });

  it("slows failed logins by the attacker's address, not the victim's account", async () => {
    await account('victim@example.com', 'longenough1', '127.0.0.6');
    const attempt = (password: string, from: string) => req('POST', '/login', { ...form({ email: 'victim@example.com', password }), from });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await attempt(`guess-${i}`, '127.0.0.7')).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    const blocked = await attempt('longenough1', '127.0.0.7');
    expect(blocked.status).toBe(429); // the right password too: the address is slowed, whatever it sends
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The owner, from their own address, is unaffected: a typo is a 401, the password logs in.
    expect((await attempt('typo', '127.0.0.6')).status).toBe(401);
    expect((await attempt('longenough1', '127.0.0.6')).status).toBe(303);
  });
});

describe('LoginThrottle', () => {
  it('refills with time, counts only failures, and keeps at most maxEntries addresses', () => {
    let t = 0;
    const th = new LoginThrottle(3, 6, 100, () => t);
    for (let i = 0; i < 3; i++) th.fail('a');
    expect(th.retryAfter('a')).toBe(10); // 6 a minute: one token in 10 s
    expect(th.retryAfter('b')).toBe(0);
    t += 10_000;
    expect(th.retryAfter('a')).toBe(0);
    for (let i = 0; i < 1000; i++) th.fail(`ip${i}`);
    expect(th.size).toBeLessThanOrEqual(100);
    expect(th.retryAfter('ip999')).toBe(0); // 2 of 3 tokens left
    t += 60_000;
    th.fail('c');
    for (let i = 0; i < 200; i++) th.fail(`later${i}`);
    expect(th.size).toBeLessThanOrEqual(100);
  });

  it('keys IPv6 clients by their /64 and IPv4-mapped ones as IPv4', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(clientKey('2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:0:1::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});
