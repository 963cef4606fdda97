/**
 * Chromium rendering through playwright-core and the system's Chromium (Debian `chromium`).
 * One browser is launched lazily and shared; each render gets its own context (no cookies
 * leak between requests). Chromium reaches the network only through the guarded proxy
 * (browser-proxy.ts): the browser-wide proxy refuses everything, each render's context gets a
 * session of its own, loopback is not exempt, and Chromium's own resolver answers no name —
 * so whatever a page does (redirects, script navigations, sub-resources, WebSockets), its
 * bytes pass the same address guard as the HTTP client, on the resolved address.
 */
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
import { CHROME_MAJOR, FINGERPRINT_SCRIPT, chromeIdentity, identitySetup } from './chrome.js';
import { RealmWarden } from './realms.js';
import { guardedRealmRoute } from './realm-routes.js';
import { ARGS, BYPASS, browserEnv, findChromium } from './chromium-launch.js';
import { DISMISS_CONSENT } from './consent.js';
import { SETTLE_MAX_MS, byDeadline, clearChallenge, settle } from './render-wait.js';
import { loadSession, saveSession } from './session-browser.js';
import { routeThroughGuard, sendToSite, sizeOf, type SiteHeaders } from './render-routes.js';
import { siteOf } from './site.js';

// Where callers found them before the pool's parts had modules of their own.
export { findChromium } from './chromium-launch.js';
export { DISMISS_CONSENT } from './consent.js';
export { QUIET_MS } from './render-wait.js';
export { routeThroughGuard } from './render-routes.js';

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
  /** Given the cookies of the cleared page's host when a challenge cleared (the job's jar keeps them). */
  cleared?: (url: string, cookies: { name: string; value: string }[]) => void;
}

export interface BrowserPool {
  readonly available: boolean;
  render(url: string, options: RenderOptions): Promise<RenderResult>;
  close(): Promise<void>;
}

/** A context of its own for one render: its proxy session, its context, its page. */
interface Tab {
  session: ProxySession;
  context: BrowserContext;
  page: Page;
  /** A remote browser's navigations whose redirects the guarded client followed: first URL → last. */
  finalUrls: Map<string, string>;
  /** A remote browser: the caller's headers and the site they go to, for this render (see routeThroughGuard). */
  site: SiteHeaders;
  /** Forgets the render's identity for its other realms (realms.ts). */
  forget?: () => void;
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
  /** Gives workers and out-of-process frames the identity of their render (realms.ts). */
  #warden?: Promise<RealmWarden | undefined>;
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
            // The browser's own User-Agent (what a realm without an override shows) is Chrome's, not HeadlessChrome's.
            args: [...ARGS, `--user-agent=${chromeIdentity(false, this.#token).userAgent}`],
            // Playwright's --enable-automation shows the automation banner and sets navigator.webdriver.
            ignoreDefaultArgs: ['--enable-automation'],
            headless: true,
            env: browserEnv(),
            proxy: { server: this.#denyAll.server, bypass: BYPASS },
          });
      if (/^\d+\.\d+\.\d+\.\d+$/.test(browser.version())) this.#version = browser.version();
      this.#warden = RealmWarden.start(browser).catch(() => undefined);
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
      const site: SiteHeaders = {};
      if (this.#endpoint)
        await routeThroughGuard(context, this.#http, session, tier, finalUrls, this.#proxy.maxBytes, site);
      // (WebRTC is made to send nothing there: STUN is UDP, which no HTTP proxy carries.)
      await context.addInitScript(FINGERPRINT_SCRIPT).catch(() => undefined);
      const page = await context.newPage();
      const languages = setup?.location ? languagesOf(setup.location) : ['en-US'];
      // Playwright sends its locale alone as the document's Accept-Language and navigator.languages;
      // the whole list goes through the DevTools override (sub-resources get it from the context's
      // headers), with the brands and platform of the identity (navigator.userAgentData, sec-ch-ua).
      const cdp = await context.newCDPSession(page);
      const { override, realms } = identitySetup(identity, this.#version, languageTags(languages));
      // The session stays open with the page: an override ends with the session that set it.
      await cdp.send('Emulation.setUserAgentOverride', override);
      // Its workers get the same identity before their first script (realms.ts).
      const route = this.#endpoint ? guardedRealmRoute(this.#http, session, tier) : undefined;
      const forget = await (await this.#warden)?.watch(cdp, { ...realms, route }).catch(() => undefined);
      return { session, context, page, finalUrls, site, forget };
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
    tab.forget?.();
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
    { session, context, page, finalUrls, site }: Tab,
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
    if (setup?.session) await loadSession(context, setup.session);
    const headers = lowerCaseHeaders(setup?.headers);
    // A remote browser's requests are all made by the guarded client: the headers go there (a
    // second route, Playwright's own fetch, would go out through the context's deny-all proxy).
    if (Object.keys(headers).length && this.#endpoint) Object.assign(site, { onSite: siteOf(url), headers });
    else if (Object.keys(headers).length) await sendToSite(context, url, headers, deadline);
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
      if (await clearChallenge(page, () => document?.status() ?? response?.status() ?? 200, deadline, traffic)) {
        await settle(page, traffic, Math.min(SETTLE_MAX_MS, remaining()));
        // Kept under the cleared page's own host (a redirect may have left the first one).
        const at = finalUrls.get(page.url()) ?? page.url();
        options.cleared?.(at, await context.cookies(page.url()).catch(() => []));
      }
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
    if (setup?.session) await saveSession(context, page, setup.session);
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
