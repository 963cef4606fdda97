/** Link resolution: the shortcut for plain root-relative paths must agree with URL parsing (less any user:password@). */
import { describe, expect, it } from 'vitest';
import { absoluteUrl } from '../../../src/engine/document/dom.js';

const BASES = [
  'https://example.com/a/b.html?x=1#f',
  'http://127.0.0.1:8080/dir/',
  'https://Ex.COM',
  'https://user:pw@ex.com/x',
  'https://xn--bcher-kva.example/p',
];
const HREFS = [
  '/p/1',
  '/p/1?utm_source=x&ref=2',
  '/p/1#top',
  '/a/./b',
  '/a/../b',
  '/.',
  '/..',
  '/a/.',
  '/a/..',
  '/a.b/c.d',
  '//evil.com/x',
  '/x y',
  '/x%20y',
  '/x%zz',
  "/it's",
  '/a?b=c d',
  '/a#b c',
  '/é',
  '/a/b.',
  '/a.',
  '/a..b',
  '/a/.hidden',
  '/?q=1',
  '/#',
  '/a?x=/../b',
  '/a%2e%2e/b',
  '/a/%2e/b',
  '/a\\b',
  '/a:b',
  '/@x',
  '/a~b',
  '/a*b',
  '/a!b$c',
  '/.well-known',
  '/a/b/..?x',
  '/a/.#y',
  '/;a',
  '/a+b',
  '/A/B',
  '/a#b#c',
  '/a?b?c',
  ' /p/2 ',
  'rel/x',
  '../up',
  '?q',
  'https://Other.example/Z',
  'javascript:alert(1)',
  'ftp://x/y',
];

function parsed(href: string, base: string): string | undefined {
  try {
    const u = new URL(href.trim(), base);
    // Credentials are never repeated (the page's own URL's included).
    u.username = '';
    u.password = '';
    return ['http:', 'https:', 'mailto:', 'tel:'].includes(u.protocol) ? u.href : undefined;
  } catch {
    return undefined;
  }
}

describe('absoluteUrl', () => {
  it('gives what URL parsing gives, for every base and href, also when asked again', () => {
    for (let round = 0; round < 2; round++) {
      for (const base of BASES)
        for (const href of HREFS)
          expect([base, href, absoluteUrl(href, base)]).toEqual([base, href, parsed(href, base)]);
    }
  });

  it('refuses scripts and data', () => {
    expect(absoluteUrl('javascript:void(0)', 'https://example.com/')).toBeUndefined();
    expect(absoluteUrl('data:text/html,hi', 'https://example.com/')).toBeUndefined();
    expect(absoluteUrl('', 'https://example.com/')).toBeUndefined();
  });
});
