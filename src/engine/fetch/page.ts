/**
 * Fetch one page for the content pipeline: HTTP first, Chromium when asked or when the HTML
 * is an empty JavaScript shell; upstream errors, bot walls and unsupported types become the
 * contract's errors here so every capability (scrape, crawl, extract, monitors) agrees.
 */
import { TrawlError, fetchFailed, isTrawlError, timeoutError } from '../../errors.js';
import type { Action, ActionOutput, ImageFormat, ScreenshotSpec } from './actions.js';
import type { BrowserPool } from './browser.js';
import { deviceHeaders, siteHeaders, type PageSetup } from './emulation.js';
import type { DocumentProcessor } from '../document/pool.js';
import { detectBotWall, detectWallHeaders, visibleTextLength, wallKind, type WallKind } from './bot-wall.js';
import { decodeBody } from './charset.js';
import type { HttpClient, ProxyTier } from './http.js';
import type { LargePageGate, PageLease } from './large-pages.js';
import type { FetchSlots } from './owner-slots.js';
import { fetchOutcome, pageFetches } from '../../metrics.js';

export type RenderMode = 'auto' | 'http' | 'browser';

/**
 * The cause of the fetch_failed a target's ≥ 400 answer raises: its status, for callers that
 * record it (a monitor watching `status_code`). Not in the error's body: the contract's fields stay.
 */
export class TargetStatus {
  constructor(
    readonly status: number,
    /** When the target said it may be asked again (a 429/503's Retry-After). */
    readonly retryAt?: Date,
  ) {}
}

/** The cause of a `blocked` error: which wall answered (bot-wall.ts), so the ladder knows what may pass it. */
export class WallSeen {
  constructor(
    readonly name: string,
    readonly kind: WallKind,
  ) {}
}

const wallError = (at: string, name: string) =>
  new TrawlError('blocked', `${at} answered with a bot wall (${name}); it was not scraped and no credit was charged`, {
    cause: new WallSeen(name, wallKind(name)),
    retryable: false,
  });

/** `proxy` of a request (Firecrawl's values): one tier, or `auto` (basic, then stealth when the answer is a wall). */
export type ProxyMode = ProxyTier | 'auto';
export const targetStatusOf = (e: unknown): number | undefined =>
  e instanceof TrawlError && e.code === 'fetch_failed' && e.cause instanceof TargetStatus ? e.cause.status : undefined;
export type PageKind = 'html' | 'text' | 'pdf';

export interface Page {
  /** URL asked for. */
  sourceUrl: string;
  /** Final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  kind: PageKind;
  /** Decoded document for html/text pages. */
  text?: string;
  /** Raw bytes for PDFs. */
  bytes?: Buffer;
  rendered: boolean;
  /** Rendered because `render: auto` found the HTML to be a script shell (not because it was asked). */
  shell?: boolean;
  /** What the caller should know about this copy (e.g. it needed a browser that is not there). */
  warnings?: string[];
  /** A large page's admission slot (large-pages.ts): released once the page has been processed. */
  lease?: PageLease;
  /** Rendered pages: the screenshot asked for. */
  screenshot?: Buffer;
  /** Rendered pages: what the actions produced. */
  actions?: ActionOutput;
  /** The proxy tier the answer came through (issue 42: stealth costs more). */
  proxyUsed?: ProxyTier;
  /** The rungs of the ladder climbed before this answer (`basic`, `browser`, `stealth`, `stealth browser`). */
  tiersTried?: string[];
}

/** `url` without user:password@ (answers never repeat credentials). */
export function withoutCredentials(url: string): string {
  if (!url.includes('@')) return url;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return url;
  }
}

/** Let go of a page's admission slot (when it took one). */
export const releasePage = (page: Page | undefined) => page?.lease?.release();

export const NO_BROWSER_WARNING =
  'this page draws its content with JavaScript and needs a browser to render it, but Chromium is not installed on this server: install the Debian package `chromium` (or set CHROMIUM_PATH to a Chromium binary) and ask again; the content returned is what the HTML holds without JavaScript';

export interface FetchPageOptions {
  render?: RenderMode;
  timeoutMs?: number;
  maxBytes?: number;
  /** Browser only: CSS selector to wait for, or milliseconds to wait after load. */
  waitFor?: string | number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  followRedirect?: (next: URL) => boolean | Promise<boolean>;
  /** Viewport, device, location, the caller's headers and cookies (HTTP path and browser). */
  setup?: PageSetup;
  /** Browser only: steps run before the page is read. */
  actions?: Action[];
  /** Browser only: a screenshot of the page as read. */
  screenshot?: ScreenshotSpec;
  /** Format of the actions' screenshots. */
  imageFormat?: ImageFormat;
  /** Which proxies carry the request (issue 42). @default 'auto' */
  proxy?: ProxyMode;
  /** Internal: the tier of this rung of the ladder. */
  proxyTier?: ProxyTier;
  /** Asked before the stealth tier is used (its surcharge, taken by the caller's billing); without it the tier is free. */
  stealthGate?: StealthGate;
}

/**
 * The price of the stealth tier (issue 42: 5 credits where a page costs 1), as the engine sees
 * it: `take` reserves the surcharge before the first stealth rung (false when the account cannot
 * pay it: the ladder stops there); the caller keeps or gives it back once the answer is known.
 */
export interface StealthGate {
  take(): Promise<boolean>;
}

export interface Fetchers {
  http: HttpClient;
  browser?: BrowserPool;
  /** Worker threads for the document pipeline; pages are processed inline without it. */
  documents?: DocumentProcessor;
  /** Admission for large pages; without it every page is read at once. */
  largePages?: LargePageGate;
  /** The caller's share of pages in flight (an account's, owner-slots.ts); unbounded without it. */
  slots?: FetchSlots;
}

export function kindOf(contentType: string, body: Buffer): PageKind | undefined {
  const ct = contentType.split(';')[0].trim().toLowerCase();
  if (ct === 'text/html' || ct === 'application/xhtml+xml') return 'html';
  if (ct === 'application/pdf' || (!ct && body.subarray(0, 5).toString('latin1') === '%PDF-')) return 'pdf';
  if (
    ct.startsWith('text/') ||
    ct === 'application/json' ||
    ct.endsWith('+json') ||
    ct === 'application/xml' ||
    ct.endsWith('+xml')
  )
    return ct.includes('xml') && looksLikeHtml(body) ? 'html' : 'text';
  if (!ct || ct === 'application/octet-stream') {
    if (body.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
    if (looksLikeHtml(body)) return 'html';
  }
  return undefined;
}

function looksLikeHtml(body: Buffer): boolean {
  return /^\s*(?:<!doctype html|<html|<head|<body|<!--)/i.test(body.subarray(0, 512).toString('latin1'));
}

/** Little visible text but a script bundle: the content is drawn by JavaScript. */
export function looksLikeAppShell(html: string): boolean {
  if (html.length > 2_000_000) return false;
  // The body's text (all of the page without a body element), counted only as far as the
  // verdicts need: every page is asked this, and nearly every one has text enough at once.
  const open = /<body[^>]*>/i.exec(html);
  const end = open ? lastCloseBody(html) : -1;
  const [from, to] = open && end >= open.index + open[0].length ? [open.index + open[0].length, end] : [0, html.length];
  const text = visibleTextLength(html, 1000, from, to);
  if (text >= 1000) return false;
  // Only scripts that run count: JSON-LD and JSON data blocks draw nothing.
  const scripts = (
    html.match(/<script\b(?![^>]*type=["']?(?:application\/(?:ld\+)?json|text\/template))[^>]*>/gi) ?? []
  ).length;
  if (text < 200 && scripts > 0) return true;
  return /<noscript>[^<]*(?:enable javascript|requires javascript|need to enable javascript)/i.test(html);
}

/** Where the last `</body>` (any case) starts, or -1. */
function lastCloseBody(html: string): number {
  const re = /<\/body>/gi;
  let last = -1;
  for (let m = re.exec(html); m; m = re.exec(html)) last = m.index;
  return last;
}

export async function fetchPage(fetchers: Fetchers, url: string, options: FetchPageOptions = {}): Promise<Page> {
  try {
    const page = await fetchGuarded(fetchers, url, options);
    pageFetches.inc({ outcome: 'ok' });
    return page;
  } catch (e) {
    pageFetches.inc({ outcome: fetchOutcome(e, options.signal) });
    throw e;
  }
}

async function fetchGuarded(fetchers: Fetchers, url: string, options: FetchPageOptions): Promise<Page> {
  const userinfo = credentialsOf(url);
  if (!userinfo) return fetchSlotted(fetchers, url, options);
  try {
    return await fetchSlotted(fetchers, url, options);
  } catch (e) {
    // Errors name the URL (the HTTP client's, Chromium's own messages): never its user:password@.
    if (!(e instanceof TrawlError) || !userinfo.some((u) => e.detail.includes(u))) throw e;
    const detail = userinfo.reduce((d, u) => d.replaceAll(u, ''), e.detail);
    throw new TrawlError(e.code, detail, { cause: e, fields: e.fields, retryable: e.retryable });
  }
}

/** The `user:password@` spellings a message may carry for `url` (as given, and as parsed). */
function credentialsOf(url: string): string[] | undefined {
  if (!url.includes('@')) return undefined;
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return undefined;
    const parsed = `${u.username}${u.password ? `:${u.password}` : ''}@`;
    const given = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*@)/i.exec(url)?.[1];
    return [...new Set([given, parsed].filter((x): x is string => !!x))].sort((a, b) => b.length - a.length);
  } catch {
    return undefined;
  }
}

async function fetchSlotted(fetchers: Fetchers, url: string, options: FetchPageOptions): Promise<Page> {
  if (!fetchers.slots) return fetchAdmitted(fetchers, url, options);
  // The slot is held while the page is fetched (or rendered), not while it is processed;
  // the wait for it comes out of the page's own time budget.
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = Date.now();
  const give = await ownSlot(fetchers.slots, timeoutMs, options.signal);
  try {
    return await fetchAdmitted(fetchers, url, {
      ...options,
      timeoutMs: Math.max(1, timeoutMs - (Date.now() - started)),
    });
  } finally {
    give();
  }
}

/**
 * What a fetch outside fetchPage (a crawl's sitemap files) holds while it runs: one of its owner's
 * slots and admission under the page-bytes budget, with a lease that makes a body past the
 * large-page size wait for a large-page slot. Waits come out of `timeoutMs`; call `release` when
 * the body has been dealt with.
 */
export async function holdForFetch(
  fetchers: Pick<Fetchers, 'slots' | 'largePages'>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ lease?: PageLease; timeoutMs: number; release(): void }> {
  const started = Date.now();
  const give = fetchers.slots ? await ownSlot(fetchers.slots, timeoutMs, signal) : undefined;
  try {
    const gate = fetchers.largePages;
    const left = () => Math.max(1, timeoutMs - (Date.now() - started));
    const lease = gate ? (gate.tryAdmit() ?? (await admitted(gate, { timeoutMs: left(), signal }))) : undefined;
    return {
      lease,
      timeoutMs: left(),
      release: () => {
        lease?.release();
        give?.();
      },
    };
  } catch (e) {
    give?.();
    throw e;
  }
}

async function ownSlot(slots: FetchSlots, timeoutMs: number, signal?: AbortSignal): Promise<() => void> {
  const limit = AbortSignal.timeout(timeoutMs);
  try {
    return await slots.acquire(signal ? AbortSignal.any([signal, limit]) : limit);
  } catch (e) {
    if (limit.aborted && !signal?.aborted) {
      throw timeoutError(
        `this account already has ${slots.limit} pages being fetched at once (TRAWL_ACCOUNT_CONCURRENCY); this page waited ${timeoutMs} ms for one of them to finish`,
      );
    }
    throw e;
  }
}

/**
 * The tiers a request may climb: the one asked, or basic then stealth — when the operator
 * configured stealth proxies and the caller prices the tier (a `stealthGate`: scrapes do; pages
 * of crawls, batches, extract and monitors, not priced by tier yet, stay on the basic tier so no
 * unpaid request spends the operator's dearest proxies).
 */
function tiersOf(fetchers: Fetchers, mode: ProxyMode | undefined, gate: StealthGate | undefined): ProxyTier[] {
  if (mode === 'basic' || mode === 'stealth') return [mode];
  return fetchers.http.stealthAvailable && gate ? ['basic', 'stealth'] : ['basic'];
}

/** A gate that lets the stealth tier be used for nothing more (the CLI's local scrape: the operator's own). */
export const FREE_STEALTH: StealthGate = { take: async () => true };

const rung = (tier: ProxyTier, browser: boolean) =>
  tier === 'basic' ? (browser ? 'browser' : 'basic') : browser ? 'stealth browser' : 'stealth';

const wallOf = (e: unknown) =>
  isTrawlError(e) && e.code === 'blocked' && e.cause instanceof WallSeen ? e.cause : undefined;

/**
 * The escalation ladder (issue 42), cheapest first, within the request's one time budget: for
 * each proxy tier, plain HTTP that looks like Chrome; then, when the answer was a wall a browser
 * passes by itself (a JS challenge, a fingerprint check), Chromium waiting for it to clear; then
 * the next tier. A wall that asks a person, or a block by address, skips the browser. The last
 * wall is the answer, its detail naming every rung tried.
 */
async function fetchAdmitted(fetchers: Fetchers, url: string, options: FetchPageOptions): Promise<Page> {
  const render = options.render ?? 'auto';
  const tiers = tiersOf(fetchers, options.proxy, options.stealthGate);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const tried: string[] = [];
  let wall: TrawlError | undefined;
  for (const tier of tiers) {
    const left = deadline - Date.now();
    if (wall && left < 500) break;
    if (tier === 'stealth' && options.stealthGate && !(await options.stealthGate.take())) {
      // Asked for by name, the tier's price is owed up front; climbed to, the ladder ends below it.
      if (!wall) throw new TrawlError('insufficient_credits');
      tried.push('stealth (not tried: the account has too few credits for it)');
      break;
    }
    const rungOptions = { ...options, timeoutMs: Math.max(1, left), proxyTier: tier };
    if (render !== 'browser') {
      tried.push(rung(tier, false));
      try {
        return withLadder(await fetchHttpAdmitted(fetchers, url, rungOptions, render), tier, tried);
      } catch (e) {
        const seen = wallOf(e);
        if (!seen) throw e;
        wall = e as TrawlError;
        if (render === 'http' || seen.kind !== 'script' || !fetchers.browser?.available) continue;
      }
    }
    const leftForBrowser = deadline - Date.now();
    if (wall && leftForBrowser < 500) break;
    tried.push(rung(tier, true));
    try {
      const page = await renderPage(fetchers, url, {
        ...rungOptions,
        timeoutMs: Math.max(1, leftForBrowser),
        clearChallenge: true,
      });
      return withLadder(page, tier, tried);
    } catch (e) {
      if (wallOf(e)) wall = e as TrawlError;
      // A render that failed otherwise after a wall (a timeout while it waited) leaves the wall the answer.
      else if (!wall || render === 'browser') throw e;
    }
  }
  throw new TrawlError(
    'blocked',
    `${wall!.detail.replace(/; it was not scraped.*$/, '')}; tried: ${tried.join(', ')}; it was not scraped and no credit was charged`,
    {
      cause: wall!.cause,
      retryable: false,
    },
  );
}

const withLadder = (page: Page, tier: ProxyTier, tried: string[]): Page => ({
  ...page,
  proxyUsed: tier,
  tiersTried: [...tried],
});

async function fetchHttpAdmitted(
  fetchers: Fetchers,
  url: string,
  options: FetchPageOptions & { clearChallenge?: boolean },
  render: RenderMode,
): Promise<Page> {
  // A page waits here, before its request is sent, while the pages held are over budget.
  const gate = fetchers.largePages;
  const lease = gate ? (gate.tryAdmit() ?? (await admitted(gate, options))) : undefined;
  try {
    const page = await fetchOverHttp(fetchers, url, options, render, lease);
    if (lease && page.lease !== lease) lease.release();
    return page;
  } catch (e) {
    lease?.release();
    throw e;
  }
}

/** A lease from the gate, waiting at most the request's time budget. */
async function admitted(gate: LargePageGate, options: FetchPageOptions): Promise<PageLease> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const limit = AbortSignal.timeout(timeoutMs);
  try {
    return await gate.admit(options.signal ? AbortSignal.any([options.signal, limit]) : limit);
  } catch (e) {
    if (limit.aborted) throw timeoutError(`the page waited ${timeoutMs} ms for memory held by other pages to be freed`);
    throw e;
  }
}

async function fetchOverHttp(
  fetchers: Fetchers,
  url: string,
  options: FetchPageOptions,
  render: RenderMode,
  lease: PageLease | undefined,
): Promise<Page> {
  const budget = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + budget;
  let res: Awaited<ReturnType<HttpClient['request']>>;
  let kind: PageKind | undefined;
  let text: string | undefined;
  let contentType: string;
  for (let attempt = 1; ; attempt++) {
    res = await fetchers.http.request(url, {
      timeoutMs: Math.max(1, deadline - Date.now()),
      maxBytes: options.maxBytes,
      signal: options.signal,
      headers: options.setup ? { ...options.headers, ...deviceHeaders(options.setup) } : options.headers,
      hopHeaders: siteHeaders(url, options.setup),
      followRedirect: options.followRedirect,
      lease,
      proxyTier: options.proxyTier,
    });
    contentType = res.headers['content-type'] ?? '';
    kind = kindOf(contentType, res.body);
    text = undefined;
    if (kind === 'html' || kind === 'text' || res.status >= 400)
      text = decodeBody(res.body, contentType, kind !== 'text').text;
    // The page names its wall best (DataDome's says whether it is a device check or a captcha); headers say it when the body does not.
    const wall =
      (text !== undefined && (kind === 'html' || res.status >= 400) ? detectBotWall(res.status, text) : undefined) ??
      detectWallHeaders(res.status, res.headers);
    if (wall) throw wallError(res.url, wall);
    if ((res.status !== 429 && res.status !== 503) || res.headers['retry-after'] === undefined) break;
    // Patience (issue 42): a target that says when to come back is asked again then, if that fits the budget.
    const at = retryAfterDate(res.headers['retry-after']);
    if (!at) break;
    const wait = Math.max(0, at.getTime() - Date.now());
    if (attempt < 4 && Date.now() + wait + 250 < deadline) {
      await sleep(wait, options.signal);
      continue;
    }
    throw fetchFailed(
      `${res.url} answered HTTP ${res.status} and asks to be asked again in ${Math.ceil(wait / 1000)} s (at ${at.toISOString()}), past this request's time budget (timeout_ms ${budget}); retry after that`,
      new TargetStatus(res.status, at),
    );
  }
  if (res.status >= 400) throw fetchFailed(`${res.url} answered HTTP ${res.status}`, new TargetStatus(res.status));
  if (!kind) throw fetchFailed(`${res.url} is ${contentType || 'of unknown type'}, not HTML, PDF or text`);
  const page: Page = {
    sourceUrl: withoutCredentials(url),
    url: res.url,
    status: res.status,
    contentType,
    kind,
    rendered: false,
    lease,
  };
  if (kind === 'pdf') page.bytes = res.body;
  else page.text = text;
  if (render === 'auto' && kind === 'html' && looksLikeAppShell(page.text!)) {
    if (!fetchers.browser?.available) {
      page.warnings = [NO_BROWSER_WARNING];
      return page;
    }
    try {
      return {
        ...(await renderPage(fetchers, url, { ...options, timeoutMs: Math.max(1, deadline - Date.now()) })),
        shell: true,
      };
    } catch (e) {
      // The HTTP copy is still an answer; a failed render does not make it worse.
      if (e instanceof TrawlError && (e.code === 'forbidden_target' || e.code === 'blocked')) throw e;
      page.warnings = [
        `this page draws its content with JavaScript, and rendering it in Chromium failed (${e instanceof TrawlError ? e.detail : 'browser error'}); the content returned is what the HTML holds without JavaScript`,
      ];
    }
  }
  return page;
}

async function renderPage(
  fetchers: Fetchers,
  url: string,
  options: FetchPageOptions & { clearChallenge?: boolean },
): Promise<Page> {
  if (!fetchers.browser?.available) {
    throw new TrawlError(
      'fetch_failed',
      'render "browser" needs Chromium, which is not installed on this server (set CHROMIUM_PATH)',
      { retryable: false },
    );
  }
  const started = Date.now();
  const r = await fetchers.browser.render(url, {
    timeoutMs: options.timeoutMs ?? 30_000,
    waitFor: options.waitFor,
    signal: options.signal,
    owner: fetchers.slots?.owner,
    setup: options.setup,
    actions: options.actions,
    screenshot: options.screenshot,
    imageFormat: options.imageFormat,
    proxyTier: options.proxyTier,
    clearChallenge: options.clearChallenge ?? true,
  });
  // Credentials in the URL stay out of every answer, as on the HTTP path.
  const at = withoutCredentials(r.url);
  const wall = detectBotWall(r.status, r.html);
  if (wall) throw wallError(at, wall);
  if (r.status >= 400) throw fetchFailed(`${at} answered HTTP ${r.status}`, new TargetStatus(r.status));
  if (kindOf(r.contentType, Buffer.alloc(0)) === 'pdf') {
    // Chromium shows a PDF in its viewer (the screenshot is of its first page); the document
    // itself is read from its bytes, fetched again over HTTP within what is left of the budget.
    const doc = await fetchOverHttp(
      fetchers,
      url,
      { ...options, timeoutMs: Math.max(1000, (options.timeoutMs ?? 30_000) - (Date.now() - started)) },
      'http',
      undefined,
    );
    // (The render's warnings — what its screenshot cut or scaled — stay with the answer.)
    const warnings = [...(r.warnings ?? []), ...(doc.warnings ?? [])];
    return {
      ...doc,
      sourceUrl: withoutCredentials(url),
      rendered: true,
      ...(warnings.length ? { warnings } : {}),
      ...(r.screenshot ? { screenshot: r.screenshot } : {}),
      ...(r.actions ? { actions: r.actions } : {}),
    };
  }
  return {
    sourceUrl: withoutCredentials(url),
    url: at,
    status: r.status,
    contentType: r.contentType || 'text/html',
    kind: 'html',
    text: r.html,
    rendered: true,
    ...(r.warnings ? { warnings: r.warnings } : {}),
    ...(r.screenshot ? { screenshot: r.screenshot } : {}),
    ...(r.actions ? { actions: r.actions } : {}),
  };
}

/** A Retry-After value (seconds, or an HTTP date) as the moment it names; undefined when it is neither. */
export function retryAfterDate(value: string, now = Date.now()): Date | undefined {
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return new Date(now + Number(v) * 1000);
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(Math.max(t, now)) : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
