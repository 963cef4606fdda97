/**
 * The local site every Firecrawl-client test reads: a home page linking to docs, a blog and a
 * product page (with JSON-LD), a page that is gone (404), robots.txt, a sitemap, and a fake
 * SearXNG whose results point at the site. Nothing leaves 127.0.0.1.
 */
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

export interface TestSite {
  site: FixtureServer;
  searx: FixtureServer;
  close(): Promise<void>;
}

const para = (s: string) =>
  `<p>${s} ${'This sentence is here so the page has enough words to be read as its main content. '.repeat(3)}</p>`;

export async function startTestSite(): Promise<TestSite> {
  const site = await startFixtureServer();
  const u = site.url;
  site.route(
    '/',
    `<html><head><title>Harbour Tools</title><meta name="description" content="Tools for the harbour"></head><body>
      <nav><a href="/docs/intro">Intro</a> <a href="/docs/setup">Setup</a> <a href="/blog/tides">Tides</a> <a href="/product/anchor">Anchor</a> <a href="/gone">Gone</a></nav>
      <article><h1>Harbour Tools</h1>${para('Welcome to Harbour Tools, makers of anchors and ropes since 1921.')}</article></body></html>`,
  );
  site.route(
    '/docs/intro',
    articlePage(
      'Intro to the docs',
      `${para('The intro explains how the harbour tools fit together.')}<a href="/docs/setup">Next: setup</a> <a href="/docs/deep/one">Deep one</a>`,
    ),
  );
  site.route(
    '/docs/setup',
    articlePage('Setting up', para('Setting up takes a wrench, a rope and ten minutes of patience.')),
  );
  site.route('/docs/deep/one', articlePage('Deep page one', para('A page three segments deep in the docs section.')));
  site.route(
    '/blog/tides',
    articlePage('Why tides turn', para('Tides are caused mainly by the gravitational pull of the Moon on the oceans.')),
  );
  site.route(
    '/product/anchor',
    `<html><head><title>Galvanised Anchor</title><script type="application/ld+json">${JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'Galvanised Anchor',
      sku: 'ANC-12',
      offers: { '@type': 'Offer', price: '129.50', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' },
    })}</script></head><body><article><h1>Galvanised Anchor</h1>${para('A 12 kg galvanised anchor for boats up to nine metres.')}</article></body></html>`,
  );
  site.route(
    '/robots.txt',
    (_q, res) =>
      void res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`User-agent: *\nDisallow: /private\nSitemap: ${u}/sitemap.xml\n`),
  );
  site.route(
    '/sitemap.xml',
    (_q, res) =>
      void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/', '/docs/intro', '/docs/setup', '/blog/tides', '/private/notes'].map((p) => `<url><loc>${u}${p}</loc></url>`).join('')}</urlset>`,
        ),
  );
  site.route('/private/notes', articlePage('Private notes', para('Robots may not read this.')));
  const searx = await startFixtureServer({
    '/search': (req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams;
      if (q.get('format') !== 'json') return void res.writeHead(403).end('format not allowed');
      const results = [
        { url: `${u}/blog/tides`, title: 'Why tides turn', content: 'An explainer on tides and the Moon' },
        { url: `${u}/docs/setup`, title: 'Setting up', content: 'How to set up the harbour tools' },
        { url: `${u}/product/anchor`, title: 'Galvanised Anchor', content: 'A 12 kg anchor' },
      ];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q.get('q'), results }));
    },
  });
  return {
    site,
    searx,
    close: async () => {
      await site.close();
      await searx.close();
    },
  };
}
