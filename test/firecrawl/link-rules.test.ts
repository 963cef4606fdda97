/** The link rules of Firecrawl-style crawls (src/engine/crawl/link-rules.ts), case by case. */
import { describe, expect, it } from 'vitest';
import { globToRegExp, pathFilter } from '../../src/engine/crawl/glob.js';
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
  it('matches in linear time whatever the pattern: shapes that backtrack for minutes answer at once', () => {
    const path = `/${'a'.repeat(60)}`;
    // On a backtracking engine the first takes ~30 s (ten .* take minutes), on the event loop every request shares.
    // (Timed, this flaked on a loaded machine: the engine each pattern runs on is what is asserted.)
    for (const p of ['.*.*.*.*.*.*x', '\\d*\\d*\\d*\\d*\\d*\\d*x', '(a|a)*$', '(a+)+$', '(\\w*x)*', '((ab)*c)+']) {
      expect(compilePattern(p, 'includePaths[0]').flags, p).toContain('l');
      const ok = linkFilter({ include: [p] });
      ok(at(`https://x.test${path}!`));
      ok(at(`https://x.test/${'1'.repeat(60)}`));
    }
    expect(linkFilter({ include: ['(a+)+$'] })(at('https://x.test/aaa'))).toBe(true);
    // Trawl's own globs (/v1/crawl include_paths) become regexes too: `**` is `.*`.
    expect(globToRegExp('/**a**a**a**a**a**a**b').flags).toContain('l');
    expect(pathFilter(['/**a**a**a**a**a**a**b'])(path)).toBe(false);
  });

  it('refuses what cannot match in linear time, and broken patterns, naming where', () => {
    for (const p of ['(a)\\1', '/(?=docs)', '(?:a{1,500}){1,500}'])
      expect(() => compilePattern(p, 'includePaths[0]'), p).toThrow(/^includePaths\[0\]: backreferences, lookarounds/);
    // A lookbehind: V8's linear engine runs it from Node 24's V8 on (refused before, as not linear).
    let lookbehind: RegExp | undefined;
    try {
      lookbehind = compilePattern('(?<!x)y', 'includePaths[0]');
    } catch (e) {
      expect((e as Error).message).toMatch(/^includePaths\[0\]: backreferences, lookarounds/);
    }
    if (lookbehind) expect([lookbehind.test('ay'), lookbehind.test('xy')]).toEqual([true, false]);
    expect(() => compilePattern('(x', 'excludePaths[1]')).toThrow(/^excludePaths\[1\]: not a valid regular expression/);
    expect(() => compilePattern('a'.repeat(501), 'includePaths[2]')).toThrow(
      'includePaths[2]: a pattern may have at most 500 characters',
    );
  });

  it('compiles the usual ones', () => {
    for (const p of ['^/blog/', 'docs/.*', '/products/[a-z-]+$', '\\.html$', '(en|de)/news/\\d+'])
      expect(compilePattern(p, 'x')).toBeInstanceOf(RegExp);
  });
});
