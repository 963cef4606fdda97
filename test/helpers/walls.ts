/**
 * Simulated bot walls (issue 42), one small local server per kind, each answering with its
 * vendor's own block page (test/fixtures/walls and test/fixtures/bot-walls) until the request
 * passes the check that vendor makes; then the article. Shared by the tests and `npm run eval:walls`.
 * Everything listens on 127.0.0.1; nothing here touches the internet.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../fixtures', import.meta.url));
const read = (p: string) => readFileSync(join(FIXTURES, p), 'utf8');

export const ARTICLE_TITLE = 'Lighthouse keepers return to the northern cape';
export const ARTICLE_TEXT = 'The keepers will live on the headland from March to October';
export const ARTICLE = `<!DOCTYPE html><html lang="en"><head><title>${ARTICLE_TITLE}</title></head><body><main><article><h1>${ARTICLE_TITLE}</h1>
<p>${ARTICLE_TEXT}, the heritage trust said, the first time in forty years that the light has been tended by people rather than a timer.</p>
<p>Volunteers will staff the tower in pairs, logging the weather every three hours and guiding visitors up the 138 steps to the lantern room.</p>
<p>The trust expects about twelve thousand visitors this season, most of them walkers on the coastal path that passes below the cliffs.</p>
</article></main></body></html>`;

export type WallKindName =
  'headers' | 'js-challenge' | 'fingerprint' | 'ip-reputation' | 'rate-limit' | 'consent' | 'hard-block' | 'captcha';

export interface WallServer {
  kind: WallKindName;
  url: string;
  port: number;
  /** Requests by path. */
  hits: (path: string) => number;
  /** What the fingerprint wall's page reported (its failed checks), newest last. */
  reports: { fails: string[]; ua: string; brands: unknown; languages: string[] }[];
  /** Request headers of the last request to `/`, raw (name, value, …) in the order sent. */
  lastRawHeaders: string[];
  /** The address the last request to `/` came from. */
  lastRemote?: string;
  close(): Promise<void>;
}

const html = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) =>
  void res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

const cookieOf = (req: IncomingMessage, name: string) =>
  new RegExp(`(?:^|;\\s*)${name}=([^;]*)`).exec(req.headers.cookie ?? '')?.[1];

/** Chrome's document request, as Akamai Bot Manager's header rules expect it. */
function looksLikeChrome(req: IncomingMessage): boolean {
  const ua = req.headers['user-agent'] ?? '';
  if (!/Chrome\/\d+/.test(ua) || /Trawl|HeadlessChrome|python|curl|node/i.test(ua)) return false;
  if (!req.headers['sec-ch-ua'] || !req.headers['sec-ch-ua-platform'] || !req.headers['sec-ch-ua-mobile']) return false;
  if (req.headers['sec-fetch-mode'] !== 'navigate' || req.headers['sec-fetch-dest'] !== 'document') return false;
  if (!req.headers['accept-language'] || !/text\/html/.test(req.headers.accept ?? '')) return false;
  // Chrome sends its client hints before its User-Agent.
  const names = req.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
  return names.indexOf('sec-ch-ua') < names.indexOf('user-agent');
}

export async function startWall(kind: WallKindName, options: { retryAfter?: string } = {}): Promise<WallServer> {
  const counts = new Map<string, number>();
  const token = randomBytes(12).toString('hex');
  const state: WallServer = {
    kind,
    url: '',
    port: 0,
    hits: (p) => counts.get(p) ?? 0,
    reports: [],
    lastRawHeaders: [],
    close: async () => undefined,
  };
  let limitedUntil = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (path === '/__report' && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        try {
          state.reports.push(JSON.parse(body));
        } catch {
          /* a broken report is no report */
        }
        res.writeHead(204).end();
      });
      return;
    }
    if (path === '/__captcha') return html(res, 403, read('bot-walls/datadome-captcha.html'));
    if (path === '/favicon.ico') return void res.writeHead(404).end();
    if (path === '/') {
      state.lastRawHeaders = req.rawHeaders;
      state.lastRemote = req.socket.remoteAddress;
    }
    switch (kind) {
      case 'headers':
        // Akamai-style header heuristics: anything that does not look like Chrome's own request is refused.
        if (!looksLikeChrome(req))
          return html(
            res,
            403,
            read('walls/akamai-access-denied-entities.html').replace('{{HOST}}', req.headers.host ?? ''),
            {
              server: 'AkamaiGHost',
            },
          );
        return html(res, 200, ARTICLE);
      case 'js-challenge':
        if (cookieOf(req, 'cf_clearance') === token) return html(res, 200, ARTICLE);
        if (path.startsWith('/cdn-cgi/challenge-platform/'))
          return void res
            .writeHead(200, { 'content-type': 'application/javascript' })
            .end(`setTimeout(function(){document.cookie='cf_clearance=${token}; path=/';location.reload();}, 700);`);
        return html(res, 403, read('walls/cloudflare-js-challenge.html'), {
          'cf-mitigated': 'challenge',
          server: 'cloudflare',
        });
      case 'fingerprint':
        if (cookieOf(req, 'datadome') === token) return html(res, 200, ARTICLE);
        return html(
          res,
          403,
          read('walls/datadome-device-check.html')
            .replaceAll('{{TOKEN}}', token)
            .replace('{{ACCEPT_LANGUAGE}}', String(req.headers['accept-language'] ?? '').replace(/[^\w,;=.-]/g, '')),
          { 'x-datadome': 'protected' },
        );
      case 'ip-reputation':
        // Imperva-style reputation block: the "datacenter" address (127.0.0.1) is refused, others pass.
        if (req.socket.remoteAddress === '127.0.0.1' || req.socket.remoteAddress === '::ffff:127.0.0.1')
          return html(res, 403, read('bot-walls/imperva-incident.html'));
        return html(res, 200, ARTICLE);
      case 'rate-limit': {
        const now = Date.now();
        if (counts.get('/') === 1 && path === '/') {
          limitedUntil = now + 2000;
        }
        if (now < limitedUntil)
          return void res
            .writeHead(429, { 'content-type': 'text/plain', 'retry-after': options.retryAfter ?? '2' })
            .end('Too Many Requests');
        return html(res, 200, ARTICLE);
      }
      case 'consent':
        return html(res, 200, read('walls/consent-wall.html'));
      case 'hard-block':
        return html(res, 403, read('bot-walls/cloudflare-blocked.html'), { server: 'cloudflare' });
      case 'captcha':
        return html(res, 403, read('bot-walls/datadome-captcha.html'), { 'x-datadome': 'protected' });
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}/`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

export interface ForwardProxy {
  url: string;
  port: number;
  /** CONNECT and absolute-form requests it carried. */
  requests: number;
  /** Proxy-Authorization headers it received. */
  auth: string[];
  close(): Promise<void>;
}

/**
 * A forward proxy (CONNECT and absolute-form HTTP) whose connections leave from `localAddress`:
 * a "better IP" (127.0.0.2) for the stealth tier. `hosts` maps names to addresses (its own DNS).
 */
export async function startForwardProxy(
  localAddress = '127.0.0.2',
  hosts: Record<string, string> = {},
): Promise<ForwardProxy> {
  const sockets = new Set<Socket>();
  const state: ForwardProxy = { url: '', port: 0, requests: 0, auth: [], close: async () => undefined };
  // Never the real network: a host neither mapped nor a loopback address goes nowhere (127.0.0.0
  // is no host; the connection fails as a dead upstream would).
  const target = (h: string) => hosts[h] ?? (/^127\./.test(h) || h === '::1' ? h : '127.0.0.0');
  const server = createServer((req, res) => {
    state.requests++;
    if (req.headers['proxy-authorization']) state.auth.push(req.headers['proxy-authorization']);
    const u = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const out = httpRequest(
      {
        host: target(u.hostname),
        port: u.port || 80,
        path: u.pathname + u.search,
        method: req.method,
        headers,
        localAddress,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    state.requests++;
    if (req.headers['proxy-authorization']) state.auth.push(req.headers['proxy-authorization']);
    const [host, port] = (req.url ?? '').replace(/^\[|\]$/g, '').split(/:(?=\d+$)/);
    const up = connect({ host: target(host.replace(/^\[|\]$/g, '')), port: Number(port), localAddress }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    for (const s of [up, client]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        up.destroy();
        client.destroy();
      });
    }
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  state.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return state;
}
