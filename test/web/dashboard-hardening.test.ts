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
});
