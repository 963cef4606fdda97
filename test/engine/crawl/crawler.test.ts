/** The crawler against a local site written for the test (no internet). */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../../src/engine/crawl/index.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { DocumentPool, type PageExtraction, type PooledOptions } from '../../../src/engine/document/pool.js';
import { compileSchema } from '../../../src/engine/extract/schema.js';
import type { Format } from '../../../src/engine/scrape.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

const workerUrl = new URL('../../../dist/engine/document/worker.js', import.meta.url);
let site: FixtureServer;
let http: HttpClient;

const page = (title: string, links: string[], extra = '') =>
  `<html><head><title>${title}</title>${extra}</head><body><h1>${title}</h1><p>The ${title} page has words enough, with commas, to be real content for the crawl test.</p>${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join(' ')}</body></html>`;

beforeAll(async () => {
  site = await startFixtureServer();
  const u = site.url;
  const routes: Record<string, string> = {
    '/': page('Home', [
      '/a',
      '/b',
      '/a#section',
      '/b?utm_source=x',
      `${u}/c/`,
      'http://other.example/x',
      '/image.png',
      'mailto:x@y.z',
    ]),
    '/a': page('A', ['/a/1', '/', '/b']),
    '/b': page('B', ['/b/1', '/private/secret', '/a']),
    '/c/': page('C', ['/c/deep']),
    '/a/1': page('A1', ['/a/1/x', '/missing']),
    '/b/1': page('B1', []),
    '/c/deep': page('Cdeep', []),
    '/a/1/x': page('A1x', []),
    '/private/secret': page('Secret', []),
    '/only-in-sitemap': page('Sitemap only', []),
    '/dup': page('Duplicate', [], '<link rel="canonical" href="/a">'),
    '/based/index': page('Based', ['rel-target'], '<base href="/elsewhere/">'),
    '/elsewhere/rel-target': page('Rel target', []),
    '/docs/guide': page('Guide', ['/docs/guide/intro', '/blog/post']),
    '/docs/guide/intro': page('Intro', []),
    '/blog/post': page('Post', []),
    // A site served only under its slashed path; relative links resolve against the directory.
    '/site/': page('Site', ['guide', './faq/', '/site']),
    '/site/guide': page('Site guide', []),
    '/site/faq/': page('Site FAQ', []),
  };
  for (const [p, html] of Object.entries(routes)) site.route(p, html);
  site.route('/robots.txt', (_q, res) =>
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end(`User-agent: *\nDisallow: /private/\nSitemap: ${u}/sitemap-index.xml\n`),
  );
  site.route('/sitemap-index.xml', (_q, res) =>
    res
      .writeHead(200, { 'content-type': 'application/xml' })
      .end(`<sitemapindex><sitemap><loc>${u}/sitemap-1.xml.gz</loc></sitemap></sitemapindex>`),
  );
  site.route('/sitemap-1.xml.gz', (_q, res) =>
    res
      .writeHead(200, { 'content-type': 'application/gzip' })
      .end(gzipSync(`<urlset><url><loc>${u}/only-in-sitemap</loc></url><url><loc>${u}/a</loc></url></urlset>`)),
  );
  site.route('/moved', (_q, res) => res.writeHead(301, { location: '/b' }).end());
  site.route('/away', (_q, res) => res.writeHead(302, { location: 'http://127.0.0.2:9/' }).end());
  site.route('/file.bin', (_q, res) =>
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(100)),
  );
  site.route('/slow', async (_q, res) => {
    await new Promise((r) => setTimeout(r, 5000));
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end(page('Slow', []));
  });
  http = new HttpClient({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await http?.close();
  await site?.close();
});

const urls = (r: { pages: { url: string }[] }) => r.pages.map((p) => p.url.replace(site.url, ''));

describe('crawl', () => {
  it('goes breadth-first, fetches each canonical URL once and stays on the site', async () => {
    const r = await crawl({ http }, { url: `${site.url}/`, maxDepth: 2, limit: 50, useSitemap: false });
    expect(urls(r)).toEqual(['/', '/a', '/b', '/c/', '/a/1', '/b/1', '/c/deep']);
    expect(r.pages.map((p) => p.depth)).toEqual([0, 1, 1, 1, 2, 2, 2]);
    expect(r.pages[1]).toMatchObject({ status_code: 200, title: 'A' });
    expect(r.pages[1].markdown).toContain('The A page has words enough');
    expect(r.total).toBe(7);
    expect(r.truncated).toBe(false);
    expect(site.hits('/a')).toBe(1);
    expect(site.hits('/b')).toBe(1);
    expect(site.hits('/image.png')).toBe(0);
    expect(r.errors).toEqual([
      { url: `${site.url}/private/secret`, error: 'robots_disallowed', detail: expect.any(String) },
    ]);
  });

  it('keeps a trailing slash: a site served only at /site/ is crawled there, and /site is another URL', async () => {
    const r = await crawl({ http }, { url: `${site.url}/site/`, maxDepth: 1, limit: 10, useSitemap: false });
    expect(urls(r)).toEqual(['/site/', '/site/guide', '/site/faq/']);
    expect(site.hits('/site/')).toBe(1);
    // '/site' was linked too: fetched as its own URL, a 404 reported as such.
    expect(r.errors).toEqual([expect.objectContaining({ url: `${site.url}/site` })]);
  });

  it.skipIf(!existsSync(fileURLToPath(workerUrl)))(
    'gives the same pages when documents are processed on worker threads (needs npm run build)',
    async () => {
      const pool = new DocumentPool({ size: 2, workerUrl });
      let pooledPages = 0;
      const documents = {
        process: (s: string, o: PooledOptions, x?: PageExtraction) => (pooledPages++, pool.process(s, o, x)),
        close: () => pool.close(),
      };
      try {
        const pooled = await crawl(
          { http, documents },
          { url: `${site.url}/`, maxDepth: 2, limit: 50, useSitemap: false },
        );
        const inline = await crawl({ http }, { url: `${site.url}/`, maxDepth: 2, limit: 50, useSitemap: false });
        expect(pool.size).toBe(2);
        expect(pooledPages).toBe(pooled.total);
        expect(pooled).toEqual(inline);
        // Extraction too runs on the workers, with the same answers.
        const schema = compileSchema({ title: 'string', links: ['string'] });
        const withJson = {
          url: `${site.url}/`,
          maxDepth: 2,
          limit: 50,
          useSitemap: false,
          formats: ['markdown', 'json'] as Format[],
          schema,
        };
        pooledPages = 0;
        const pooledJson = await crawl({ http, documents }, withJson);
        expect(pooledPages).toBe(pooledJson.total);
        expect(pooledJson.pages.every((p) => typeof p.json?.title === 'string')).toBe(true);
        expect(pooledJson).toEqual(await crawl({ http }, withJson));
      } finally {
        await pool.close();
      }
    },
  );

  it('max_depth 0 is only the start page; limit truncates', async () => {
    const zero = await crawl({ http }, { url: `${site.url}/`, maxDepth: 0 });
    expect(urls(zero)).toEqual(['/']);
    expect(zero.truncated).toBe(false);
    const limited = await crawl({ http }, { url: `${site.url}/`, maxDepth: 5, limit: 3, useSitemap: false });
    expect(urls(limited)).toEqual(['/', '/a', '/b']);
    expect(limited.truncated).toBe(true);
  });

  it('lists the links of pages at the depth limit when asked, and follows none of them', async () => {
    const r = await crawl(
      { http },
      { url: `${site.url}/`, maxDepth: 1, useSitemap: false, formats: ['markdown', 'links'] },
    );
    expect(urls(r)).toEqual(['/', '/a', '/b', '/c/']);
    const a = r.pages.find((p) => p.url.endsWith('/a'))!;
    expect(a.depth).toBe(1);
    expect(a.links).toEqual([`${site.url}/a/1`, `${site.url}/`, `${site.url}/b`]);
  });

  it('reports broken links as errors and keeps going', async () => {
    const r = await crawl({ http }, { url: `${site.url}/a/1`, maxDepth: 1, limit: 10, useSitemap: false });
    expect(urls(r)).toEqual(['/a/1', '/a/1/x']);
    expect(r.errors).toContainEqual({
      url: `${site.url}/missing`,
      error: 'fetch_failed',
      detail: expect.stringContaining('404'),
    });
  });

  it('ignores robots.txt when asked', async () => {
    const r = await crawl(
      { http },
      { url: `${site.url}/b`, maxDepth: 1, limit: 10, respectRobots: false, useSitemap: false },
    );
    expect(urls(r)).toContain('/private/secret');
  });

  it('seeds from sitemaps (robots.txt Sitemap line, index, gzip)', async () => {
    const r = await crawl({ http }, { url: `${site.url}/b/1`, maxDepth: 1, limit: 10 });
    expect(urls(r)).toEqual(['/b/1', '/only-in-sitemap', '/a']);
  });

  it('applies include and exclude globs to paths', async () => {
    const inc = await crawl(
      { http },
      { url: `${site.url}/docs/guide`, maxDepth: 2, limit: 10, includePaths: ['/docs/**'], useSitemap: false },
    );
    expect(urls(inc)).toEqual(['/docs/guide', '/docs/guide/intro']);
    const exc = await crawl(
      { http },
      { url: `${site.url}/`, maxDepth: 1, limit: 10, excludePaths: ['/a', '/c'], useSitemap: false },
    );
    expect(urls(exc)).toEqual(['/', '/b']);
  });

  it('follows rel=canonical and <base href>', async () => {
    const dup = await crawl({ http }, { url: `${site.url}/dup`, maxDepth: 1, limit: 10, useSitemap: false });
    // /dup declares /a as its canonical: /a counts as seen and is not fetched again.
    expect(urls(dup)).toEqual(['/dup']);
    const based = await crawl({ http }, { url: `${site.url}/based/index`, maxDepth: 1, limit: 10, useSitemap: false });
    expect(urls(based)).toEqual(['/based/index', '/elsewhere/rel-target']);
  });

  it('follows redirects within the site, skips non-HTML and refuses off-site hops', async () => {
    site.route('/hub', page('Hub', ['/moved', '/file.bin', '/away', '/b']));
    const r = await crawl({ http }, { url: `${site.url}/hub`, maxDepth: 1, limit: 10, useSitemap: false });
    expect(urls(r)).toEqual(['/hub', '/b']);
    expect(site.hits('/b')).toBeGreaterThan(0);
    expect(r.errors.map((e) => e.error)).toContain('off_site_redirect');
  });

  it('returns what it has when the time budget runs out', async () => {
    site.route('/slowhub', page('Slow hub', ['/slow', '/b']));
    const r = await crawl(
      { http },
      { url: `${site.url}/slowhub`, maxDepth: 1, limit: 10, timeoutMs: 2500, useSitemap: false },
    );
    expect(r.truncated).toBe(true);
    expect(urls(r)).toContain('/slowhub');
    expect(urls(r)).not.toContain('/slow');
  });

  it('fails when the start page cannot be fetched', async () => {
    await expect(crawl({ http }, { url: `${site.url}/missing`, useSitemap: false })).rejects.toMatchObject({
      code: 'fetch_failed',
    });
  });
});
