/**
 * Chromium rendering through playwright-core and the system's Chromium (Debian `chromium`).
 * One browser is launched lazily and shared; each render gets its own context (no cookies
 * leak between requests). Chromium reaches the network only through the guarded proxy
 * (browser-proxy.ts): the browser-wide proxy refuses everything, each render's context gets a
 * session of its own, loopback is not exempt, and Chromium's own resolver answers no name —
 * so whatever a page does (redirects, script navigations, sub-resources, WebSockets), its
 * bytes pass the same address guard as the HTTP client, on the resolved address.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { TrawlError, fetchFailed, timeoutError } from '../../errors.js';
import { GuardedProxy, authorityKey, type ProxySession } from './browser-proxy.js';
import { FairSlots } from './fair-slots.js';
import type { HttpClient } from './http.js';

export interface RenderResult {
  url: string;
  status: number;
  contentType: string;
  html: string;
  /** Requests of the page the guard refused (sub-resources, sockets, frames) and cut transfers. */
  warnings?: string[];
}

export interface RenderOptions {
  timeoutMs: number;
  waitFor?: string | number;
  signal?: AbortSignal;
  /** Whose render (an account): render slots are shared fairly between owners. */
  owner?: string;
}

export interface BrowserPool {
  readonly available: boolean;
  render(url: string, options: RenderOptions): Promise<RenderResult>;
  close(): Promise<void>;
}

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--mute-audio',
  // Nothing around the proxy: no name resolved by Chromium (the proxy resolves), no UDP that
  // WebRTC would send outside it, no prefetching.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--dns-prefetch-disable', '--disable-features=NetworkPrediction,NetworkServiceInProcess',
];
const NO_WEBRTC = `for (const k of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceCandidate', 'RTCSessionDescription']) { try { delete globalThis[k]; } catch {} }`;
/** Chromium exempts loopback from proxies unless told otherwise. */
const BYPASS = '<-loopback>';

const sizeOf = (n: number) => (n >= 2 ** 20 ? `${Math.round(n / 2 ** 20)} MiB` : `${Math.round(n / 1024)} KiB`);

/** Chromium gets no secret of the service's environment (a renderer exploit would read them): only what it needs to run. */
const KEEP_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ', 'FONTCONFIG_PATH', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_RUNTIME_DIR'];
function browserEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of KEEP_ENV) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return env;
}

export function findChromium(configured?: string): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

export interface ChromiumPoolOptions {
  executablePath?: string;
  /** Resolves and checks every host the page reaches (and gives the upstream proxies). */
  http: HttpClient;
  /** Bytes one render may download in all. @default 64 MiB */
  maxBytes?: number;
  /** Renders at once; more wait. @default 4 */
  maxConcurrent?: number;
}

export class ChromiumPool implements BrowserPool {
  readonly #path?: string;
  readonly #proxy: GuardedProxy;
  readonly #max: number;
  #browser?: Promise<Browser>;
  #denyAll?: ProxySession;
  /** Render slots, shared fairly between owners (accounts). */
  readonly #slots: FairSlots;
  #closing?: Promise<void>;

  constructor(options: ChromiumPoolOptions) {
    this.#path = findChromium(options.executablePath);
    const http = options.http;
    this.#proxy = new GuardedProxy({ resolveTarget: (h, p) => http.resolveTarget(h, p), proxyUrls: http.proxyUrls, maxBytes: options.maxBytes });
    this.#max = options.maxConcurrent ?? 4;
    this.#slots = new FairSlots(this.#max, undefined, 'Chromium render slots');
  }

  get available(): boolean {
    return !!this.#path && !this.#closing;
  }

  #launch(): Promise<Browser> {
    this.#browser ??= (async () => {
      const { chromium } = await import('playwright-core');
      // Browser-wide proxy: refuses everything; only a render's own session lets bytes through.
      this.#denyAll ??= await this.#proxy.denyAll();
      return chromium.launch({ executablePath: this.#path, args: ARGS, headless: true, env: browserEnv(), proxy: { server: this.#denyAll.server, bypass: BYPASS } });
    })();
    this.#browser.catch(() => (this.#browser = undefined));
    return this.#browser;
  }

  async render(url: string, options: RenderOptions): Promise<RenderResult> {
    if (!this.available) throw new TrawlError('fetch_failed', 'Chromium is not available on this server', { retryable: false });
    const deadline = Date.now() + options.timeoutMs;
    // The wait comes out of the render's own budget and ends when its client goes away.
    const release = await this.#slots.take(options.owner ?? '', options.timeoutMs, options.signal);
    const browser = await this.#launch().catch((e) => {
      release();
      throw fetchFailed(`Chromium could not be started: ${(e as Error).message.split('\n')[0]}`, e);
    });
    let session: ProxySession;
    try {
      session = await this.#proxy.open();
    } catch (e) {
      release();
      throw fetchFailed('could not open the browser proxy', e);
    }
    const context = await browser
      .newContext({ javaScriptEnabled: true, ignoreHTTPSErrors: false, serviceWorkers: 'block', proxy: { server: session.server, bypass: BYPASS } })
      .catch(async (e) => {
        await session.close();
        release();
        throw fetchFailed(`Chromium could not open a page: ${(e as Error).message.split('\n')[0]}`, e);
      });
    // WebRTC sends STUN over UDP, which no HTTP proxy carries, and headless Chromium ignores the
    // ip-handling policy above: pages get no peer connections (nothing to extract needs them).
    await context.addInitScript(NO_WEBRTC).catch(() => undefined);
    // Main-frame navigations (the first load, its redirect hops, script navigations): a refused
    // one refuses the whole request, as a refused redirect hop does on the HTTP path.
    const navigations: string[] = [];
    const refusedNavigation = () => {
      for (const u of navigations) {
        const url = new URL(u);
        const e = session.refused.get(authorityKey(url.hostname, Number(url.port) || (url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80)));
        if (e) return e;
      }
      return undefined;
    };
    try {
      const page = await context.newPage();
      page.on('request', (r) => {
        if (r.isNavigationRequest() && r.frame() === page.mainFrame() && /^https?:/.test(r.url())) navigations.push(r.url());
      });
      const onAbort = () => void context.close().catch(() => undefined);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      // Gone while Chromium started or the context opened: render nothing.
      options.signal?.throwIfAborted();
      const response = await page.goto(url, { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) }).catch((e) => {
        const refused = refusedNavigation();
        if (refused) throw refused;
        if (/Timeout/i.test((e as Error).name) || /Timeout/.test((e as Error).message)) throw timeoutError(`${url} did not load within ${options.timeoutMs} ms`, e);
        throw fetchFailed(`could not load ${url} in Chromium: ${(e as Error).message.split('\n')[0]}`, e);
      });
      const remaining = () => Math.max(1, deadline - Date.now());
      if (typeof options.waitFor === 'number') await page.waitForTimeout(Math.min(options.waitFor, remaining()));
      else if (options.waitFor) {
        await page.waitForSelector(options.waitFor, { timeout: remaining() }).catch((e) => {
          throw refusedNavigation() ?? timeoutError(`wait_for: "${options.waitFor}" did not appear within the time budget`, e);
        });
      } else await page.waitForLoadState('networkidle', { timeout: Math.min(3000, remaining()) }).catch(() => undefined);
      const html = await page.content().catch((e) => {
        throw refusedNavigation() ?? fetchFailed(`could not read ${url} in Chromium: ${(e as Error).message.split('\n')[0]}`, e);
      });
      const refused = refusedNavigation();
      if (refused) throw refused;
      options.signal?.removeEventListener('abort', onAbort);
      const warnings: string[] = [];
      if (session.refused.size) {
        const hosts = [...session.refused.keys()].slice(0, 5).join(', ');
        warnings.push(`the page's requests to ${session.refused.size} private or forbidden address(es) were refused (${hosts}); their content is missing`);
      }
      if (session.overBudget) warnings.push(`the page downloaded more than ${sizeOf(this.#proxy.maxBytes)}; its remaining transfers were cut`);
      return {
        url: page.url(),
        status: response?.status() ?? 200,
        contentType: (await response?.headerValue('content-type').catch(() => null)) ?? 'text/html',
        html,
        ...(warnings.length ? { warnings } : {}),
      };
    } finally {
      await context.close().catch(() => undefined);
      await session.close();
      release();
    }
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const b = await this.#browser?.catch(() => undefined);
      await b?.close().catch(() => undefined);
      await this.#proxy.close();
    })();
    return this.#closing;
  }
}
