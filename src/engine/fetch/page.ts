/**
 * Fetch one page for the content pipeline: HTTP first, Chromium when asked or when the HTML
 * is an empty JavaScript shell; upstream errors, bot walls and unsupported types become the
 * contract's errors here so every capability (scrape, crawl, extract, monitors) agrees.
 */
import { TrawlError, isTrawlError } from '../../errors.js';
import type { ProxyTier } from './http.js';
import { fetchOutcome, pageFetches } from '../../metrics.js';
import { ownSlot } from './page-admission.js';
import { fetchHttpAdmitted, renderPage } from './page-rungs.js';
import {
  WallSeen,
  type FetchPageOptions,
  type Fetchers,
  type Page,
  type ProxyMode,
  type StealthGate,
} from './page-model.js';

// Where callers find them: the page's model, its kinds, its admission and its rungs have modules of their own.
export {
  FREE_STEALTH,
  TargetStatus,
  WallSeen,
  releasePage,
  targetStatusOf,
  withoutCredentials,
  type FetchPageOptions,
  type Fetchers,
  type Page,
  type PageKind,
  type ProxyMode,
  type RenderMode,
  type StealthGate,
} from './page-model.js';
export { kindOf, looksLikeAppShell } from './page-kind.js';
export { holdForFetch } from './page-admission.js';
export { NO_BROWSER_WARNING, retryAfterDate } from './page-rungs.js';

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
 * The tiers a request may climb: the one asked; with `auto`, basic then stealth — when the
 * operator configured stealth proxies and the caller prices the tier (a `stealthGate`: scrapes
 * do; pages of crawls, batches, extract and monitors, not priced by tier yet, stay on the basic
 * tier so no unpaid request spends the operator's dearest proxies). A request that names no tier
 * stays on the basic one: it costs the contract's one credit, never the stealth tier's five.
 */
function tiersOf(fetchers: Fetchers, mode: ProxyMode | undefined, gate: StealthGate | undefined): ProxyTier[] {
  if (mode === 'basic' || mode === 'stealth') return [mode];
  if (mode === undefined) return ['basic'];
  return fetchers.http.stealthAvailable && gate ? ['basic', 'stealth'] : ['basic'];
}

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
