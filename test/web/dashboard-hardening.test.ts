/**
 * The dashboard against hostile input, without a browser: odd paths and bodies never 500, login
 * and sign-up refuse other sites, `next=` stays on this origin, failed logins slow the sending
 * address (not the account), sign-up does not tell which emails exist, and password hashes are
 * scrypt N=2^17 with old ones upgraded on login. Requests go through node:http so that raw
 * paths reach the server unchanged and a second client address (127.0.0.2) can be used.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { clientKey, LoginThrottle } from '../../src/web/login-throttle.js';
import { hashPassword, needsRehash, verifyPassword } from '../../src/store/index.js';

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
  const req = (
    method: string,
    path: string,
    opts: { headers?: Record<string, string>; body?: string | Buffer; from?: string } = {},
  ) =>
    new Promise<Res>((ok, fail) => {
      const u = new URL(svc.url);
      const r = httpRequest(
        { host: u.hostname, port: u.port, method, path, headers: opts.headers, localAddress: opts.from },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            ok({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }),
          );
        },
      );
      r.on('error', fail);
      r.end(opts.body);
    });
  const form = (body: Record<string, string>, extra: Record<string, string> = {}) => ({
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...extra },
    body: new URLSearchParams(body).toString(),
  });
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
    for (const path of [
      '/assets/%E0%A4%A',
      '/assets/%zz',
      '/monitors/%E0%A4%A',
      '/%zz',
      '/keys/%zz/revoke',
      '/login?next=%E0%A4%A',
      '/login?next=%zz&x=%E0%A4%A',
    ]) {
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
    for (const path of [
      '/login',
      '/signup',
      '/logout',
      '/keys',
      '/monitors',
      '/playground',
      '/secret/reveal',
      '/secret/rotate',
      '/account/password',
    ]) {
      for (const [type, body] of bodies) {
        const r = await req('POST', path, { headers: { cookie, ...(type ? { 'content-type': type } : {}) }, body });
        expect({ path, type, status: r.status }).toEqual({ path, type, status: 415 });
        expect(r.headers['content-type']).toMatch(/^text\/html/);
      }
      // Empty, and broken escapes inside a real form: read as (odd) fields, refused as a form.
      for (const r of [
        await req('POST', path, { headers: { cookie, 'content-length': '0' } }),
        await req('POST', path, {
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'email=%E0%A4%A&password=%zz&csrf=%zz&next=%E0%A4%A',
        }),
      ]) {
        expect({ path, status: r.status >= 300 && r.status < 500 }).toEqual({ path, status: true });
      }
    }
  }, 60_000);

  it('refuses a login or sign-up form sent from another site (login CSRF)', async () => {
    await account('csrf@example.com', 'longenough1', '127.0.0.4');
    const creds = { email: 'csrf@example.com', password: 'longenough1' };
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { referer: 'https://evil.example/login' },
      { origin: 'not a url' },
    ];
    for (const headers of foreign) {
      for (const path of ['/login', '/signup']) {
        const r = await req('POST', path, {
          ...form(path === '/login' ? creds : { email: 'new-csrf@example.com', password: 'longenough1' }, headers),
          from: '127.0.0.4',
        });
        expect({ path, headers, status: r.status }).toEqual({ path, headers, status: 403 });
        expect(r.headers['set-cookie']).toBeUndefined();
      }
    }
    expect(
      await svc.store.db
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', 'new-csrf@example.com')
        .executeTakeFirst(),
    ).toBeUndefined();
    // This site's own Origin or Referer, or neither (curl), is accepted.
    const host = new URL(svc.url).host;
    const own: Record<string, string>[] = [{ origin: `http://${host}` }, { referer: `http://${host}/login` }, {}];
    for (const headers of own) {
      expect((await req('POST', '/login', { ...form(creds, headers), from: '127.0.0.4' })).status).toBe(303);
    }
  }, 60_000);

  it('after login goes only to a path on this site (next=)', async () => {
    await account('next@example.com', 'longenough1', '127.0.0.5');
    const hostile = [
      '/\\evil.example',
      '//evil.example',
      '/\\/evil.example',
      'https://evil.example',
      'javascript:alert(1)',
      '/%5Cevil.example',
      '%2F%2Fevil.example',
      '/%2F/evil.example',
      '/%5C%5Cevil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '/%09/evil.example',
      '/%0a/evil.example',
      '/ /evil.example',
      'evil.example',
      '',
      '/%E0%A4%A',
      '/.//evil.example',
      '/..//evil.example/x',
      '/%2e//evil.example',
      '/a/..//evil.example',
    ];
    for (const next of hostile) {
      const r = await req('POST', '/login', {
        ...form({ email: 'next@example.com', password: 'longenough1', next }),
        from: '127.0.0.5',
      });
      expect({ next, location: r.headers.location }).toEqual({ next, location: '/' });
      const shown = await req('GET', `/login?next=${encodeURIComponent(next)}`);
      expect({ next, field: /name="next" value="([^"]*)"/.exec(shown.text)?.[1] }).toEqual({ next, field: '/' });
    }
    for (const next of ['/keys', '/monitors/mon_1?tab=runs', '/login?next=%2Fkeys']) {
      const r = await req('POST', '/login', {
        ...form({ email: 'next@example.com', password: 'longenough1', next }),
        from: '127.0.0.5',
      });
      expect(r.headers.location).toBe(next);
    }
  }, 120_000);

  it('signs up without telling whether the email already has an account', async () => {
    await account('taken@example.com', 'original-pass', '127.0.0.9');
    const signup = (email: string, password: string) =>
      req('POST', '/signup', { ...form({ email, password }), from: '127.0.0.9' });
    const fresh = await signup('fresh@example.com', 'longenough1');
    const taken = await signup('taken@example.com', 'attacker-pass');
    for (const r of [fresh, taken]) {
      expect(r.status).toBe(303);
      expect(r.headers.location).toBe('/login?signed_up=1');
      expect(r.headers['set-cookie']).toBeUndefined();
    }
    expect(fresh.text).toBe(taken.text);
    const shown = await req('GET', fresh.headers.location as string);
    expect(shown.text).toContain('If this address can be used, your account is ready');
    expect(shown.text).not.toMatch(/fresh@|taken@/);
    // The new account works; the taken one keeps its owner's password.
    const login = (email: string, password: string) =>
      req('POST', '/login', { ...form({ email, password }), from: '127.0.0.9' });
    expect((await login('fresh@example.com', 'longenough1')).status).toBe(303);
    expect((await login('taken@example.com', 'attacker-pass')).status).toBe(401);
    expect((await login('taken@example.com', 'original-pass')).status).toBe(303);
  }, 60_000);

  it('re-hashes a password stored at the old scrypt cost when its owner logs in', async () => {
    await account('legacy@example.com', 'longenough1', '127.0.0.8');
    const salt = randomBytes(16);
    const old = `scrypt$${salt.toString('base64')}$${scryptSync('old password 1', salt, 32).toString('base64')}`; // Node's defaults: N=2^14
    const row = () =>
      svc.store.db
        .selectFrom('accounts')
        .select('password_hash')
        .where('email', '=', 'legacy@example.com')
        .executeTakeFirstOrThrow();
    await svc.store.db
      .updateTable('accounts')
      .set({ password_hash: old })
      .where('email', '=', 'legacy@example.com')
      .execute();
    const login = (password: string) =>
      req('POST', '/login', { ...form({ email: 'legacy@example.com', password }), from: '127.0.0.8' });
    expect((await login('wrong password')).status).toBe(401);
    expect((await row()).password_hash).toBe(old); // nothing changes without the right password
    expect((await login('old password 1')).status).toBe(303);
    const upgraded = (await row()).password_hash!;
    expect(upgraded).toMatch(/^scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect((await login('old password 1')).status).toBe(303);
    expect((await row()).password_hash).toBe(upgraded); // already at today's cost: left alone
  }, 60_000);

  it("slows failed logins by the attacker's address, not the victim's account", async () => {
    await account('victim@example.com', 'longenough1', '127.0.0.6');
    const attempt = (password: string, from: string) =>
      req('POST', '/login', { ...form({ email: 'victim@example.com', password }), from });
    // In parallel, so that no token comes back meanwhile, and to show parallel guesses are counted too.
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => attempt(`guess-${i}`, '127.0.0.7').then((r) => r.status)),
    );
    expect(statuses.sort()).toEqual([...Array(10).fill(401), 429, 429]);
    const blocked = await attempt('longenough1', '127.0.0.7');
    expect(blocked.status).toBe(429); // the right password too: the address is slowed, whatever it sends
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The owner, from their own address, is unaffected: a typo is a 401, the password logs in.
    expect((await attempt('typo', '127.0.0.6')).status).toBe(401);
    expect((await attempt('longenough1', '127.0.0.6')).status).toBe(303);
  }, 60_000);
});

describe('LoginThrottle', () => {
  it('refills with time, gives back the token of a success, and keeps at most maxEntries addresses', () => {
    let t = 0;
    const th = new LoginThrottle(3, 6, 100, () => t);
    expect([th.take('a'), th.take('a'), th.take('a')]).toEqual([0, 0, 0]);
    expect(th.take('a')).toBe(10); // 6 a minute: one token in 10 s
    expect(th.take('b')).toBe(0);
    th.refund('a');
    expect(th.take('a')).toBe(0);
    expect(th.take('a')).toBe(10);
    t += 10_000;
    expect(th.take('a')).toBe(0);
    for (let i = 0; i < 1000; i++) th.take(`ip${i}`);
    expect(th.size).toBeLessThanOrEqual(100);
    t += 60_000;
    for (let i = 0; i < 200; i++) th.take(`later${i}`);
    expect(th.size).toBeLessThanOrEqual(100);
    expect(th.take('later199')).toBe(0);
  });

  it('keys IPv6 clients by their /64 and IPv4-mapped ones as IPv4', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(clientKey('2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:0:1::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('password hashes', () => {
  it('are scrypt N=2^17, r=8, p=1 with the cost in the string, made off the event loop', async () => {
    // Counted, not timed: the loop's turns while the hash is made (a synchronous scrypt gives none).
    let turns = 0;
    let on = true;
    const spin = () => on && (turns++, setImmediate(spin));
    setImmediate(spin);
    const h = await hashPassword('correct horse');
    on = false;
    expect(h).toMatch(/^scrypt\$ln=17,r=8,p=1\$/);
    expect(turns).toBeGreaterThanOrEqual(10); // the loop kept turning meanwhile
    expect(await verifyPassword('correct horse', h)).toBe(true);
    expect(await verifyPassword('correct horsf', h)).toBe(false);
    expect(needsRehash(h)).toBe(false);
  }, 30_000);

  it('still read the old format (Node defaults, N=2^14) and mark it for re-hashing; refuse damaged or oversized ones', async () => {
    const salt = randomBytes(16);
    const old = `scrypt$${salt.toString('base64')}$${scryptSync('pw', salt, 32).toString('base64')}`;
    expect(await verifyPassword('pw', old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
    const explicit = `scrypt$ln=14,r=8,p=1$${salt.toString('base64')}$${scryptSync('pw', salt, 32).toString('base64')}`;
    expect(await verifyPassword('pw', explicit)).toBe(true);
    expect(needsRehash(explicit)).toBe(true);
    for (const bad of [
      null,
      '',
      'bcrypt$x$y',
      'scrypt$ln=30,r=8,p=1$AAAA$AAAA',
      'scrypt$ln=17,r=99,p=1$AAAA$AAAA',
      'scrypt$junk$AAAA$AAAA',
      'scrypt$a$b$c$d',
    ]) {
      expect(await verifyPassword('pw', bad)).toBe(false);
      expect(needsRehash(bad)).toBe(true);
    }
  });
});
