/** A saved session's jar: its cookies go to its own sites only, and what those sites set comes back. */
import { describe, expect, it } from 'vitest';
import {
  SessionJar,
  sessionExpiry,
  splitSetCookie,
  type SessionCookie,
} from '../../../src/engine/fetch/session-jar.js';

const cookie = (name: string, value: string, domain: string, more: Partial<SessionCookie> = {}): SessionCookie => ({
  name,
  value,
  domain,
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: 'Lax',
  ...more,
});

describe('SessionJar', () => {
  const make = () =>
    new SessionJar(
      'shop',
      {
        cookies: [
          cookie('sid', 'S1', '.shop.test'),
          cookie('host', 'H1', 'www.shop.test'),
          cookie('evil', 'E1', '.other.test'),
          cookie('old', 'O1', '.shop.test', { expires: 1 }),
        ],
        origins: [
          { origin: 'http://www.shop.test', localStorage: [{ name: 'k', value: 'v' }] },
          { origin: 'http://other.test', localStorage: [{ name: 'k', value: 'x' }] },
        ],
      },
      ['shop.test'],
    );

  it('sends its live cookies to its own sites only, host-only cookies to their host only', () => {
    const jar = make();
    expect(jar.cookieHeader(new URL('http://www.shop.test/a'))).toBe('sid=S1; host=H1');
    expect(jar.cookieHeader(new URL('http://cdn.shop.test/a'))).toBe('sid=S1');
    expect(jar.cookieHeader(new URL('http://other.test/a'))).toBeUndefined();
    expect(jar.cookieHeader(new URL('http://shop.test.other.test/a'))).toBeUndefined();
    // A cookie of another site given in the upload is dropped, and so is its localStorage.
    expect(jar.state().cookies.map((c) => c.name)).not.toContain('evil');
    expect(jar.origins().map((o) => o.origin)).toEqual(['http://www.shop.test']);
  });

  it('takes Set-Cookie from its own sites (joined headers, Expires dates with commas), refuses others', () => {
    const jar = make();
    jar.absorb(
      new URL('http://www.shop.test/login'),
      'sid=S2; Path=/; HttpOnly, theme=dark; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Domain=shop.test',
    );
    expect(jar.changed).toBe(true);
    expect(jar.cookieHeader(new URL('http://www.shop.test/'))).toContain('sid=S2');
    expect(jar.cookieHeader(new URL('http://www.shop.test/'))).toContain('theme=dark');
    const before = jar.state();
    jar.absorb(new URL('http://other.test/'), 'sid=STOLEN; Domain=shop.test');
    jar.absorb(new URL('http://www.shop.test/'), 'x=1; Domain=other.test');
    jar.absorb(new URL('http://www.shop.test/'), 'x=1; Domain=test');
    expect(jar.state()).toEqual(before);
    jar.absorb(new URL('http://www.shop.test/'), 'theme=; Max-Age=0; Domain=shop.test');
    expect(jar.cookieHeader(new URL('http://www.shop.test/'))).not.toContain('theme');
  });

  it('splits joined Set-Cookie values only before a name=', () => {
    expect(splitSetCookie('a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT, b=2')).toEqual([
      'a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT',
      'b=2',
    ]);
  });

  it('keeps what the browser holds on its sites only', () => {
    const jar = make();
    jar.takeBrowserState([cookie('sid', 'S3', '.shop.test'), cookie('tracker', 'T', '.other.test')], {
      origin: 'http://www.shop.test',
      localStorage: [{ name: 'k', value: 'v2' }],
    });
    expect(jar.changed).toBe(true);
    expect(jar.state().cookies.map((c) => `${c.name}=${c.value}`)).toEqual(['sid=S3']);
    expect(jar.origins()[0]!.localStorage).toEqual([{ name: 'k', value: 'v2' }]);
  });
});

describe('sessionExpiry', () => {
  it('sees a redirect to a login page, a login form, a 401/403; not a login page asked for', () => {
    const asked = 'http://www.shop.test/account';
    expect(sessionExpiry(asked, { url: 'http://www.shop.test/login?next=/account', status: 200 })).toMatch(
      /login page/,
    );
    expect(
      sessionExpiry(asked, { url: asked, status: 200, text: '<form><input type="password" name=p></form>' }),
    ).toMatch(/login form/);
    expect(sessionExpiry(asked, { url: asked, status: 403 })).toMatch(/403/);
    expect(sessionExpiry(asked, { url: asked, status: 200, text: '<p>Orders</p>' })).toBeUndefined();
    expect(
      sessionExpiry('http://www.shop.test/login', {
        url: 'http://www.shop.test/login',
        status: 200,
        text: '<input type=password>',
      }),
    ).toBeUndefined();
  });
});
