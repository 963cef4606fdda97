/** scrape() end to end on local servers: PDFs, text, JavaScript pages in Chromium, proxies. */
import { createServer as createNetServer, connect, type Server as NetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentPool } from '../../src/engine/document/pool.js';
import { createEngine, type Engine } from '../../src/engine/index.js';
import { scrape } from '../../src/engine/scrape.js';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { HttpClient } from '../../src/engine/fetch/http.js';
import { processHtml } from '../../src/engine/document/index.js';
import type { PageExtraction, PooledOptions } from '../../src/engine/document/pool.js';
import type { ExtractOutput } from '../../src/engine/extract/index.js';
import { compileSchema } from '../../src/engine/extract/schema.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { makePdf } from '../helpers/pdf.js';

let site: FixtureServer;
let engine: Engine;

const APP_SHELL = `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>
<script>
  setTimeout(() => {
    document.getElementById('root').innerHTML = '<article><h1>Rendered heading</h1><p class="late">This paragraph was written by JavaScript after load, long enough, with commas, to be content.</p></article>';
  }, 50);
</script></body></html>`;

beforeAll(async () => {
  site = await startFixtureServer({
    '/doc.pdf': (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'application/pdf' })
        .end(makePdf(['Quarterly report', 'Revenue grew by twelve percent.'])),
    '/notes.txt': (_q, res) =>
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Plain notes\nPrice: 9.99'),
    '/data.json': (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}'),
    '/app': APP_SHELL,
    '/article':
      '<html><head><title>Kettle</title></head><body><article><h1>Kettle</h1><p>A kettle that boils water quickly, with a long paragraph of words, commas, and sentences.</p></article><span class="price">$39.00</span></body></html>',
  });
  engine = createEngine({ allowPrivateNetwork: true, resolve: [], proxyUrls: [] });
});
afterAll(async () => {
  await engine?.close();
  await site?.close();
});

describe('scrape', () => {
  it('hands the page, and extraction with it, to the document processor; falls back to this thread when it cannot extract', async () => {
    const http = new HttpClient({ allowPrivateNetwork: true });
    const seen: { url: string; schema?: unknown }[] = [];
    // A processor that extracts, as the pool's workers do.
    const documents = {
      process: async (s: string, o: PooledOptions, x?: PageExtraction) => {
        seen.push({ url: o.url, schema: x?.schema });
        let extracted: ExtractOutput | undefined;
        const r = processHtml(s, {
          ...o,
          onDocument: x ? (d, base) => (extracted = x.here(d, base, s, o.url)) : undefined,
        });
        return { ...r, extracted };
      },
      close: async () => {},
    };
    // One that only knows markdown.
    const plain = { process: async (s: string, o: PooledOptions) => processHtml(s, o), close: async () => {} };
    try {
      const md = await scrape({ http, documents }, { url: `${site.url}/article` });
      expect(md.markdown).toContain('A kettle that boils water quickly');
      const json = await scrape(
        { http, documents },
        { url: `${site.url}/article`, formats: ['markdown', 'json'], schema: compileSchema({ price: 'number' }) },
      );
      expect(json.json).toEqual({ price: 39 });
      expect(json.markdown).toContain('A kettle that boils water quickly');
      expect(seen).toEqual([
        { url: `${site.url}/article`, schema: undefined },
        { url: `${site.url}/article`, schema: { price: 'number' } },
      ]);
      const fallback = await scrape(
        { http, documents: plain },
        { url: `${site.url}/article`, formats: ['json'], schema: compileSchema({ price: 'number' }) },
      );
      expect(fallback.json).toEqual({ price: 39 });
    } finally {
      await http.close();
    }
  });

  it('turns a PDF into markdown of its text', async () => {
    const r = await scrape(engine, { url: `${site.url}/doc.pdf` });
    expect(r.markdown).toContain('Quarterly report');
    expect(r.markdown).toContain('Revenue grew by twelve percent.');
    expect(r.metadata).toMatchObject({ content_type: 'application/pdf', title: 'Test PDF', status_code: 200 });
  });

  it('returns text and JSON bodies as text', async () => {
    const t = await scrape(engine, { url: `${site.url}/notes.txt` });
    expect(t.markdown).toBe('Plain notes\nPrice: 9.99');
    const j = await scrape(engine, { url: `${site.url}/data.json` });
    expect(j.markdown).toBe('```json\n{"a":1}\n```');
  });

  it('returns raw_html untouched and links of the whole page', async () => {
    const r = await scrape(engine, { url: `${site.url}/app`, formats: ['raw_html', 'links'], render: 'http' });
    expect(r.raw_html).toBe(APP_SHELL);
    expect(r.links).toEqual([]);
  });

  it('never repeats user:password@ from a URL in links, metadata or the final URL', async () => {
    const port = new URL(site.url).port;
    site.route(
      '/creds',
      `<html><head><title>Creds</title><link rel="canonical" href="http://admin:hunter2@127.0.0.1:${port}/creds"><meta property="og:url" content="http://admin:hunter2@127.0.0.1:${port}/og"></head>
      <body><article><h1>Creds</h1><p>A page whose links carry credentials, with commas, and a full stop.</p><a href="/relative">relative</a> <a href="http://u:p@other.example/x">absolute</a></article></body></html>`,
    );
    const r = await scrape(engine, {
      url: `http://user:secret@127.0.0.1:${port}/creds`,
      formats: ['markdown', 'links', 'html'],
    });
    const everything = JSON.stringify(r);
    expect(everything).not.toMatch(/secret|hunter2|admin:|u:p@|user:/);
    expect(r.url).toBe(`http://127.0.0.1:${port}/creds`);
    expect(r.metadata.source_url).toBe(`http://127.0.0.1:${port}/creds`);
    expect(r.metadata.canonical_url).toBe(`http://127.0.0.1:${port}/creds`);
    expect(r.links).toEqual([`http://127.0.0.1:${port}/relative`, 'http://other.example/x']);
  });

  const slowWorker = new URL('../helpers/slow-worker.mjs', import.meta.url);
  const compiled = existsSync(fileURLToPath(new URL('../../dist/engine/document/pipeline.js', import.meta.url)));
  it.skipIf(!compiled)(
    'timeout_ms covers processing: a page still being processed at the deadline is stopped with a timeout, others go on',
    async () => {
      site.route('/spin', '<html><body><p>SPIN</p></body></html>');
      const documents = new DocumentPool({ size: 1, workerUrl: slowWorker, jobTimeoutMs: 60_000, express: false });
      const http = new HttpClient({ allowPrivateNetwork: true });
      try {
        // Stopped by the request's deadline (its own words), not by the pool's 60 s limit per page.
        await expect(scrape({ http, documents }, { url: `${site.url}/spin`, timeoutMs: 1_000 })).rejects.toMatchObject({
          code: 'timeout',
          message: expect.stringContaining('used its whole time budget while the page was being processed'),
        });
        expect((await scrape({ http, documents }, { url: `${site.url}/article` })).markdown).toContain(
          'A kettle that boils water',
        );
        // A caller that goes away stops its page too.
        const gone = new AbortController();
        const pending = scrape(
          { http, documents },
          { url: `${site.url}/spin`, timeoutMs: 60_000, signal: gone.signal },
        );
        setTimeout(() => gone.abort(new Error('client left')), 300);
        await expect(pending).rejects.toThrow('client left');
        expect((await scrape({ http, documents }, { url: `${site.url}/article` })).markdown).toContain('A kettle');
      } finally {
        await documents.close();
        await http.close();
      }
    },
    20_000,
  );

  const chromium = findChromium();
  it.skipIf(!chromium)(
    'renders a JavaScript-only page in Chromium (auto detects the empty shell)',
    async () => {
      const http = await scrape(engine, { url: `${site.url}/app`, render: 'http' });
      expect(http.markdown).not.toContain('Rendered heading');
      const auto = await scrape(engine, { url: `${site.url}/app`, render: 'auto', timeoutMs: 20_000 });
      expect(auto.markdown).toContain('This paragraph was written by JavaScript');
      const waited = await scrape(engine, {
        url: `${site.url}/app`,
        render: 'browser',
        waitFor: 'p.late',
        timeoutMs: 20_000,
      });
      expect(waited.markdown).toContain('This paragraph was written by JavaScript');
    },
    60_000,
  );

  it.skipIf(!chromium)(
    'refuses private targets in the browser too',
    async () => {
      const guarded = createEngine({ allowPrivateNetwork: false, resolve: [], proxyUrls: [] });
      try {
        await expect(
          scrape(guarded, { url: `${site.url}/app`, render: 'browser', timeoutMs: 20_000 }),
        ).rejects.toMatchObject({ code: 'forbidden_target' });
      } finally {
        await guarded.close();
      }
    },
    60_000,
  );
});

describe('proxies', () => {
  let proxies: { server: NetServer; port: number; connects: number }[] = [];
  beforeAll(async () => {
    // Two tiny CONNECT proxies that count the tunnels they open.
    proxies = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<{ server: NetServer; port: number; connects: number }>((resolve) => {
            const p = { server: undefined as unknown as NetServer, port: 0, connects: 0 };
            p.server = createNetServer((client) => {
              client.once('data', (chunk) => {
                const m = /^CONNECT ([^:]+):(\d+)/.exec(chunk.toString());
                if (!m) return client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
                p.connects++;
                const upstream = connect(Number(m[2]), m[1], () => {
                  client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
                  upstream.pipe(client);
                  client.pipe(upstream);
                });
                upstream.on('error', () => client.destroy());
              });
            });
            p.server.listen(0, '127.0.0.1', () => {
              p.port = (p.server.address() as AddressInfo).port;
              resolve(p);
            });
          }),
      ),
    );
  });
  afterAll(() => proxies.forEach((p) => p.server.close()));

  it('rotates requests over HTTP_PROXY_URLS', async () => {
    const client = new HttpClient({
      allowPrivateNetwork: true,
      proxyUrls: proxies.map((p) => `http://127.0.0.1:${p.port}`),
    });
    try {
      for (let i = 0; i < 4; i++) {
        const r = await client.request(`${site.url}/notes.txt`, { headers: { connection: 'close' } });
        expect(r.body.toString()).toContain('Plain notes');
      }
      expect(proxies[0].connects).toBeGreaterThan(0);
      expect(proxies[1].connects).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('still refuses private targets when going through a proxy', async () => {
    const client = new HttpClient({ proxyUrls: [`http://127.0.0.1:${proxies[0].port}`] });
    try {
      await expect(client.request(`${site.url}/notes.txt`)).rejects.toMatchObject({ code: 'forbidden_target' });
    } finally {
      await client.close();
    }
  });
});
