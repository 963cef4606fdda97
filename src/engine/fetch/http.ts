/**
 * The one HTTP client for everything that leaves the machine. Built on undici with:
 *  - an SSRF guard inside the connector: the host is resolved, every answer checked, and the
 *    socket opened to the checked address (so DNS cannot be re-bound between check and use);
 *  - redirects followed by hand, each hop checked the same way, with a hop limit;
 *  - a time budget (AbortSignal) and a byte budget on the decoded body;
 *  - gzip / deflate / brotli decoding;
 *  - `TRAWL_RESOLVE` overrides (host → ip:port) and optional rotating proxies.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, Pool, ProxyAgent, buildConnector } from './undici.js';
import type { ResolveOverride } from '../../config.js';
import { TrawlError, fetchFailed, forbiddenTarget, isTrawlError, timeoutError } from '../../errors.js';
import { checkAddress } from './address-guard.js';
import type { PageLease } from './large-pages.js';
import { chromeIdentity, navigationHeaders } from './chrome.js';
import { Cancel } from './http-cancel.js';
import { decodeContent, exchange } from './http-exchange.js';
import { checkUrl, isRedirect, redirectTarget } from './http-urls.js';
import type { Dispatcher } from 'undici';

// Where callers found it before the URL rules had a module of their own.
export { checkUrl } from './http-urls.js';

/** Desktop Chrome as it introduces itself (chrome.ts): no tool token unless the operator adds one. */
export const DEFAULT_USER_AGENT = chromeIdentity().userAgent;

export interface HttpClientOptions {
  /** Let requests reach loopback/private/link-local addresses. @default false */
  allowPrivateNetwork?: boolean;
  /** Host → address overrides (tests, fixtures served under their real host); trusted, not guarded. */
  resolve?: ResolveOverride[];
  /** Proxies to rotate through, e.g. `http://user:pass@proxy:8080` (the basic tier). */
  proxyUrls?: string[];
  /** The stealth tier's proxies (residential or mobile exits), used when a request asks for them. */
  stealthProxyUrls?: string[];
  /** @default DEFAULT_USER_AGENT */
  userAgent?: string;
  /** Appended to the User-Agent (the operator's `TRAWL_USER_AGENT_TOKEN`, e.g. "Trawl/0.1 (+https://…)"). */
  userAgentToken?: string;
  /** Open connections kept per origin. @default 64 */
  connectionsPerOrigin?: number;
  /** Name resolution (injected in tests so they never ask a real resolver). @default dns.promises.lookup */
  lookup?: (host: string) => Promise<{ address: string }[]>;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  /** Headers for one hop only (the caller's own, which go to the target's site and not past a redirect elsewhere); lower-case names. */
  hopHeaders?: (url: URL) => Record<string, string> | undefined;
  /** Told each hop's answer headers (a saved session takes its Set-Cookie back). */
  hopAnswered?: (url: URL, headers: Record<string, string>) => void;
  body?: string | Buffer;
  /** Total time budget for all hops and the body. @default 30000 */
  timeoutMs?: number;
  /** Largest decoded body accepted. @default 10 MiB */
  maxBytes?: number;
  /** @default 10 */
  maxRedirects?: number;
  /** Asked before each redirect hop; false stops with a fetch_failed carrying `fields.redirect`. */
  followRedirect?: (next: URL) => boolean | Promise<boolean>;
  signal?: AbortSignal;
  /** Admission for large bodies (large-pages.ts): reading pauses while the lease waits for a slot. */
  lease?: PageLease;
  /** Which proxies carry the request: the basic tier (HTTP_PROXY_URLS, or none) or the stealth tier. @default 'basic' */
  proxyTier?: ProxyTier;
  /** Return a redirect as it is (its body dropped) instead of following it (a browser routed through this client follows it itself). */
  manualRedirect?: boolean;
}

/** The proxy pools an operator configures (issue 42): `basic` is HTTP_PROXY_URLS (or direct), `stealth` TRAWL_STEALTH_PROXY_URLS. */
export type ProxyTier = 'basic' | 'stealth';

export interface HttpResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  redirects: string[];
}

export const DEFAULT_REQUEST: Required<
  Omit<
    RequestOptions,
    | 'body'
    | 'signal'
    | 'headers'
    | 'hopHeaders'
    | 'hopAnswered'
    | 'followRedirect'
    | 'lease'
    | 'proxyTier'
    | 'manualRedirect'
  >
> = {
  method: 'GET',
  timeoutMs: 30_000,
  maxBytes: 10 * 1024 * 1024,
  maxRedirects: 10,
};

export class HttpClient {
  readonly #opts: Required<
    Omit<HttpClientOptions, 'resolve' | 'proxyUrls' | 'stealthProxyUrls' | 'lookup' | 'userAgentToken'>
  >;
  readonly #baseHeaders: Record<string, string>;
  readonly #apiHeaders: Record<string, string>;
  readonly #lookup: (host: string) => Promise<{ address: string }[]>;
  readonly #overrides: Map<string, ResolveOverride>;
  readonly #agent: Agent;
  readonly #proxies: ProxyAgent[];
  readonly #proxyUrls: string[];
  readonly #stealth: ProxyAgent[];
  readonly #stealthUrls: string[];
  #proxyTurn = 0;
  #stealthTurn = 0;
  #closing?: Promise<void>;

  constructor(options: HttpClientOptions = {}) {
    this.#opts = {
      allowPrivateNetwork: options.allowPrivateNetwork ?? false,
      userAgent: options.userAgent ?? chromeIdentity(false, options.userAgentToken).userAgent,
      connectionsPerOrigin: options.connectionsPerOrigin ?? 64,
    };
    this.#baseHeaders = { ...navigationHeaders(chromeIdentity()), 'user-agent': this.#opts.userAgent };
    // A POST (webhooks, an LLM's API) is no navigation: no Sec-Fetch-* or client hints claiming one.
    this.#apiHeaders = {
      'user-agent': this.#opts.userAgent,
      accept: '*/*',
      'accept-encoding': this.#baseHeaders['accept-encoding'],
      'accept-language': 'en-US,en;q=0.9',
    };
    this.#overrides = new Map((options.resolve ?? []).map((r) => [r.host, r]));
    this.#lookup = options.lookup ?? ((host) => lookup(host, { all: true, verbatim: true }));
    const base = buildConnector({ timeout: 10_000 });
    this.#agent = new Agent({
      connections: this.#opts.connectionsPerOrigin,
      keepAliveTimeout: 10_000,
      connect: (opts, cb) => {
        this.#target(opts.hostname, Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80)).then(
          ({ address, port }) =>
            base(
              {
                ...opts,
                hostname: address,
                port: String(port),
                servername: opts.servername || (isIP(opts.hostname) ? undefined : opts.hostname),
              },
              cb,
            ),
          (err) => cb(err, null),
        );
      },
    });
    this.#proxyUrls = options.proxyUrls ?? [];
    this.#proxies = this.#proxyUrls.map((uri) => new ProxyAgent({ uri, clientFactory: tunnelClient }));
    this.#stealthUrls = options.stealthProxyUrls ?? [];
    this.#stealth = this.#stealthUrls.map((uri) => new ProxyAgent({ uri, clientFactory: tunnelClient }));
  }

  /** Whether the stealth tier has proxies (`proxy: "auto"` climbs to it only then). */
  get stealthAvailable(): boolean {
    return this.#stealth.length > 0;
  }

  /** The stealth tier's proxies (the browser's proxy chains to them for a stealth render). */
  get stealthProxyUrls(): string[] {
    return [...this.#stealthUrls];
  }

  /** Where to connect for host:port — the override, or a checked DNS answer. */
  async #target(hostname: string, port: number): Promise<{ address: string; port: number }> {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const override = this.#overrides.get(host);
    if (override) {
      // An operator's explicit host → address pin (like curl --connect-to) is trusted.
      return { address: override.address, port: override.port ?? port };
    }
    if (isIP(host)) {
      this.#check(host, host);
      return { address: host, port };
    }
    let answers: { address: string }[];
    try {
      answers = await this.#lookup(host);
    } catch (e) {
      throw fetchFailed(`could not resolve host ${host} (${(e as NodeJS.ErrnoException).code ?? 'DNS error'})`, e);
    }
    if (!answers.length) throw fetchFailed(`could not resolve host ${host}`);
    // Every answer must pass: a name that also resolves to a private address is refused.
    for (const a of answers) this.#check(a.address, host);
    return { address: answers[0].address, port };
  }

  /** How many proxies requests rotate through (0: direct). */
  get proxyCount(): number {
    return this.#proxies.length;
  }

  /**
   * Where to connect for host:port: the `TRAWL_RESOLVE` pin, or a DNS answer that passed the
   * guard (forbidden_target otherwise). The browser's proxy connects through this.
   */
  resolveTarget(hostname: string, port: number): Promise<{ address: string; port: number }> {
    return this.#target(hostname, port);
  }

  /** Proxies this client rotates through (the browser's proxy chains to the same ones). */
  get proxyUrls(): string[] {
    return [...this.#proxyUrls];
  }

  /** Throws forbidden_target when `url`'s host resolves to a refused address. */
  async checkTarget(url: string): Promise<void> {
    const u = checkUrl(url);
    await this.#target(u.hostname, Number(u.port) || (u.protocol === 'https:' ? 443 : 80));
  }

  #check(address: string, host: string): void {
    if (this.#opts.allowPrivateNetwork) return;
    const verdict = checkAddress(address);
    if (!verdict.allowed) {
      throw forbiddenTarget(
        `${host} resolves to ${address}, ${verdict.reason}; set TRAWL_ALLOW_PRIVATE_NETWORK=1 to allow private targets`,
      );
    }
  }

  #dispatcher(tier: ProxyTier = 'basic'): Dispatcher {
    if (tier === 'stealth') {
      if (!this.#stealth.length)
        throw new TrawlError(
          'invalid_request',
          'proxy: "stealth" needs stealth proxies, and this server has none configured (TRAWL_STEALTH_PROXY_URLS)',
        );
      return this.#stealth[this.#stealthTurn++ % this.#stealth.length];
    }
    if (!this.#proxies.length) return this.#agent;
    return this.#proxies[this.#proxyTurn++ % this.#proxies.length];
  }

  /** Send a request, following redirects; any HTTP status is returned, not thrown. */
  async request(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const o = { ...DEFAULT_REQUEST, ...definedOnly(options) };
    let current = checkUrl(url);
    // One timer and one listener for the whole request (all hops and the body); released in `finally`.
    const cancel = new Cancel(o.timeoutMs, options.signal);
    const redirects: string[] = [];
    let method = o.method;
    let body = options.body;
    // Chrome's navigation headers in Chrome's order; the caller's replace them in place.
    const headers = {
      ...(method === 'GET' ? this.#baseHeaders : this.#apiHeaders),
      ...lowerCased(options.headers),
    };
    try {
      for (let hop = 0; ; hop++) {
        const dispatcher = this.#dispatcher(options.proxyTier);
        // Through a proxy the connector is not ours: the address is checked here, and the proxy is
        // asked for that address (CONNECT address:port, the name as Host and TLS server name),
        // never the name — it would look the name up again, and a rebinding answer or its own
        // split-horizon DNS could then reach a private address.
        let sendTo = current;
        let host: Record<string, string> | undefined;
        if (dispatcher !== this.#agent) {
          const to = await this.#target(current.hostname, Number(current.port) || defaultPort(current));
          sendTo = new URL(current.href);
          sendTo.hostname = isIP(to.address) === 6 ? `[${to.address}]` : to.address;
          sendTo.port = String(to.port);
          host = { host: current.host };
        }
        cancel.check();
        const extra = options.hopHeaders?.(current);
        const res = await exchange(
          dispatcher,
          sendTo,
          method,
          host || extra ? { ...host, ...headers, ...extra } : headers,
          body,
          o.maxBytes,
          cancel,
          options.lease,
          options.signal,
        );
        options.hopAnswered?.(current, res.headers);
        const location = res.headers.location;
        if (isRedirect(res.status, res.headers) && !options.manualRedirect) {
          if (hop >= o.maxRedirects) throw fetchFailed(`too many redirects (more than ${o.maxRedirects}) from ${url}`);
          const next = redirectTarget(location, current);
          if (options.followRedirect && !(await options.followRedirect(next))) {
            throw new TrawlError('fetch_failed', `${current.href} redirects to ${next.href}, which was not followed`, {
              fields: { redirect: next.href, status: res.status },
              retryable: false,
            });
          }
          redirects.push(current.href);
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
          }
          current = next;
          continue;
        }
        const decoded = await decodeContent(res.body, res.headers['content-encoding'], o.maxBytes, current.href);
        return { url: current.href, status: res.status, headers: res.headers, body: decoded, redirects };
      }
    } catch (e) {
      // The site answered; the time went waiting for memory that other pages (of any account) held.
      if (cancel.timedOut && options.lease?.waitingForSlot) {
        const { gate } = options.lease;
        throw timeoutError(
          `${url} answered with a body over ${Math.round(gate.largeBytes / 2 ** 20)} MiB, and all ${gate.slots} large-page slots of this server (TRAWL_LARGE_PAGES) stayed busy for the rest of the page's ${o.timeoutMs} ms; the page was not read`,
          e,
        );
      }
      throw this.#wrap(e, url, cancel.timedOut, o.timeoutMs);
    } finally {
      cancel.done();
    }
  }

  #wrap(e: unknown, url: string, timedOut: boolean, timeoutMs: number): TrawlError {
    if (isTrawlError(e)) return e;
    const cause = (e as { cause?: unknown })?.cause;
    if (isTrawlError(cause)) return cause;
    if (timedOut) return timeoutError(`${url} did not answer within ${timeoutMs} ms`, e);
    const err = e as NodeJS.ErrnoException;
    if (err?.name === 'AbortError')
      return new TrawlError('fetch_failed', `the request to ${url} was cancelled`, { cause: e });
    const code = err?.code ?? (cause as NodeJS.ErrnoException)?.code;
    const reason =
      code === 'ECONNREFUSED'
        ? 'connection refused'
        : code === 'ENOTFOUND'
          ? 'host not found'
          : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
            ? 'connection reset'
            : code === 'UND_ERR_CONNECT_TIMEOUT'
              ? 'connect timeout'
              : code && /CERT|SSL|TLS/.test(code)
                ? `TLS error (${code})`
                : (err?.message ?? 'network error');
    return fetchFailed(`could not fetch ${url}: ${reason}`, e);
  }

  close(): Promise<void> {
    this.#closing ??= Promise.all([
      this.#agent.close(),
      ...this.#proxies.map((p) => p.close()),
      ...this.#stealth.map((p) => p.close()),
    ]).then(() => undefined);
    return this.#closing;
  }
}

function lowerCased(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  let lower = true;
  for (const k in headers) if (k !== k.toLowerCase()) lower = false;
  if (lower) return headers;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

export function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

const defaultPort = (u: URL) => (u.protocol === 'https:' ? 443 : 80);

/**
 * The client to a proxy that opens tunnels (CONNECT). A proxy that closes the connection instead
 * of answering (its upstream refused) makes undici's CONNECT fail with a socket error, which
 * undici takes for a dropped keep-alive connection and retries at once, for ever: ~4,000 CONNECTs
 * a second at the operator's proxy, past every timeout (measured). Here that failure is the
 * request's: a `fetch_failed` naming the proxy's refusal, no retry.
 */
function tunnelClient(origin: URL, options: object): Pool {
  const pool = new Pool(origin, options);
  const connect = pool.connect.bind(pool) as (params: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  (pool as { connect: unknown }).connect = async (params: Dispatcher.ConnectOptions) => {
    try {
      return await connect(params);
    } catch (e) {
      if ((e as { code?: string }).code !== 'UND_ERR_SOCKET') throw e;
      throw fetchFailed(`the proxy closed the connection instead of opening a tunnel to ${params.path}`, e);
    }
  };
  return pool;
}
