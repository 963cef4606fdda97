import { describe, expect, it } from 'vitest';
import { canonicalUrl } from '../../../src/engine/crawl/canonical.js';
import { globToRegExp, pathFilter } from '../../../src/engine/crawl/glob.js';
import { parseRobots } from '../../../src/engine/crawl/robots.js';
import { parseSitemap } from '../../../src/engine/crawl/sitemap.js';

describe('canonicalUrl', () => {
  it.each([
    ['https://Example.COM:443/a/b/#frag', 'https://example.com/a/b/'],
    ['http://example.com:80/', 'http://example.com/'],
    ['http://example.com:8080/x/', 'http://example.com:8080/x/'],
    ['http://example.com:8080/x', 'http://example.com:8080/x'],
    ['https://example.com/p?utm_source=x&b=2&gclid=1&a=1&fbclid=z', 'https://example.com/p?a=1&b=2'],
    ['https://example.com/p?utm_medium=email', 'https://example.com/p'],
    ['https://example.com//a//b/', 'https://example.com//a//b/'],
    ['https://user:pw@example.com/a', 'https://example.com/a'],
  ])('%s → %s', (input, out) => expect(canonicalUrl(input)).toBe(out));

  it('never changes the path: a trailing slash is part of the URL', () => {
    expect(canonicalUrl('https://example.com/site/')).toBe('https://example.com/site/');
    expect(canonicalUrl('https://example.com/site')).toBe('https://example.com/site');
    expect(canonicalUrl('https://example.com/site/?utm_source=x#top')).toBe('https://example.com/site/');
  });

  it('refuses what is not http(s)', () => {
    expect(canonicalUrl('mailto:a@b.c')).toBeUndefined();
    expect(canonicalUrl('javascript:void(0)')).toBeUndefined();
    expect(canonicalUrl('not a url')).toBeUndefined();
  });
});

describe('robots.txt', () => {
  const txt = `
# comment
User-agent: *
Disallow: /private/
Allow: /private/open/
Disallow: /*.pdf$
Disallow: /search?
Crawl-delay: 2

User-agent: trawl
User-agent: otherbot
Disallow: /no-trawl/
Allow: /page
Disallow: /page

Sitemap: https://example.com/sitemap_index.xml
`;
  it('uses the group naming our token, else *', () => {
    const ours = parseRobots(txt, 'Trawl');
    expect(ours.allow('/no-trawl/x')).toBe(false);
    expect(ours.allow('/private/x')).toBe(true); // our group has no such rule
    const other = parseRobots(txt, 'somebot');
    expect(other.allow('/no-trawl/x')).toBe(true);
    expect(other.allow('/private/x')).toBe(false);
    expect(other.crawlDelaySeconds).toBe(2);
    expect(ours.sitemaps).toEqual(['https://example.com/sitemap_index.xml']);
  });

  it('lets the longest match win and Allow win a tie', () => {
    const r = parseRobots(txt, 'somebot');
    expect(r.allow('/private/open/file')).toBe(true);
    expect(r.allow('/private/closed')).toBe(false);
    const tie = parseRobots(txt, 'trawl');
    expect(tie.allow('/page')).toBe(true);
  });

  it('understands * and $', () => {
    const r = parseRobots(txt, 'somebot');
    expect(r.allow('/docs/report.pdf')).toBe(false);
    expect(r.allow('/docs/report.pdf?x=1')).toBe(true);
    expect(r.allow('/search?q=a')).toBe(false);
    expect(r.allow('/search')).toBe(true);
    const w = parseRobots('User-agent: *\nDisallow: /*/edit\n', 'trawl');
    expect(w.allow('/a/b/edit')).toBe(false);
    expect(w.allow('/edit')).toBe(true);
  });

  it('treats an empty Disallow as allow-all and always allows /robots.txt', () => {
    expect(parseRobots('User-agent: *\nDisallow:\n', 'trawl').allow('/anything')).toBe(true);
    expect(parseRobots('User-agent: *\nDisallow: /\n', 'trawl').allow('/robots.txt')).toBe(true);
    expect(parseRobots('User-agent: *\nDisallow: /\n', 'trawl').allow('/x')).toBe(false);
  });
});

describe('path globs', () => {
  it('matches * within a segment and ** across', () => {
    expect(globToRegExp('/blog/*').test('/blog/post')).toBe(true);
    expect(globToRegExp('/blog/*').test('/blog/2024/post')).toBe(false);
    expect(globToRegExp('/blog/**').test('/blog/2024/post')).toBe(true);
    expect(globToRegExp('/docs/**/intro').test('/docs/intro')).toBe(true);
    expect(globToRegExp('/docs/**/intro').test('/docs/v2/guide/intro')).toBe(true);
    expect(globToRegExp('*.html').test('/a/b/c.html')).toBe(true);
    // A directory named without its slash matches it with one; a pattern ending in / needs it.
    expect(globToRegExp('/docs').test('/docs/')).toBe(true);
    expect(globToRegExp('/docs/').test('/docs')).toBe(false);
    expect(globToRegExp('/docs').test('/docs/x')).toBe(false);
  });
  it('includes then excludes', () => {
    const f = pathFilter(['/blog/**'], ['/blog/drafts/**']);
    expect(f('/blog/a')).toBe(true);
    expect(f('/blog/drafts/a')).toBe(false);
    expect(f('/about')).toBe(false);
    expect(pathFilter()('/anything')).toBe(true);
  });
});

describe('sitemaps', () => {
  it('reads urlsets and indexes, with entities and CDATA', () => {
    const set = parseSitemap(
      '<?xml version="1.0"?><urlset><url><loc>https://e.com/a?x=1&amp;y=2</loc></url><url><loc><![CDATA[https://e.com/b]]></loc></url></urlset>',
    );
    expect(set).toEqual({ pages: ['https://e.com/a?x=1&y=2', 'https://e.com/b'], sitemaps: [] });
    const idx = parseSitemap('<sitemapindex><sitemap><loc>https://e.com/s1.xml.gz</loc></sitemap></sitemapindex>');
    expect(idx).toEqual({ pages: [], sitemaps: ['https://e.com/s1.xml.gz'] });
  });
});
