/** The link rules of Firecrawl-style crawls (src/engine/crawl/link-rules.ts), case by case. */
import { describe, expect, it } from 'vitest';
import { compilePattern, linkFilter } from '../../src/engine/crawl/link-rules.js';

const at = (href: string) => ({ href, pathname: new URL(href).pathname });

describe('linkFilter', () => {
  it('passes everything without rules', () => {
    expect(linkFilter(undefined)(at('https://x.test/anything/at/all'))).toBe(true);
  });

  it('tests include and exclude patterns on the path, unanchored as Firecrawl does', () => {
    const ok = linkFilter({ include: ['blog/.+'], exclude: ['draft'] });
    expect(ok(at('https://x.test/blog/tides'))).toBe(true);
    expect(ok(at('https://x.test/en/blog/tides'))).toBe(true);
    expect(ok(at('https://x.test/blog/'))).toBe(false);
    expect(ok(at('https://x.test/blog/draft-1'))).toBe(false);
    expect(ok(at('https://x.test/docs/a?blog/x'))).toBe(false);
  });

  it('tests the whole URL with fullUrl', () => {
    const ok = linkFilter({ include: ['\\?page=\\d+$'], fullUrl: true });
    expect(ok(at('https://x.test/list?page=2'))).toBe(true);
    expect(ok(at('https://x.test/list'))).toBe(false);
  });

  it('caps the path depth and keeps links under a base path (at segment boundaries)', () => {
    const ok = linkFilter({ maxPathDepth: 2, underPath: '/docs/' });
    expect(ok(at('https://x.test/docs'))).toBe(true);
    expect(ok(at('https://x.test/docs/setup'))).toBe(true);
    expect(ok(at('https://x.test/docs/deep/one'))).toBe(false);
    expect(ok(at('https://x.test/docs-old/a'))).toBe(false);
    expect(ok(at('https://x.test/blog/a'))).toBe(false);
  });
});

describe('compilePattern', () => {
  it('refuses patterns that can backtrack for ever, and broken ones, naming where', () => {
    for (const p of ['(a+)+$', '(\\w*x)*', '(a|b?){2,}', '((a)+)+', '((ab)*c)+']) expect(() => compilePattern(p, 'includePaths[0]'), p).toThrow(/^includePaths\[0\]: nested quantifiers/);
    expect(() => compilePattern('(x', 'excludePaths[1]')).toThrow(/^excludePaths\[1\]: not a valid regular expression/);
    expect(() => compilePattern('a'.repeat(501), 'includePaths[2]')).toThrow('includePaths[2]: a pattern may have at most 500 characters');
  });

  it('compiles the usual ones', () => {
    for (const p of ['^/blog/', 'docs/.*', '/products/[a-z-]+$', '\\.html$', '(en|de)/news/\\d+']) expect(compilePattern(p, 'x')).toBeInstanceOf(RegExp);
  });
});
