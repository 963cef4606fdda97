/**
 * The pure parts of browser-grade pages: which hosts are the target's own site, which cookies and
 * headers go with a request, Accept-Language, a country's time zone and language, and the cache key.
 */
import { describe, expect, it } from 'vitest';
import {
  acceptLanguage,
  contextOptions,
  cookieMatches,
  deviceHeaders,
  isKnownCountry,
  languagesOf,
  siteHeaders,
  timeZoneOf,
} from '../../../src/engine/fetch/emulation.js';
import { registrableDomain, sameSite } from '../../../src/engine/fetch/site.js';
import { cacheKey } from '../../../src/engine/result-cache.js';
import { siteMatcher } from '../../../src/engine/crawl/canonical.js';

describe("the target's own site", () => {
  it('is the registrable domain: two labels, three under a generic second level of a country, a customer of a shared host', () => {
    const cases: [string, string][] = [
      ['www.example.com', 'example.com'],
      ['a.b.example.com', 'example.com'],
      ['shop.example.co.uk', 'example.co.uk'],
      ['www.example.com.au', 'example.com.au'],
      ['news.bbc.co.uk', 'bbc.co.uk'],
      ['www.example.de', 'example.de'],
      ['alice.github.io', 'alice.github.io'],
      ['x.alice.github.io', 'alice.github.io'],
      ['bucket.s3.amazonaws.com', 'bucket.s3.amazonaws.com'],
      ['Example.COM.', 'example.com'],
      ['127.0.0.1', '127.0.0.1'],
      ['[::1]', '::1'],
      ['localhost', 'localhost'],
    ];
    for (const [host, site] of cases) expect(registrableDomain(host), host).toBe(site);
    expect(sameSite('www.shop.test', 'cdn.shop.test')).toBe(true);
    expect(sameSite('www.example.co.uk', 'other.co.uk')).toBe(false);
    expect(sameSite('alice.github.io', 'bob.github.io')).toBe(false);
  });

  it("follows the Public Suffix List's private section: two customers of one platform are two sites", () => {
    // Each pair was one site to the former rules (the last two labels), so a redirect from the
    // first carried the caller's Authorization to the second (issue 39).
    const platforms: [string, string][] = [
      ['victim.run.app', 'attacker.run.app'],
      ['victim.ondigitalocean.app', 'attacker.ondigitalocean.app'],
      ['victim.up.railway.app', 'attacker.up.railway.app'],
      ['victim.deno.dev', 'attacker.deno.dev'],
      ['us-central1-victim.cloudfunctions.net', 'us-central1-attacker.cloudfunctions.net'],
      ['victim.gitbook.io', 'attacker.gitbook.io'],
      ['victim.notion.site', 'attacker.notion.site'],
      ['victim.s3.us-east-1.amazonaws.com', 'attacker.s3.us-east-1.amazonaws.com'],
      ['a1.lambda-url.us-east-1.on.aws', 'b2.lambda-url.us-east-1.on.aws'],
      ['victim.pages.dev', 'attacker.pages.dev'],
    ];
    for (const [a, b] of platforms) expect(sameSite(a, b), `${a} / ${b}`).toBe(false);
    expect(sameSite('www.victim.run.app', 'api.victim.run.app')).toBe(false);
    expect(sameSite('docs.victim.deno.dev', 'victim.deno.dev')).toBe(true);
    expect(registrableDomain('www.example.co.uk')).toBe('example.co.uk');
  });

  it('keeps a crawl with subdomains under its own site, never below a public suffix', () => {
    const under = (start: string, host: string) => siteMatcher(start, true)({ hostname: host });
    expect(under('www.example.com', 'docs.example.com')).toBe(true);
    expect(under('victim.deno.dev', 'docs.victim.deno.dev')).toBe(true);
    expect(under('github.io', 'alice.github.io')).toBe(false);
    expect(under('www.co.uk', 'bbc.co.uk')).toBe(false);
  });

  it('gets the caller headers and cookies on every hop of the site, none elsewhere', () => {
    const hop = siteHeaders('http://www.shop.test/a', {
      headers: { 'X-Token': 't', Cookie: 'given=1' },
      cookies: [
        { name: 'sid', value: '1' },
        { name: 'wide', value: '2', domain: 'shop.test' },
        { name: 'deep', value: '3', path: '/account' },
      ],
    })!;
    expect(hop(new URL('http://www.shop.test/a'))).toEqual({ 'x-token': 't', cookie: 'given=1; sid=1; wide=2' });
    expect(hop(new URL('http://www.shop.test/account/orders'))).toEqual({
      'x-token': 't',
      cookie: 'given=1; sid=1; wide=2; deep=3',
    });
    // Another host of the site: the domain cookie, not the host-only ones.
    expect(hop(new URL('https://cdn.shop.test/x'))).toEqual({ 'x-token': 't', cookie: 'given=1; wide=2' });
    expect(hop(new URL('http://third.test/a'))).toBeUndefined();
    expect(siteHeaders('http://www.shop.test/', {})).toBeUndefined();
    expect(cookieMatches({ name: 'a', value: 'b', path: '/acc' }, new URL('http://h.test/account'), 'h.test')).toBe(
      false,
    );
    expect(cookieMatches({ name: 'a', value: 'b', domain: '.h.test' }, new URL('http://x.h.test/'), 'h.test')).toBe(
      true,
    );
  });
});

describe('mobile and location', () => {
  it('Accept-Language lists each tag then its bare language, preference falling', () => {
    expect(acceptLanguage(['de-DE', 'en'])).toBe('de-DE,de;q=0.9,en;q=0.8');
    expect(acceptLanguage(['fr-CA', 'fr', 'en-US'])).toBe('fr-CA,fr;q=0.9,en-US;q=0.8,en;q=0.7');
  });

  it('a country gives its main time zone and, without languages, its language', () => {
    expect(timeZoneOf('DE')).toBe('Europe/Berlin');
    expect(timeZoneOf('us')).toBe('America/New_York');
    expect(timeZoneOf('JP')).toBe('Asia/Tokyo');
    expect(timeZoneOf('BR')).toBe('America/Sao_Paulo');
    expect(languagesOf({ country: 'JP' })).toEqual(['ja-JP']);
    expect(languagesOf({ country: 'FR', languages: ['en'] })).toEqual(['en']);
    expect(isKnownCountry('DE')).toBe(true);
    expect(isKnownCountry('XX')).toBe(false);
    expect(isKnownCountry('DEU')).toBe(false);
  });

  it('a browser context and the HTTP path get the same device and languages', () => {
    expect(contextOptions(undefined)).toEqual({ viewport: { width: 1280, height: 800 } });
    expect(contextOptions({ mobile: true, location: { country: 'IT' } })).toMatchObject({
      viewport: { width: 412, height: 915 },
      isMobile: true,
      hasTouch: true,
      locale: 'it-IT',
      timezoneId: 'Europe/Rome',
      extraHTTPHeaders: { 'accept-language': 'it-IT,it;q=0.9' },
    });
    expect(contextOptions({ mobile: true, viewport: { width: 360, height: 640 } }).viewport).toEqual({
      width: 360,
      height: 640,
    });
    expect(deviceHeaders({ mobile: true, location: { languages: ['es-ES'] } })).toEqual({
      'sec-ch-ua-mobile': '?1',
      'sec-ch-ua-platform': '"Android"',
      'user-agent': expect.stringMatching(/Android.*Mobile/),
      'accept-language': 'es-ES,es;q=0.9',
    });
  });
});

describe('the cache key', () => {
  const base = { url: 'http://example.com/a', formats: ['markdown'] };
  it('is the same for the same page and options, whatever their spelling and order', () => {
    expect(cacheKey(base, 'acc_1')).toBe(
      cacheKey({ formats: ['markdown', 'markdown'], url: 'HTTP://EXAMPLE.com/a' }, 'acc_2'),
    );
    expect(cacheKey({ ...base, formats: ['links', 'markdown'] }, 'a')).toBe(
      cacheKey({ ...base, formats: ['markdown', 'links'] }, 'a'),
    );
    expect(cacheKey({ ...base, location: { country: 'DE', languages: ['de'] } }, 'a')).toBe(
      cacheKey({ ...base, location: { languages: ['de'], country: 'DE' } }, 'a'),
    );
  });

  it('changes with every option that changes the result, and is per account with headers, cookies or actions', () => {
    const keys = new Set([
      cacheKey(base, 'a'),
      cacheKey({ ...base, formats: ['html'] }, 'a'),
      cacheKey({ ...base, onlyMainContent: false }, 'a'),
      cacheKey({ ...base, render: 'browser' }, 'a'),
      cacheKey({ ...base, mobile: true }, 'a'),
      cacheKey({ ...base, viewport: { width: 800, height: 600 } }, 'a'),
      cacheKey({ ...base, schema: { price: 'number' } }, 'a'),
      cacheKey({ ...base, extra: { pdf: { max_pages: 3 } } }, 'a'),
    ]);
    expect(keys.size).toBe(8);
    for (const own of [
      { headers: { 'x-a': '1' } },
      { cookies: [{ name: 'a', value: 'b' }] },
      { actions: [{ type: 'scrape' }] },
    ]) {
      expect(cacheKey({ ...base, ...own }, 'a')).not.toBe(cacheKey({ ...base, ...own }, 'b'));
    }
    expect(cacheKey({ ...base, headers: { 'X-A': '1' } }, 'a')).toBe(
      cacheKey({ ...base, headers: { 'x-a': '1' } }, 'a'),
    );
  });
});
