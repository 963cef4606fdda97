/**
 * POST /v1/map: a site's URLs from robots.txt's Sitemap lines (an index with gzip children),
 * /sitemap.xml and the links of its start page (with their text as title), same site only,
 * deduplicated, limited, ranked by `search`; 1 credit, none when it fails.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const urlset = (urls: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`;

describe('POST /v1/map', () => {
  let svc: TestService;
  let site: FixtureServer;
  let base = '';

  beforeAll(async () => {
    site = await startFixtureServer();
    base = site.url;
    const xml =
      (body: string | Buffer, type = 'application/xml') =>
      (_q: unknown, res: import('node:http').ServerResponse) =>
        void res.writeHead(200, { 'content-type': type }).end(body);
    site.route(
      '/robots.txt',
      (_q, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`User-agent: *\nAllow: /\nSitemap: ${base}/sitemaps/index.xml\n`),
    );
    site.route(
      '/sitemaps/index.xml',
      xml(
        `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/sitemaps/a.xml.gz</loc></sitemap><sitemap><loc>${base}/sitemaps/b.xml.gz</loc></sitemap></sitemapindex>`,
      ),
    );
    site.route(
      '/sitemaps/a.xml.gz',
      xml(gzipSync(urlset(Array.from({ length: 40 }, (_, i) => `${base}/docs/page-${i}`))), 'application/gzip'),
    );
    site.route(
      '/sitemaps/b.xml.gz',
      xml(
        gzipSync(urlset([`${base}/blog/launch-notes`, `${base}/docs/page-1`, 'http://elsewhere.test/x'])),
        'application/gzip',
      ),
    );
    site.route('/sitemap.xml', xml(urlset([`${base}/about`])));
    site.route(
      '/',
      `<html><head><title>Home</title></head><body><nav><a href="/pricing">Plans and pricing</a><a href="/docs/page-3#intro">Docs</a><a href="http://other.test/">Other</a><a href="/logo.png">logo</a></nav></body></html>`,
    );
    site.route('/pricing', `<html><body><a href="/pricing/enterprise">Enterprise plans</a></body></html>`);
    svc = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('merges sitemaps (robots index, gzip children, /sitemap.xml) and harvested links; same site, deduplicated, titled', async () => {
    const { key, accountId } = await svc.newKey(10);
    const res = await svc.post('/v1/map', { url: `${base}/` }, key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; links: { url: string; title?: string }[]; total: number };
    const urls = body.links.map((l) => l.url);
    expect(body.status).toBe('ok');
    for (const u of [
      `${base}/docs/page-0`,
      `${base}/docs/page-39`,
      `${base}/blog/launch-notes`,
      `${base}/about`,
      `${base}/pricing`,
      `${base}/pricing/enterprise`,
      `${base}/`,
    ])
      expect(urls).toContain(u);
    expect(urls.some((u) => u.includes('elsewhere.test') || u.includes('other.test') || u.endsWith('.png'))).toBe(
      false,
    );
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls.filter((u) => u === `${base}/docs/page-3`)).toHaveLength(1);
    expect(body.links.find((l) => l.url === `${base}/pricing`)?.title).toBe('Plans and pricing');
    expect(body.total).toBe(urls.length);
    // 40 docs pages (docs/page-3 also linked: once), the launch notes, /about, and /, /pricing, /pricing/enterprise.
    expect(body.total).toBe(40 + 2 + 3);
    expect(await svc.credits(accountId)).toBe(9);
  });

  it('limits the answer (total still counts all), ranks by search, and can skip sitemaps', async () => {
    const { key } = await svc.newKey(10);
    const limited = (await (await svc.post('/v1/map', { url: `${base}/`, limit: 5 }, key)).json()) as {
      links: unknown[];
      total: number;
    };
    expect(limited.links).toHaveLength(5);
    expect(limited.total).toBeGreaterThan(40);
    const ranked = (await (
      await svc.post('/v1/map', { url: `${base}/`, search: 'enterprise pricing', limit: 3 }, key)
    ).json()) as { links: { url: string }[] };
    expect(
      ranked.links
        .map((l) => l.url)
        .slice(0, 2)
        .sort(),
    ).toEqual([`${base}/pricing`, `${base}/pricing/enterprise`]);
    const noSitemap = (await (await svc.post('/v1/map', { url: `${base}/`, use_sitemap: false }, key)).json()) as {
      links: { url: string }[];
    };
    expect(noSitemap.links.map((l) => l.url).sort()).toEqual(
      [`${base}/`, `${base}/docs/page-3`, `${base}/pricing`, `${base}/pricing/enterprise`].sort(),
    );
  });

  it('bad input is 400 naming the field; an unreachable site is 502 and costs nothing', async () => {
    const { key, accountId } = await svc.newKey(10);
    const over = await svc.post('/v1/map', { url: `${base}/`, limit: 30_001 }, key);
    expect(over.status).toBe(400);
    expect(((await over.json()) as { detail: string }).detail).toMatch(/^limit: /);
    expect((await svc.post('/v1/map', { url: 'ftp://x' }, key)).status).toBe(400);
    expect((await svc.post('/v1/map', { url: `${base}/`, depth: 2 }, key)).status).toBe(400);
    const down = await svc.post('/v1/map', { url: 'http://127.0.0.1:9/' }, key);
    expect(down.status).toBe(502);
    expect(await svc.credits(accountId)).toBe(10);
  });
});
