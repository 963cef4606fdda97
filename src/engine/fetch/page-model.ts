/**
 * What fetching a page takes and gives: its options, the fetchers it runs on, the page, and the
 * causes its errors carry (the target's status, the wall seen). The ladder (page.ts) and its
 * rungs (page-rungs.ts) share them.
 */
import type { ClearanceJar } from './clearance.js';
import { TrawlError } from '../../errors.js';
import type { Action, ActionOutput, ImageFormat, ScreenshotSpec } from './actions.js';
import type { BrowserPool } from './browser.js';
import type { PageSetup } from './emulation.js';
import type { DocumentProcessor } from '../document/pool.js';
import type { WallKind } from './bot-wall.js';
import type { HttpClient, ProxyTier } from './http.js';
import type { LargePageGate, PageLease } from './large-pages.js';
import type { FetchSlots } from './owner-slots.js';

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
  /** The job's clearance cookies (clearance.ts): kept from a cleared challenge, sent to the same host's next pages. */
  jar?: ClearanceJar;
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

/** A gate that lets the stealth tier be used for nothing more (the CLI's local scrape: the operator's own). */
export const FREE_STEALTH: StealthGate = { take: async () => true };
