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
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { TrawlError, fetchFailed, isTrawlError, timeoutError } from '../../errors.js';
import { runActions, type Action, type ActionOutput } from './actions.js';
import { capture, DEFAULT_SCREENSHOT_MAX_BYTES, type ImageFormat, type ScreenshotSpec } from './screenshot.js';
import { GuardedProxy, authorityKey, type ProxySession } from './browser-proxy.js';
import {
  contextOptions,
  isPlainSetup,
  languageTags,
  languagesOf,
  lowerCaseHeaders,
  viewportOf,
  type PageSetup,
} from './emulation.js';
import { FairSlots } from './fair-slots.js';
import type { HttpClient, ProxyTier } from './http.js';
import { ASKS_A_HUMAN, detectBotWall, wallKind } from './bot-wall.js';
import { CHROME_MAJOR, FINGERPRINT_SCRIPT, chromeIdentity, userAgentMetadata } from './chrome.js';
import { siteOf } from './site.js';

export interface RenderResult {
  url: string;
  status: number;
  contentType: string;
  html: string;
  /** Requests of the page the guard refused (sub-resources, sockets, frames) and cut transfers. */
  warnings?: string[];
  /** The page as it was read, when a screenshot was asked for. */
  screenshot?: Buffer;
  /** What the actions produced, when there were any. */
  actions?: ActionOutput;
}

export interface RenderOptions {
  timeoutMs: number;
  waitFor?: string | number;
  signal?: AbortSignal;
  /** Whose render (an account): render slots are shared fairly between owners. */
  owner?: string;
  /** Viewport, device, location, and the caller's headers and cookies (to the target's site only). */
  setup?: PageSetup;
  /** Steps run on the loaded page before it is read (actions.ts). */
  actions?: Action[];
  /** A screenshot of the page once it is read. */
  screenshot?: ScreenshotSpec;
  /** Format of the actions' screenshots. @default 'png' */
  imageFormat?: ImageFormat;
  /** Which proxies carry the page's traffic (http.ts ProxyTier). @default 'basic' */
  proxyTier?: ProxyTier;
  /**
   * When the page is a challenge a browser passes by itself (bot-wall.ts `script` walls), wait
   * within the budget for it to clear (its script sets the clearance cookie and reloads). A page
   * that asks a person stops the wait: captchas are never solved.
   */
  clearChallenge?: boolean;
}

export interface BrowserPool {
  readonly available: boolean;
  render(url: string, options: RenderOptions): Promise<RenderResult>;
  close(): Promise<void>;
}

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
/**
 * Chromium reads only the last `--disable-features`, and Playwright passes its own before ours: its
 * list (playwright-core 1.65's chromiumSwitches) is repeated here so that ours does not undo it —
 * without it Chromium tries every http:// navigation over https first (HttpsUpgrades) and holds
 * paint (PaintHolding).
 */
const DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  // Ours: no prefetching around the proxy; the network service in its own process.
  'NetworkPrediction',
  'NetworkServiceInProcess',
  // Every new window of the full headless browser preloads the address bar's WebUI popups in a renderer of their own: ~2× the CPU of a simple page.
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
];
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--mute-audio',
  // navigator.webdriver stays false: no page can read that the browser is driven (issue 42).
  '--disable-blink-features=AutomationControlled',
  // Nothing around the proxy: no name resolved by Chromium (the proxy resolves), no UDP that
  // WebRTC would send outside it, no prefetching.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--dns-prefetch-disable',
  `--disable-features=${DISABLED_FEATURES.join(',')}`,
];
const NO_WEBRTC = `for (const k of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceCandidate', 'RTCSessionDescription']) { try { delete globalThis[k]; } catch {} }`;
/** Chromium exempts loopback from proxies unless told otherwise. */
const BYPASS = '<-loopback>';
/** After load, a page is read once no request has been in flight this long (and its scripts are idle)… */
export const QUIET_MS = 150;
/** …or after this much, whichever comes first. */
const SETTLE_MAX_MS = 3000;

/** A context of its own for one render: its proxy session, its context, its page. */
interface Tab {
  session: ProxySession;
  context: BrowserContext;
  page: Page;
  /** A remote browser's navigations whose redirects the guarded client followed: first URL → last. */
  finalUrls: Map<string, string>;
}

const sizeOf = (n: number) => (n >= 2 ** 20 ? `${Math.round(n / 2 ** 20)} MiB` : `${Math.round(n / 1024)} KiB`);

/** Chromium gets no secret of the service's environment (a renderer exploit would read them): only what it needs to run. */
const KEEP_ENV = [
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'TZ',
  'FONTCONFIG_PATH',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
];
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
  /** Bytes of page HTML a render's `scrape` steps may keep in all (what one answer may hold). @default 32 MiB */
  maxSnapshotBytes?: number;
  /** Renders at once; more wait. @default 4 */
  maxConcurrent?: number;
  /** Bytes one screenshot may take (TRAWL_SCREENSHOT_MAX_MB); a larger picture is taken again, scaled. @default 10 MiB */
  screenshotMaxBytes?: number;
  /**
   * A remote browser instead of a local Chromium (TRAWL_BROWSER_WS_ENDPOINT `ws://…` or
   * TRAWL_BROWSER_CDP_URL `http://host:port`), connected over the DevTools protocol. Its pages'
   * requests are intercepted and made by this service's guarded client (see `routeThroughGuard`).
   */
  endpoint?: string;
  /** Appended to the User-Agent (TRAWL_USER_AGENT_TOKEN). */
  userAgentToken?: string;
}

export class ChromiumPool implements BrowserPool {
  readonly #path?: string;
  readonly #endpoint?: string;
  readonly #http: HttpClient;
  readonly #token?: string;
  /** The browser's full version ("156.0.8078.108"), once launched: the identity's brands and hints follow it. */
  #version = `${CHROME_MAJOR}.0.0.0`;
  readonly #proxy: GuardedProxy;
  readonly #max: number;
  readonly #shotBytes: number;
  #browser?: Promise<Browser>;
  #denyAll?: ProxySession;
  /** A tab opened ahead for the next plain render (no device or locale): a new page is the costliest step of a render. */
  #spare?: Promise<Tab>;
  /** Tabs of finished renders still closing (the answer does not wait for them; close() does). */
  readonly #closingTabs = new Set<Promise<void>>();
  /** Render slots, shared fairly between owners (accounts). */
  readonly #slots: FairSlots;
  readonly #snapshotBytes: number;
  #closing?: Promise<void>;

  constructor(options: ChromiumPoolOptions) {
    this.#endpoint = options.endpoint;
    this.#path = this.#endpoint ? undefined : findChromium(options.executablePath);
    const http = options.http;
    this.#http = http;
    this.#token = options.userAgentToken;
    this.#proxy = new GuardedProxy({
      resolveTarget: (h, p) => http.resolveTarget(h, p),
      proxyUrls: http.proxyUrls,
      stealthProxyUrls: http.stealthProxyUrls,
      maxBytes: options.maxBytes,
    });
    this.#max = options.maxConcurrent ?? 4;
    this.#shotBytes = options.screenshotMaxBytes ?? DEFAULT_SCREENSHOT_MAX_BYTES;
    this.#snapshotBytes = options.maxSnapshotBytes ?? 32 * 2 ** 20;
    this.#slots = new FairSlots(this.#max, undefined, 'Chromium render slots');
  }

  get available(): boolean {
    return (!!this.#path || !!this.#endpoint) && !this.#closing;
  }

  /** Whether pages render in a remote browser (TRAWL_BROWSER_WS_ENDPOINT / TRAWL_BROWSER_CDP_URL). */
  get remote(): boolean {
    return !!this.#endpoint;
  }

  #launch(): Promise<Browser> {
    this.#browser ??= (async () => {
      const { chromium } = await import('playwright-core');
      // Browser-wide proxy: refuses everything; only a render's own session lets bytes through.
      this.#denyAll ??= await this.#proxy.denyAll();
      const browser = this.#endpoint
        ? await chromium.connectOverCDP(this.#endpoint, { timeout: 15_000 })
        : await chromium.launch({
            executablePath: this.#path,
            args: ARGS,
            // Playwright's --enable-automation shows the automation banner and sets navigator.webdriver.
            ignoreDefaultArgs: ['--enable-automation'],
            headless: true,
            env: browserEnv(),
            proxy: { server: this.#denyAll.server, bypass: BYPASS },
          });
      if (/^\d+\.\d+\.\d+\.\d+$/.test(browser.version())) this.#version = browser.version();
      // A crashed browser is launched again on the next render (its spare tab went with it).
      browser.on('disconnected', () => {
        this.#browser = undefined;
        this.#spare = undefined;
      });
      return browser;
    })();
    this.#browser.catch(() => (this.#browser = undefined));
    return this.#browser;
  }

  async #openTab(browser: Browser, setup: PageSetup | undefined, tier: ProxyTier = 'basic'): Promise<Tab> {
    const session = await this.#proxy.open(false, tier).catch((e) => {
      throw fetchFailed('could not open the browser proxy', e);
    });
    let context: BrowserContext | undefined;
    try {
      const identity = chromeIdentity(!!setup?.mobile, this.#token, Number(this.#version.split('.')[0]));
      const viewport = viewportOf(setup);
      context = await browser.newContext({
        javaScriptEnabled: true,
        ignoreHTTPSErrors: false,
        serviceWorkers: 'block',
        ...contextOptions(setup),
        // The identity of chrome.ts (no "HeadlessChrome"), a screen larger than the window (headless: equal).
        userAgent: identity.userAgent,
        screen: setup?.mobile
          ? viewport
          : { width: Math.max(1920, viewport.width), height: Math.max(1080, viewport.height + 85) },
        // A remote browser's requests are all routed through the guarded client (routeThroughGuard);
        // its context's proxy refuses everything (and is a loopback port of this machine, which a
        // browser elsewhere cannot even reach): whatever escapes interception fails closed.
        proxy: { server: this.#endpoint && this.#denyAll ? this.#denyAll.server : session.server, bypass: BYPASS },
      });
      const finalUrls = new Map<string, string>();
      if (this.#endpoint) await routeThroughGuard(context, this.#http, session, tier, finalUrls, this.#proxy.maxBytes);
      // WebRTC sends STUN over UDP, which no HTTP proxy carries, and headless Chromium ignores the
      // ip-handling policy above: pages get no peer connections (nothing to extract needs them).
      await context.addInitScript(NO_WEBRTC).catch(() => undefined);
      await context.addInitScript(FINGERPRINT_SCRIPT).catch(() => undefined);
      const page = await context.newPage();
      const languages = setup?.location ? languagesOf(setup.location) : ['en-US'];
      // Playwright sends its locale alone as the document's Accept-Language and navigator.languages;
      // the whole list goes through the DevTools override (sub-resources get it from the context's
      // headers), with the brands and platform of the identity (navigator.userAgentData, sec-ch-ua).
      const cdp = await context.newCDPSession(page);
      // The session stays open with the page: an override ends with the session that set it.
      await cdp.send('Emulation.setUserAgentOverride', {
        userAgent: identity.userAgent,
        acceptLanguage: languageTags(languages).join(','),
        platform: identity.navigatorPlatform,
        userAgentMetadata: userAgentMetadata(identity, this.#version),
      });
      return { session, context, page, finalUrls };
    } catch (e) {
      await context?.close().catch(() => undefined);
      await session.close();
      throw fetchFailed(`Chromium could not open a page: ${(e as Error).message.split('\n')[0]}`, e);
    }
  }

  /** The spare tab when the render can use it (its viewport set), else a new tab. */
  async #tabFor(browser: Browser, setup: PageSetup | undefined, tier: ProxyTier = 'basic'): Promise<Tab> {
    const spare = isPlainSetup(setup) && tier === 'basic' ? this.#spare : undefined;
    if (spare) {
      // The next one opens once this render's tab is closed (opening it beside the render slowed both on 2 cores).
      this.#spare = undefined;
      const tab = await spare.catch(() => undefined);
      if (tab && !tab.page.isClosed()) {
        const want = viewportOf(setup);
        const has = tab.page.viewportSize();
        if (has?.width !== want.width || has?.height !== want.height) await tab.page.setViewportSize(want);
        return tab;
      }
    }
    return this.#openTab(browser, setup, tier);
  }

  /** Opens the next spare tab in the background (once a render has shown the browser is used). */
  #refill(): void {
    if (this.#spare || this.#closing || !this.#browser) return;
    const spare = this.#browser.then((b) => this.#openTab(b, undefined));
    spare.catch(() => {
      if (this.#spare === spare) this.#spare = undefined;
    });
    this.#spare = spare;
  }

  async #closeTab(tab: Tab): Promise<void> {
    await tab.context.close().catch(() => undefined);
    await tab.session.close();
  }

  async render(url: string, options: RenderOptions): Promise<RenderResult> {
    if (!this.available)
      throw new TrawlError('fetch_failed', 'Chromium is not available on this server', { retryable: false });
    const deadline = Date.now() + options.timeoutMs;
    // The wait comes out of the render's own budget and ends when its client goes away.
    const release = await this.#slots.take(options.owner ?? '', options.timeoutMs, options.signal);
    let tab: Tab;
    try {
      const browser = await this.#launch().catch((e) => {
        throw fetchFailed(`Chromium could not be started: ${(e as Error).message.split('\n')[0]}`, e);
      });
      tab = await this.#tabFor(browser, options.setup, options.proxyTier);
    } catch (e) {
      release();
      throw e;
    }
    const onAbort = () => void tab.context.close().catch(() => undefined);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#renderIn(tab, url, options, deadline);
    } catch (e) {
      // Chromium gone mid-render (killed, crashed): Playwright's own error would be a 500.
      if (e instanceof TrawlError || options.signal?.aborted) throw e;
      throw fetchFailed(`Chromium stopped while reading ${url}: ${(e as Error).message.split('\n')[0]}`, e);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      // The answer does not wait for the tab to close; the render's slot does.
      const closed = this.#closeTab(tab).finally(() => {
        this.#closingTabs.delete(closed);
        release();
        this.#refill();
      });
      this.#closingTabs.add(closed);
    }
  }

  async #renderIn(
    { session, context, page, finalUrls }: Tab,
    url: string,
    options: RenderOptions,
    deadline: number,
  ): Promise<RenderResult> {
    const setup = options.setup;
    // A cookie with a domain goes to it and the hosts under it (Playwright's leading dot); without one, to the URL's host only.
    if (setup?.cookies?.length)
      await context.addCookies(
        setup.cookies.map((c) =>
          c.domain
            ? { name: c.name, value: c.value, domain: `.${c.domain.replace(/^\./, '')}`, path: c.path ?? '/' }
            : { name: c.name, value: c.value, url: new URL(c.path ?? '/', url).href },
        ),
      );
    const headers = lowerCaseHeaders(setup?.headers);
    if (Object.keys(headers).length) await sendToSite(context, url, headers, deadline);
    // Main-frame navigations (the first load, its redirect hops, script navigations): a refused
    // one refuses the whole request, as a refused redirect hop does on the HTTP path.
    const navigations: string[] = [];
    const refusedNavigation = () => {
      for (const u of navigations) {
        const url = new URL(u);
        const e = session.refused.get(
          authorityKey(
            url.hostname,
            Number(url.port) || (url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80),
          ),
        );
        if (e) return e;
      }
      return undefined;
    };
    const traffic = { inflight: 0, last: Date.now() };
    let document: Response | undefined;
    page.on('request', (r) => {
      traffic.inflight++;
      traffic.last = Date.now();
      if (r.isNavigationRequest() && r.frame() === page.mainFrame() && /^https?:/.test(r.url()))
        navigations.push(r.url());
    });
    const done = () => {
      traffic.inflight = Math.max(0, traffic.inflight - 1);
      traffic.last = Date.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    // The page's own document: the last main-frame answer that is not a redirect.
    page.on('response', (r) => {
      if (
        r.request().isNavigationRequest() &&
        r.frame() === page.mainFrame() &&
        (r.status() < 300 || r.status() >= 400)
      )
        document = r;
    });
    // Gone while Chromium started or the context opened: render nothing.
    options.signal?.throwIfAborted();
    const response = await page
      .goto(url, { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) })
      .catch((e) => {
        const refused = refusedNavigation();
        if (refused) throw refused;
        if (/Timeout/i.test((e as Error).name) || /Timeout/.test((e as Error).message))
          throw timeoutError(`${url} did not load within ${options.timeoutMs} ms`, e);
        throw fetchFailed(`could not load ${url} in Chromium: ${(e as Error).message.split('\n')[0]}`, e);
      });
    const remaining = () => Math.max(1, deadline - Date.now());
    if (typeof options.waitFor === 'number') await page.waitForTimeout(Math.min(options.waitFor, remaining()));
    else if (options.waitFor) {
      await page.waitForSelector(options.waitFor, { timeout: remaining() }).catch((e) => {
        throw (
          refusedNavigation() ?? timeoutError(`wait_for: "${options.waitFor}" did not appear within the time budget`, e)
        );
      });
    } else await settle(page, traffic, Math.min(SETTLE_MAX_MS, remaining()));
    if (options.clearChallenge) {
      // The challenge's script runs, sets its clearance cookie and reloads: wait for the page it lets through.
      if (await clearChallenge(page, () => document?.status() ?? response?.status() ?? 200, deadline, traffic))
        await settle(page, traffic, Math.min(SETTLE_MAX_MS, remaining()));
    }
    const refusedEarly = refusedNavigation();
    if (refusedEarly) throw refusedEarly;
    // Consent walls (issue 42) go before the caller's steps, the read and the screenshot.
    if (await page.evaluate(DISMISS_CONSENT).catch(() => false)) await page.waitForTimeout(Math.min(150, remaining()));
    // What screenshots cut or scaled, in step order, the page's own last.
    const shotNotes: string[] = [];
    const actions = options.actions?.length
      ? await runActions(page, options.actions, {
          deadline,
          timeoutMs: options.timeoutMs,
          format: options.imageFormat ?? 'png',
          screenshotMaxBytes: this.#shotBytes,
          warn: (m) => shotNotes.push(m),
          refused: refusedNavigation,
          navigations: () => navigations.length,
          snapshotBytes: this.#snapshotBytes,
        })
      : undefined;
    // The page is read and photographed at once: the two are independent round trips to Chromium.
    // Once the caller's steps ran, the page may have left the service through them (a script sent
    // it, then left the page's thread busy so it could not be read): whatever fails from here on
    // keeps its credit, as a failing step does (API.md: actions), and the read ends at the deadline
    // (a busy page never answers page.content(); the request's outer budget would say 504, free).
    const [html, shot] = await Promise.all([
      byDeadline(
        page.content(),
        remaining(),
        () => `${url} could not be read within the time budget (timeout_ms ${options.timeoutMs})`,
      ).catch((e) => {
        throw (
          refusedNavigation() ??
          (isTrawlError(e)
            ? e
            : fetchFailed(`could not read ${url} in Chromium: ${(e as Error).message.split('\n')[0]}`, e))
        );
      }),
      options.screenshot
        ? capture(page, options.screenshot, remaining(), this.#shotBytes).catch((e) => {
            if (/Timeout/.test((e as Error).message))
              throw timeoutError(
                `the screenshot of ${url} was not done within the time budget (timeout_ms ${options.timeoutMs})`,
                e,
              );
            throw fetchFailed(`could not take a screenshot of ${url}: ${(e as Error).message.split('\n')[0]}`, e);
          })
        : undefined,
    ]).catch((e) => {
      throw actions && isTrawlError(e) ? e.keepCredit() : e;
    });
    const refused = refusedNavigation();
    if (refused) throw actions ? refused.keepCredit() : refused;
    if (shot?.note) shotNotes.push(`screenshot: ${shot.note}`);
    const warnings: string[] = [...shotNotes];
    if (session.refused.size) {
      const hosts = [...session.refused.keys()].slice(0, 5).join(', ');
      warnings.push(
        `the page's requests to ${session.refused.size} private or forbidden address(es) were refused (${hosts}); their content is missing`,
      );
    }
    if (session.overBudget)
      warnings.push(`the page downloaded more than ${sizeOf(this.#proxy.maxBytes)}; its remaining transfers were cut`);
    const answer = document ?? response;
    return {
      url: finalUrls.get(page.url()) ?? page.url(),
      status: answer?.status() ?? 200,
      // The answer's headers as first seen (no round trip); the full set only when they lack it.
      contentType:
        answer?.headers()['content-type'] ??
        (await answer?.headerValue('content-type').catch(() => null)) ??
        'text/html',
      html,
      ...(warnings.length ? { warnings } : {}),
      ...(shot ? { screenshot: shot.bytes } : {}),
      ...(actions ? { actions } : {}),
    };
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all(this.#closingTabs);
      const spare = await this.#spare?.catch(() => undefined);
      if (spare) await this.#closeTab(spare);
      const b = await this.#browser?.catch(() => undefined);
      await b?.close().catch(() => undefined);
      await this.#proxy.close();
    })();
    return this.#closing;
  }
}

/** True for a page without scripts, frames, plugins or a refresh: after its load event, nothing of it fetches more. */
const STATIC_PAGE = `document.scripts.length === 0 && !document.querySelector('iframe, frame, object, embed, meta[http-equiv="refresh" i]')`;

/**
 * Waits until the page has had no request in flight for QUIET_MS and its main thread is free (a
 * round trip to the page waits for a script still running, e.g. a bundle about to fetch its
 * data), at most `maxMs`. Playwright's "networkidle" waits a fixed 500 ms after the last request
 * on every page; this ends as soon as a quiet page is quiet.
 */
async function settle(page: Page, traffic: { inflight: number; last: number }, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  // A page with nothing that could start a request after its load (no script, no frame) is done now.
  if (traffic.inflight === 0 && (await page.evaluate(STATIC_PAGE).catch(() => false))) return;
  const quiet = () => traffic.inflight === 0 && Date.now() - traffic.last >= QUIET_MS;
  while (Date.now() < end) {
    if (quiet()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        page.evaluate(() => new Promise((r) => setTimeout(r, 0))).catch(() => undefined),
        new Promise((r) => (timer = setTimeout(r, Math.max(1, end - Date.now())))),
      ]);
      clearTimeout(timer);
      if (quiet()) return;
    }
    const wait = traffic.inflight === 0 ? QUIET_MS - (Date.now() - traffic.last) : 25;
    await new Promise((r) => setTimeout(r, Math.max(5, Math.min(wait, end - Date.now()))));
  }
}

/**
 * The caller's headers on every request of the page to the target's own site, and on no other.
 * Chromium carries headers set on an intercepted request over to the redirects it follows, so a
 * site request is not continued with them: it is made by Playwright (through the render's context,
 * its proxy session and its cookies) with redirects not followed, and its answer handed to the
 * page, which follows a redirect itself — to a request that is routed again, and gets the headers
 * only if it is on the site. Requests to other sites are not intercepted at all.
 */
async function sendToSite(
  context: BrowserContext,
  url: string,
  headers: Record<string, string>,
  deadline: number,
): Promise<void> {
  const onSite = siteOf(url);
  await context.route(
    (u) => onSite(u),
    async (route) => {
      try {
        const response = await route.fetch({
          headers: { ...route.request().headers(), ...headers },
          maxRedirects: 0,
          timeout: Math.max(1, deadline - Date.now()),
        });
        await route.fulfill({ response });
      } catch {
        await route.abort('failed').catch(() => undefined);
      }
    },
  );
}

/**
 * Consent walls of the common consent platforms (OneTrust, Cookiebot, Didomi, Quantcast,
 * Usercentrics, TrustArc, Google's Funding Choices, Sourcepoint): "reject all" when the wall
 * offers it (no consent is given on the caller's behalf), else "accept"; a wall with neither
 * is removed, and the page's scroll lock with it. True when there was one.
 */
export const DISMISS_CONSENT = `(() => {
  const REJECT = ['#onetrust-reject-all-handler', '#CybotCookiebotDialogBodyButtonDecline', '#didomi-notice-disagree-button', '.qc-cmp2-summary-buttons button[mode="secondary"]', 'button[data-testid="uc-deny-all-button"]', '.fc-cta-do-not-consent'];
  const ACCEPT = ['#onetrust-accept-btn-handler', '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll', '#didomi-notice-agree-button', '.qc-cmp2-summary-buttons button[mode="primary"]', 'button[data-testid="uc-accept-all-button"]', '#truste-consent-button', '.fc-cta-consent'];
  const WALLS = ['#onetrust-consent-sdk', '#CybotCookiebotDialog', '#didomi-host', '.qc-cmp2-container', '#usercentrics-root', '#truste-consent-track', '.truste_overlay', '.fc-consent-root', '[id^="sp_message_container"]'];
  const walls = WALLS.map((s) => document.querySelector(s)).filter(Boolean);
  if (!walls.length) return false;
  const visible = (e) => e && e.getClientRects().length > 0;
  const button = [...REJECT, ...ACCEPT].map((s) => document.querySelector(s)).find(visible);
  if (button) button.click();
  setTimeout(() => {
    for (const s of WALLS) for (const e of document.querySelectorAll(s)) e.remove();
    for (const e of [document.documentElement, document.body]) if (e && getComputedStyle(e).overflow === 'hidden') e.style.setProperty('overflow', 'visible', 'important');
  }, 50);
  return true;
})()`;

/** True when the page may be a vendor's wall (bot-wall.ts has the verdict): its title, its scripts, its globals, its widgets. */
const MAY_BE_A_WALL = `(() => {
  if (/Just a moment|Pardon Our Interruption|Access Denied|Attention Required|Robot or human|Robot Check|DataDome|Security check|Are you a robot|Human verification|Checking your browser/i.test(document.title)) return true;
  const srcs = Array.from(document.scripts, (s) => s.src).join(' ');
  if (/challenge-platform|captcha-delivery|ips\\.js|_Incapsula_Resource|bm-verify|recaptcha|hcaptcha|turnstile/i.test(srcs)) return true;
  if (typeof window._cf_chl_opt !== 'undefined' || typeof window.dd !== 'undefined' || typeof window.KPSDK !== 'undefined') return true;
  return !!document.querySelector('#challenge-form, #challenge-stage, #px-captcha, .cf-turnstile, .g-recaptcha, .h-captcha, iframe[src*="_Incapsula_Resource"]');
})()`;

/** Request headers a routed request does not carry over: the connection's, the proxy's, the encoding offered. */
const ROUTE_DROPPED =
  /^(?:host|connection|keep-alive|proxy-.*|te|trailer|transfer-encoding|upgrade|content-length|accept-encoding)$/i;

/** A challenge page with no request in flight for this long is not going to clear. */
const CHALLENGE_STALL_MS = 3000;

/** How long a page that asks a person is given to turn into one that does not (a managed challenge deciding). */
const HUMAN_GRACE_MS = 2000;

/**
 * Waits while the page is a `script` wall (bot-wall.ts) for it to go away, until `deadline`. True
 * when it went (a reload came with the clearance cookie); false when it stayed, or turned into a
 * page asking a person, which is left as it is (the caller reports it `blocked`).
 */
async function clearChallenge(
  page: Page,
  status: () => number,
  deadline: number,
  traffic: { inflight: number; last: number },
): Promise<boolean> {
  const started = Date.now();
  let waited = false;
  // Most renders are no wall: a look at the title, the scripts and a few ids says so without
  // serialising the page (the read that follows does that once).
  if (status() < 400 && !(await page.evaluate(MAY_BE_A_WALL).catch(() => true))) return false;
  for (;;) {
    const html = await page.content().catch(() => undefined);
    if (html !== undefined) {
      const wall = detectBotWall(status(), html);
      if (!wall) return waited;
      if (wallKind(wall) !== 'script' || (ASKS_A_HUMAN.test(html) && Date.now() - started > HUMAN_GRACE_MS))
        return false;
    }
    const left = deadline - Date.now() - 250;
    if (left <= 0) return false;
    // A challenge at work talks to its vendor or reloads; one quiet this long has given up (or
    // waits for a person): the rest of the budget would be spent for nothing.
    if (traffic.inflight === 0 && Date.now() - traffic.last > CHALLENGE_STALL_MS) return false;
    waited = true;
    await page.waitForEvent('load', { timeout: Math.min(500, left) }).catch(() => undefined);
  }
}

/**
 * A remote browser (Browserless, a cloud browser) runs elsewhere: it cannot use this machine's
 * guarded proxy, nor be trusted to resolve names as this service does. So none of its pages'
 * requests reach the network from it: each is intercepted and made by the guarded HTTP client
 * (the address guard on the resolved address, TRAWL_RESOLVE pins, the render's proxy tier),
 * redirects followed by the client (Chromium would follow a fulfilled redirect past interception:
 * the page shows the last answer at the first URL; its final URL is kept for the answer), and
 * WebSockets refused.
 * What interception cannot see (the browser's own background traffic) goes to the context's
 * proxy, a loopback port of this machine that the remote browser cannot reach: it fails closed.
 */
export async function routeThroughGuard(
  context: BrowserContext,
  http: HttpClient,
  session: ProxySession,
  tier: ProxyTier,
  finalUrls: Map<string, string>,
  maxBytes: number,
): Promise<void> {
  // What the render's requests moved in all, against the same budget as the local browser's proxy.
  let bytes = 0;
  await context.route('**/*', async (route) => {
    const request = route.request();
    const u = new URL(request.url());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return void route.continue().catch(() => undefined);
    try {
      const headers = await request.allHeaders();
      // The connection is the client's own; so is the encoding (it decodes what it offers: no zstd).
      for (const h of Object.keys(headers)) if (ROUTE_DROPPED.test(h)) delete headers[h];
      bytes += Number(request.postDataBuffer()?.length ?? 0);
      if (bytes > maxBytes) throw fetchFailed(`the page sent or downloaded more than ${sizeOf(maxBytes)}`);
      const res = await http.request(u.href, {
        method: (['GET', 'POST', 'HEAD'].includes(request.method()) ? request.method() : 'GET') as 'GET',
        headers,
        body: request.postDataBuffer() ?? undefined,
        proxyTier: tier,
        timeoutMs: 30_000,
      });
      // Chromium follows a fulfilled redirect itself, past interception: so the client follows
      // redirects (each hop guarded) and the page gets the last answer at the URL it asked for.
      if (res.url !== u.href && request.isNavigationRequest() && request.frame().parentFrame() === null)
        finalUrls.set(u.href, res.url);
      bytes += res.body.length;
      const back = { ...res.headers };
      // The body is decoded already; its length is what it is now.
      delete back['content-encoding'];
      delete back['content-length'];
      delete back['transfer-encoding'];
      await route.fulfill({ status: res.status, headers: back, body: res.body });
    } catch (e) {
      if (isTrawlError(e) && e.code === 'forbidden_target') {
        const key = authorityKey(u.hostname, Number(u.port) || (u.protocol === 'https:' ? 443 : 80));
        if (!session.refused.has(key)) session.refused.set(key, e);
      }
      await route
        .abort(isTrawlError(e) && e.code === 'forbidden_target' ? 'blockedbyclient' : 'failed')
        .catch(() => undefined);
    }
  });
  await context.routeWebSocket(/.*/, (ws) => ws.close()).catch(() => undefined);
}

/** `work`, or a timeout error once `ms` passed (the work is left to end on its own: its tab is closed after). */
function byDeadline<T>(work: Promise<T>, ms: number, detail: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(detail())), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
