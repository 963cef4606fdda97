/**
 * The guarded forward proxy Chromium talks through. Chromium is launched with this proxy and
 * told to send loopback through it too, and it resolves no names itself (`browser.ts`), so
 * every byte a page fetches — navigations and their redirect hops, sub-resources, fetch/XHR,
 * WebSockets, service workers — arrives here first. Here the name is resolved by the same
 * function as the HTTP client's connector (`TRAWL_RESOLVE` pins, every DNS answer checked by
 * the address guard), and the socket is opened to the checked address: DNS re-binding between
 * check and use is impossible. Upstream proxies (`HTTP_PROXY_URLS`) are reached by CONNECT to
 * the checked address.
 *
 * Each render opens its own session (its own listening port), so refusals, bytes and sockets
 * are counted per render and every socket dies with the render.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { TrawlError } from '../../errors.js';
import { HOP_BY_HOP } from './hop-by-hop.js';

export type ResolveTarget = (hostname: string, port: number) => Promise<{ address: string; port: number }>;

export interface GuardedProxyOptions {
  /** Resolves and checks a host (throws forbidden_target); HttpClient.resolveTarget. */
  resolveTarget: ResolveTarget;
  /** Upstream proxies to rotate through, `http(s)://user:pass@host:port` (the basic tier). */
  proxyUrls?: string[];
  /** The stealth tier's upstream proxies (a session opened for `stealth` chains to these). */
  stealthProxyUrls?: string[];
  /** Bytes one render may download in all before its transfers are cut. @default 64 MiB */
  maxBytes?: number;
  /** @default 10000 */
  connectTimeoutMs?: number;
  /** A socket with no traffic this long is closed. @default 30000 */
  idleTimeoutMs?: number;
}

/** What a render's traffic did, read by the renderer after the page is done. */
export interface ProxySession {
  /** `http://127.0.0.1:PORT`, this render's proxy. */
  readonly server: string;
  /** Refused authorities (`host:port`, as the URL parser writes the host) and why. */
  readonly refused: Map<string, TrawlError>;
  /** Bytes received from the network for this render. */
  readonly bytes: number;
  /** True once the byte budget ran out (later transfers were cut). */
  readonly overBudget: boolean;
  close(): Promise<void>;
}

/** `host:port` as the WHATWG URL parser normalises it (so `0x7f.1` and `127.0.0.1` are one key). */
export function authorityKey(hostname: string, port: number): string {
  return `${hostname.toLowerCase()}:${port}`;
}

function parseAuthority(authority: string): { hostname: string; port: number } | undefined {
  // The port as written: the URL parser drops 80 (http's default), which a CONNECT may name.
  const port = /:(\d{1,5})$/.exec(authority)?.[1];
  try {
    const u = new URL(`http://${authority}`);
    if (u.username || u.password || u.pathname !== '/' || !port || Number(port) > 65535) return undefined;
    return { hostname: u.hostname, port: Number(port) };
  } catch {
    return undefined;
  }
}

export class GuardedProxy {
  readonly #resolve: ResolveTarget;
  readonly #upstreams: URL[];
  readonly #stealth: URL[];
  #stealthTurn = 0;
  readonly #maxBytes: number;
  readonly #connectTimeoutMs: number;
  readonly #idleTimeoutMs: number;
  #turn = 0;
  readonly #sessions = new Set<Session>();

  constructor(options: GuardedProxyOptions) {
    this.#resolve = options.resolveTarget;
    this.#upstreams = (options.proxyUrls ?? []).map((u) => new URL(u));
    this.#stealth = (options.stealthProxyUrls ?? []).map((u) => new URL(u));
    this.#maxBytes = options.maxBytes ?? 64 * 2 ** 20;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  }

  /** A session whose every request is refused: the browser-wide proxy, for anything outside a render. */
  denyAll(): Promise<ProxySession> {
    return this.open(true);
  }

  async open(denyAll = false, tier: 'basic' | 'stealth' = 'basic'): Promise<ProxySession> {
    const session = new Session(this, denyAll, tier);
    await session.listen();
    this.#sessions.add(session);
    session.onClose = () => this.#sessions.delete(session);
    return session;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions].map((s) => s.close()));
  }

  get maxBytes(): number {
    return this.#maxBytes;
  }

  get idleTimeoutMs(): number {
    return this.#idleTimeoutMs;
  }

  resolve(hostname: string, port: number) {
    return this.#resolve(hostname, port);
  }

  /** A socket to the checked address, directly or through the next upstream proxy's CONNECT. */
  connect(address: string, port: number, tier: 'basic' | 'stealth' = 'basic'): Promise<Socket> {
    const upstream =
      tier === 'stealth'
        ? this.#stealth[this.#stealthTurn++ % this.#stealth.length]
        : this.#upstreams.length
          ? this.#upstreams[this.#turn++ % this.#upstreams.length]
          : undefined;
    // A stealth session with no stealth proxy must not fall back to a direct connection.
    if (tier === 'stealth' && !upstream) return Promise.reject(new Error('no stealth proxy is configured'));
    return new Promise<Socket>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connect timed out after ${this.#connectTimeoutMs} ms`));
      }, this.#connectTimeoutMs);
      const fail = (e: Error) => {
        clearTimeout(timer);
        reject(e);
      };
      const ready = (s: Socket) => {
        clearTimeout(timer);
        s.removeListener('error', fail);
        resolve(s);
      };
      let socket: Socket;
      if (!upstream) {
        socket = netConnect({ host: address, port }, () => ready(socket));
        socket.once('error', fail);
        return;
      }
      const proxyPort = Number(upstream.port) || (upstream.protocol === 'https:' ? 443 : 80);
      const onConnected = () => {
        const target = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
        const auth = upstream.username
          ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`).toString('base64')}\r\n`
          : '';
        socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
        let head = Buffer.alloc(0);
        const onData = (chunk: Buffer) => {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) {
            if (head.length > 16_384) fail(new Error('the upstream proxy sent an oversized answer'));
            return;
          }
          socket.removeListener('data', onData);
          const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1]);
          if (status !== 200) return fail(new Error(`the upstream proxy answered ${status || 'garbage'} to CONNECT`));
          if (head.length > end + 4) socket.unshift(head.subarray(end + 4));
          ready(socket);
        };
        socket.on('data', onData);
      };
      socket =
        upstream.protocol === 'https:'
          ? tlsConnect({ host: upstream.hostname, port: proxyPort, servername: upstream.hostname }, onConnected)
          : netConnect({ host: upstream.hostname.replace(/^\[|\]$/g, ''), port: proxyPort }, onConnected);
      socket.once('error', fail);
    });
  }
}

class Session implements ProxySession {
  readonly refused = new Map<string, TrawlError>();
  bytes = 0;
  overBudget = false;
  onClose?: () => void;
  #server: Server;
  #port = 0;
  readonly #sockets = new Set<Duplex>();
  #closed = false;

  constructor(
    private readonly proxy: GuardedProxy,
    private readonly denyAll: boolean,
    private readonly tier: 'basic' | 'stealth' = 'basic',
  ) {
    this.#server = createServer({ requestTimeout: 0 });
    this.#server.on('connection', (s: Socket) => this.#track(s));
    this.#server.on('request', (req, res) => void this.#forward(req, res));
    this.#server.on('connect', (req, socket, head) => void this.#tunnel(req, socket as Duplex, head, undefined));
    // Chromium tunnels WebSockets with CONNECT; an absolute-form upgrade is served the same way.
    this.#server.on('upgrade', (req, socket, head) => void this.#tunnel(req, socket as Duplex, head, req.url));
    this.#server.on('clientError', (_e, socket) => socket.destroy());
  }

  get server(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        this.#port = (this.#server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const s of this.#sockets) s.destroy();
    this.onClose?.();
    return new Promise((r) => this.#server.close(() => r()));
  }

  #track(s: Duplex): void {
    if (this.#closed) return void s.destroy();
    this.#sockets.add(s);
    s.on('close', () => this.#sockets.delete(s));
    s.on('error', () => undefined);
    if ('setTimeout' in s) (s as Socket).setTimeout(this.proxy.idleTimeoutMs, () => s.destroy());
  }

  /** Counts bytes moved either way (downloads and what the page uploads); past the budget every transfer of the render is cut. */
  #count(n: number): boolean {
    this.bytes += n;
    if (this.bytes <= this.proxy.maxBytes) return true;
    if (!this.overBudget) {
      this.overBudget = true;
      for (const s of this.#sockets) s.destroy();
    }
    return false;
  }

  /** Copies `from` to `to` with backpressure, counting every byte against the render's budget (past it, `to` is cut). */
  #relay(from: NodeJS.ReadableStream, to: NodeJS.WritableStream & { destroy(): void }): void {
    from.on('data', (chunk: Buffer) => {
      if (!this.#count(chunk.length)) return void to.destroy();
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => from.resume());
      }
    });
    from.on('end', () => to.end());
  }

  /** Resolve, check and connect: a socket, or why not (`forbidden`: the guard refused; recorded for the renderer). */
  async #open(hostname: string, port: number): Promise<Socket | 'forbidden' | 'unreachable'> {
    if (this.denyAll || this.#closed || this.overBudget) return 'forbidden';
    let target: { address: string; port: number };
    try {
      target = await this.proxy.resolve(hostname, port);
    } catch (e) {
      const key = authorityKey(hostname, port);
      if (!(e instanceof TrawlError && e.code === 'forbidden_target')) return 'unreachable';
      if (!this.refused.has(key)) this.refused.set(key, e);
      return 'forbidden';
    }
    const socket = await this.proxy.connect(target.address, target.port, this.tier).catch(() => undefined);
    if (!socket) return 'unreachable';
    if (this.#closed) {
      socket.destroy();
      return 'forbidden';
    }
    this.#track(socket);
    return socket;
  }

  async #tunnel(req: IncomingMessage, client: Duplex, head: Buffer, absoluteUrl: string | undefined): Promise<void> {
    let hostname: string, port: number;
    if (absoluteUrl) {
      const u = safeUrl(absoluteUrl, ['http:', 'ws:']);
      if (!u) return void client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      [hostname, port] = [u.hostname, Number(u.port) || 80];
    } else {
      const a = parseAuthority(req.url ?? '');
      if (!a) return void client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      [hostname, port] = [a.hostname, a.port];
    }
    const upstream = await this.#open(hostname, port);
    if (upstream === 'forbidden')
      return void client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    if (upstream === 'unreachable')
      return void client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    if (client.destroyed) return void upstream.destroy();
    if (absoluteUrl) {
      // Replay the upgrade request in origin form; then both directions are raw bytes.
      const u = new URL(absoluteUrl);
      upstream.write(`${req.method} ${u.pathname}${u.search} HTTP/1.1\r\n${rawHeaderLines(req.rawHeaders, true)}\r\n`);
    } else {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    }
    if (head.length) upstream.write(head);
    this.#relay(upstream, client);
    this.#relay(client, upstream);
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = safeUrl(req.url ?? '', ['http:']);
    if (!u)
      return void res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('a proxy request needs an absolute http:// URL');
    const socket = await this.#open(u.hostname, Number(u.port) || 80);
    if (socket === 'forbidden')
      return void res
        .writeHead(403, { 'content-type': 'text/plain', connection: 'close' })
        .end('refused by the address guard');
    // Not the guard's doing: a 502, so the render reports an unreachable target, not a refusal.
    if (socket === 'unreachable')
      return void res
        .writeHead(502, { 'content-type': 'text/plain', connection: 'close' })
        .end('the target could not be reached');
    const headers: [string, string][] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (!HOP_BY_HOP.has(req.rawHeaders[i].toLowerCase())) headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
    }
    headers.push(['Connection', 'close']);
    const out = httpRequest({
      method: req.method,
      path: `${u.pathname}${u.search}`,
      headers: headers.flat(),
      setHost: false,
      createConnection: () => socket,
    });
    out.on('response', (upstream) => {
      const back: string[] = [];
      for (let i = 0; i < upstream.rawHeaders.length; i += 2) {
        if (!HOP_BY_HOP.has(upstream.rawHeaders[i].toLowerCase()))
          back.push(upstream.rawHeaders[i], upstream.rawHeaders[i + 1]);
      }
      res.writeHead(upstream.statusCode ?? 502, back);
      this.#relay(upstream, res);
      upstream.on('error', () => res.destroy());
    });
    out.on('error', () => {
      if (!res.headersSent)
        res
          .writeHead(502, { 'content-type': 'text/plain', connection: 'close' })
          .end('the target could not be reached');
      else res.destroy();
    });
    this.#relay(req, out);
  }
}

function safeUrl(raw: string, protocols: string[]): URL | undefined {
  try {
    const u = new URL(raw);
    return protocols.includes(u.protocol) && !u.username && !u.password ? u : undefined;
  } catch {
    return undefined;
  }
}

function rawHeaderLines(raw: string[], keepUpgrade: boolean): string {
  let out = '';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name.startsWith('proxy-')) continue;
    if (!keepUpgrade && HOP_BY_HOP.has(name)) continue;
    out += `${raw[i]}: ${raw[i + 1]}\r\n`;
  }
  return out;
}
