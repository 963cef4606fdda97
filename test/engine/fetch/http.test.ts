/** The HTTP client against local servers: redirects, guard on every hop, limits, encodings, charsets. */
import { brotliCompressSync, gzipSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { decodeBody } from '../../../src/engine/fetch/charset.js';
import { fetchPage } from '../../../src/engine/fetch/page.js';
import { TrawlError } from '../../../src/errors.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

let site: FixtureServer;
let open: HttpClient;
let guarded: HttpClient;

const html = (s: string) => `<html><head><meta charset="utf-8"></head><body><p>${s}</p></body></html>`;

beforeAll(async () => {
  site = await startFixtureServer({
    '/ok': html('hello'),
    '/gzip': (_q, res) =>
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(html('zipped'))),
    '/br': (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' })
        .end(brotliCompressSync(html('brotli'))),
    '/deflate': (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' })
        .end(deflateSync(html('deflated'))),
    '/big': (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('x'.repeat(2 * 1024 * 1024)),
    '/bomb': (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
        .end(gzipSync(Buffer.alloc(50 * 1024 * 1024))),
    '/loop': (_q, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/r1': (_q, res) => res.writeHead(301, { location: '/r2' }).end(),
    '/r2': (_q, res) => res.writeHead(307, { location: '/ok' }).end(),
    '/odd-encoding': (_q, res) =>
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': '__proto__' }).end('as sent'),
    '/not-gzip': (_q, res) =>
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end('plain text, not gzip'),
    '/cookies': (_q, res) =>
      res
        .writeHead(200, [
          ['content-type', 'text/html'],
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ])
        .end('ok'),
    // Headers at once, then the body trickles until the client leaves: it never ends on its own,
    // so only a budget or a signal can end a request for it (no ms figure to assert).
    '/slow': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const t = setInterval(() => res.write('<p>tick'), 100);
      res.on('close', () => clearInterval(t));
    },
    // A redirect whose body must be drained, not kept.
    '/r-body': (_q, res) =>
      res.writeHead(302, { location: '/ok', 'content-type': 'text/html' }).end('x'.repeat(64 * 1024)),
  });
  site.route('/to-loopback', (_q, res) => res.writeHead(302, { location: `http://127.0.0.1:${site.port}/ok` }).end());
  site.route('/to-mapped', (_q, res) =>
    res.writeHead(302, { location: `http://[::ffff:127.0.0.1]:${site.port}/ok` }).end(),
  );
  site.route('/to-decimal', (_q, res) => res.writeHead(302, { location: `http://2130706433:${site.port}/ok` }).end());
  site.route('/to-file', (_q, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
  site.route('/to-javascript', (_q, res) => res.writeHead(302, { location: 'javascript:alert(1)' }).end());
  site.route('/to-data', (_q, res) => res.writeHead(302, { location: 'data:text/html,<p>hi</p>' }).end());
  site.route('/to-ftp', (_q, res) => res.writeHead(302, { location: 'ftp://example.com/file' }).end());
  site.route('/to-credentials', (_q, res) =>
    res.writeHead(302, { location: `http://user:secret@127.0.0.1:${site.port}/ok#part` }).end(),
  );
  site.route('/to-nonsense', (_q, res) => res.writeHead(302, { location: 'http://[::1' }).end());
  open = new HttpClient({ allowPrivateNetwork: true });
  guarded = new HttpClient({ resolve: [{ host: 'public.test', address: '127.0.0.1', port: site.port }] });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await site?.close();
});

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e as TrawlError;
  }
  throw new Error('expected a failure');
};

describe('HttpClient', () => {
  it('follows redirects and reports the final URL', async () => {
    const r = await open.request(`${site.url}/r1`);
    expect(r.status).toBe(200);
    expect(r.url).toBe(`${site.url}/ok`);
    expect(r.redirects).toEqual([`${site.url}/r1`, `${site.url}/r2`]);
  });

  it('never sends nor reports credentials a redirect names', async () => {
    const r = await open.request(`${site.url}/to-credentials`);
    expect(r.status).toBe(200);
    expect(r.url).toBe(`${site.url}/ok`);
  });

  it('stops redirect loops', async () => {
    const e = await failure(open.request(`${site.url}/loop`, { maxRedirects: 5 }));
    expect(e.code).toBe('fetch_failed');
    expect(e.detail).toContain('too many redirects');
  });

  it.each(['gzip', 'br', 'deflate'])('decodes %s', async (enc) => {
    const r = await open.request(`${site.url}/${enc}`);
    expect(r.body.toString()).toContain(enc === 'gzip' ? 'zipped' : enc === 'br' ? 'brotli' : 'deflated');
  });

  it('enforces the byte limit on plain and compressed bodies', async () => {
    expect((await failure(open.request(`${site.url}/big`, { maxBytes: 1024 * 1024 }))).detail).toContain('larger than');
    expect((await failure(open.request(`${site.url}/bomb`, { maxBytes: 1024 * 1024 }))).detail).toContain(
      'larger than',
    );
  });

  it('returns a body in an encoding it does not know as it was sent', async () => {
    const r = await open.request(`${site.url}/odd-encoding`);
    expect(Buffer.isBuffer(r.body)).toBe(true);
    expect(r.body.toString()).toBe('as sent');
  });

  it('rejects a body that is not in its declared encoding', async () => {
    const e = await failure(open.request(`${site.url}/not-gzip`));
    expect(e.code).toBe('fetch_failed');
    expect(e.detail).toContain('not valid gzip');
  });

  it('joins repeated headers, lower-cases names and drains redirect bodies', async () => {
    const r = await open.request(`${site.url}/cookies`);
    expect(r.headers['set-cookie']).toBe('a=1, b=2');
    expect(r.headers['content-type']).toBe('text/html');
    const moved = await open.request(`${site.url}/r-body`, { maxBytes: 1024 });
    expect(moved.url).toBe(`${site.url}/ok`);
    expect(moved.body.toString()).toContain('hello');
  });

  it('stops at its time budget, body included', async () => {
    // The body never ends: settling at all proves the budget covers the body.
    const e = await failure(open.request(`${site.url}/slow`, { timeoutMs: 300 }));
    expect(e.code).toBe('timeout');
  });

  it("cancels every request in flight when the caller's signal aborts, with one listener on it", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const ctl = new AbortController();
      const inFlight = Array.from({ length: 24 }, () =>
        failure(open.request(`${site.url}/slow`, { signal: ctl.signal })),
      );
      await new Promise((r) => setTimeout(r, 200));
      ctl.abort(new TrawlError('timeout', 'the crawl used its whole time budget'));
      // No budget and a body that never ends: only the abort can settle these.
      const errors = await Promise.all(inFlight);
      // The caller's own reason comes back as it was given.
      for (const e of errors) expect([e.code, e.detail]).toEqual(['timeout', 'the crawl used its whole time budget']);
      // An already aborted signal fails at once, without a request.
      const before = site.hits('/ok');
      const plain = new AbortController();
      plain.abort();
      expect((await failure(open.request(`${site.url}/ok`, { signal: plain.signal }))).detail).toContain('cancelled');
      expect(site.hits('/ok')).toBe(before);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('refuses private targets and every redirect hop to one', async () => {
    const ok = await guarded.request(`http://public.test:${site.port}/ok`);
    expect(ok.status).toBe(200);
    for (const path of ['/to-loopback', '/to-mapped', '/to-decimal']) {
      const e = await failure(guarded.request(`http://public.test:${site.port}${path}`));
      expect(e.code, path).toBe('forbidden_target');
    }
    expect((await failure(guarded.request(`http://localhost:${site.port}/ok`))).code).toBe('forbidden_target');
    // The caller's URL was valid: a redirect to what cannot be fetched is the target's fault (502).
    for (const path of ['/to-file', '/to-javascript', '/to-data', '/to-ftp', '/to-nonsense']) {
      const e = await failure(guarded.request(`http://public.test:${site.port}${path}`));
      expect(e.code, path).toBe('fetch_failed');
      expect(e.detail, path).toMatch(/redirects to/);
    }
  });

  it('reports DNS failures as fetch_failed, and refuses names that resolve to private addresses', async () => {
    // An injected resolver: the test never asks a real DNS server.
    const dns = new HttpClient({
      lookup: async (host) => {
        if (host === 'rebind.test') return [{ address: '93.184.216.34' }, { address: '10.0.0.5' }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    try {
      const e = await failure(dns.request('http://does-not-exist.invalid/'));
      expect(e.code).toBe('fetch_failed');
      expect(e.detail).toContain('does-not-exist.invalid');
      const r = await failure(dns.request('http://rebind.test/'));
      expect(r.code).toBe('forbidden_target');
      expect(r.detail).toContain('10.0.0.5');
    } finally {
      await dns.close();
    }
  });
});

describe('charset detection', () => {
  const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет" in windows-1251
  it('uses the Content-Type charset', () => {
    expect(decodeBody(cyrillic, 'text/html; charset=windows-1251').text).toBe('Привет');
  });
  it('uses a meta charset declaration', () => {
    const body = Buffer.concat([Buffer.from('<html><head><meta charset="windows-1251"></head><body>'), cyrillic]);
    expect(decodeBody(body, 'text/html').text).toContain('Привет');
  });
  it('uses an http-equiv declaration (Shift_JIS)', () => {
    const sjis = Buffer.from([0x93, 0xfa, 0x96, 0x7b]); // 日本
    const body = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'),
      sjis,
    ]);
    expect(decodeBody(body, 'text/html').text).toContain('日本');
  });
  it('prefers the BOM over everything', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<meta charset="windows-1251">héllo')]);
    expect(decodeBody(body, 'text/html; charset=iso-8859-1').text).toContain('héllo');
  });
  it('falls back to UTF-8 when valid, else windows-1252', () => {
    expect(decodeBody(Buffer.from('naïve café'), 'text/html').text).toBe('naïve café');
    expect(decodeBody(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/html').text).toBe('café');
  });
  it('does not believe a UTF-16 label over bytes that are not UTF-16', () => {
    const utf8 = Buffer.from(
      '<html><head><meta charset="utf-8"><title>Grüße</title></head><body><p>naïve café — 日本</p></body></html>',
    );
    for (const label of ['utf-16', 'UTF-16LE', 'utf-16be']) {
      const r = decodeBody(utf8, `text/html; charset=${label}`);
      expect(r.text, label).toContain('naïve café — 日本');
      expect(r.charset).toBe('utf-8');
    }
    // Real UTF-16 (no BOM) is still read as the header says.
    const utf16 = Buffer.from('<html><body><p>naïve café</p></body></html>', 'utf16le');
    expect(decodeBody(utf16, 'text/html; charset=utf-16le').text).toContain('naïve café');
  });
  it('fetchPage decodes a legacy page end to end', async () => {
    site.route('/latin1', (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' })
        .end(Buffer.from('<p>Gr\xfc\xdfe aus K\xf6ln</p>', 'latin1')),
    );
    const page = await fetchPage({ http: open }, `${site.url}/latin1`, { render: 'http' });
    expect(page.text).toContain('Grüße aus Köln');
  });
});
