/**
 * Chromium rendering through playwright-core and the system's Chromium (Debian `chromium`).
 * One browser is launched lazily and shared; each render gets its own context (no cookies
 * leak between requests). Every request the page makes passes the same SSRF check as the
 * HTTP client, so a page cannot make the browser fetch a private address for it.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { TrawlError, fetchFailed, timeoutError } from '../../errors.js';
import type { HttpClient } from './http.js';

export interface RenderResult {
  url: string;
  status: number;
  contentType: string;
  html: string;
}

export interface RenderOptions {
  timeoutMs: number;
  waitFor?: string | number;
  signal?: AbortSignal;
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
];

export function findChromium(configured?: string): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

export interface ChromiumPoolOptions {
  executablePath?: string;
  /** Used to check every URL the page requests. */
  http: HttpClient;
  /** Renders at once; more wait. @default 4 */
  maxConcurrent?: number;
}

export class ChromiumPool implements BrowserPool {
  readonly #path?: string;
  readonly #http: HttpClient;
  readonly #max: number;
  #browser?: Promise<Browser>;
  #active = 0;
  #waiting: (() => void)[] = [];
  #closing?: Promise<void>;

  constructor(options: ChromiumPoolOptions) {
    this.#path = findChromium(options.executablePath);
    this.#http = options.http;
    this.#max = options.maxConcurrent ?? 4;
  }

  get available(): boolean {
    return !!this.#path && !this.#closing;
  }

  #launch(): Promise<Browser> {
    this.#browser ??= import('playwright-core').then(({ chromium }) =>
      chromium.launch({ executablePath: this.#path, args: ARGS, headless: true }),
    );
    this.#browser.catch(() => (this.#browser = undefined));
    return this.#browser;
  }

  async #slot(): Promise<() => void> {
    if (this.#active >= this.#max) await new Promise<void>((r) => this.#waiting.push(r));
    this.#active++;
    return () => {
      this.#active--;
      this.#waiting.shift()?.();
    };
  }

  async render(url: string, options: RenderOptions): Promise<RenderResult> {
    if (!this.available) throw new TrawlError('fetch_failed', 'Chromium is not available on this server', { retryable: false });
    const release = await this.#slot();
    const deadline = Date.now() + options.timeoutMs;
    const browser = await this.#launch().catch((e) => {
      release();
      throw fetchFailed(`Chromium could not be started: ${(e as Error).message.split('\n')[0]}`, e);
    });
    const context = await browser.newContext({ javaScriptEnabled: true, ignoreHTTPSErrors: false });
    let refused: TrawlError | undefined;
    try {
      await context.route('**/*', async (route) => {
        const reqUrl = route.request().url();
        if (!/^https?:/.test(reqUrl)) return route.continue();
        try {
          await this.#http.checkTarget(reqUrl);
          await route.continue();
        } catch (e) {
          if (route.request().isNavigationRequest() && e instanceof TrawlError) refused ??= e;
          await route.abort('blockedbyclient');
        }
      });
      const page = await context.newPage();
      const onAbort = () => void context.close().catch(() => undefined);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const response = await page.goto(url, { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) }).catch((e) => {
        if (refused) throw refused;
        if (/Timeout/i.test((e as Error).name) || /Timeout/.test((e as Error).message)) throw timeoutError(`${url} did not load within ${options.timeoutMs} ms`, e);
        throw fetchFailed(`could not load ${url} in Chromium: ${(e as Error).message.split('\n')[0]}`, e);
      });
      if (refused) throw refused;
      const remaining = () => Math.max(1, deadline - Date.now());
      if (typeof options.waitFor === 'number') await page.waitForTimeout(Math.min(options.waitFor, remaining()));
      else if (options.waitFor) {
        await page.waitForSelector(options.waitFor, { timeout: remaining() }).catch((e) => {
          throw timeoutError(`wait_for: "${options.waitFor}" did not appear within the time budget`, e);
        });
      } else await page.waitForLoadState('networkidle', { timeout: Math.min(3000, remaining()) }).catch(() => undefined);
      const html = await page.content();
      options.signal?.removeEventListener('abort', onAbort);
      return {
        url: page.url(),
        status: response?.status() ?? 200,
        contentType: (await response?.headerValue('content-type').catch(() => null)) ?? 'text/html',
        html,
      };
    } finally {
      await context.close().catch(() => undefined);
      release();
    }
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      const b = await this.#browser?.catch(() => undefined);
      await b?.close().catch(() => undefined);
    })();
    return this.#closing;
  }
}
