/**
 * What a scrape takes and gives: its formats, options, metadata and result, and the warning of a
 * page with no text. scrape.ts runs it; document-from-page.ts fills the result from a page.
 */
import type { SessionJar } from './fetch/session-jar.js';
import type { ClearanceJar } from './fetch/clearance.js';
import type { ContentSource, PageType } from './document/index.js';
import type { CompiledSchema } from './extract/schema.js';
import type { LlmClient } from './extract/llm.js';
import type { Action, ImageFormat } from './fetch/actions.js';
import type { Cookie, Location, Viewport } from './fetch/emulation.js';
import type { ProxyMode, RenderMode, StealthGate } from './fetch/page.js';
import type { ProxyTier } from './fetch/http.js';
import type { ResultCache } from './result-cache.js';

/** What the document pipeline produces. */
export type Format = 'markdown' | 'json' | 'html' | 'raw_html' | 'links';
export const FORMATS: readonly Format[] = ['markdown', 'json', 'html', 'raw_html', 'links'];
/** What a scrape may ask for: the document's formats, and a screenshot (of the viewport, or of the whole page). */
export type ScrapeFormat = Format | 'screenshot' | 'screenshot@full_page';
export const SCRAPE_FORMATS: readonly ScrapeFormat[] = [...FORMATS, 'screenshot', 'screenshot@full_page'];
export const isDocumentFormat = (f: ScrapeFormat): f is Format => (FORMATS as readonly string[]).includes(f);

/** Where screenshots go: the service's file store (a URL), or the CLI's files (a path). */
export interface FileSink {
  save(bytes: Buffer, format: ImageFormat): Promise<{ ref: string; expiresAt?: Date }>;
}

export interface ScrapeCache {
  store: ResultCache<ScrapeResult>;
  /** A stored result younger than this is returned without fetching; 0 reads and stores nothing. */
  maxAgeMs: number;
  /** The account asking: results made with its headers, cookies or actions are its own. */
  account: string;
}

export interface ScrapeOptions {
  url: string;
  /** @default ['markdown'] (plus 'json' when a schema is given) */
  formats?: ScrapeFormat[];
  schema?: CompiledSchema;
  /** @default true */
  onlyMainContent?: boolean;
  /** @default 'auto' ('browser' when a screenshot or actions are asked for) */
  render?: RenderMode;
  /** @default 30000 */
  timeoutMs?: number;
  waitFor?: string | number;
  /** @default 'png' */
  screenshotFormat?: ImageFormat;
  /** @default 1280×800 (412×915 when mobile) */
  viewport?: Viewport;
  mobile?: boolean;
  location?: Location;
  /** Sent to the target's own site only (HTTP path and browser). */
  headers?: Record<string, string>;
  cookies?: Cookie[];
  /** A saved browser session (issue 44): its own sites only; a result read with it is never cached. */
  session?: SessionJar;
  /** A job's clearance cookies (issue 42): a challenge cleared on one of its pages is not met again on the next. */
  clearance?: ClearanceJar;
  /** Browser steps run before the page is read (fetch/actions.ts). */
  actions?: Action[];
  /** Proxy tier (issue 42). @default 'auto' */
  proxy?: ProxyMode;
  /** The stealth tier's surcharge (fetch/page.ts StealthGate); without it the tier costs nothing more. */
  stealthGate?: StealthGate;
  /** Where screenshots are kept; required when one is asked for. */
  files?: FileSink;
  cache?: ScrapeCache;
  /** Further options that change the result, for the cache key (e.g. PDF limits). */
  cacheExtra?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Fills the JSON fields the deterministic pass left empty. */
  llm?: LlmClient;
  /** A hint for the LLM pass (ignored by the deterministic extractor). */
  prompt?: string;
  /** PDF reading: at most `maxPages` pages (default 200). */
  pdf?: { maxPages?: number };
  /** HTTP path: whether to follow a redirect (a crawl keeps to its site); refused ones fail with `fields.redirect`. */
  followRedirect?: (next: URL) => boolean | Promise<boolean>;
  /** Scrape steps also keep the page's HTML at that moment (`actions.scrapes[].html`, Firecrawl's shape). */
  actionScrapeHtml?: boolean;
  /**
   * Waits for the page's turn to be fetched (a job's per-host politeness); what it returns is
   * called once the page is in. A cache hit fetches nothing and waits for no turn.
   */
  turn?: () => Promise<() => void>;
}

export interface ScrapeMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  status_code: number;
  content_type: string;
  source_url: string;
  canonical_url?: string | null;
  /** Pages of a PDF document. */
  pages?: number;
  /** With `max_age`: whether the answer came from the cache. */
  cache?: 'hit' | 'miss';
  /** On a hit: when the cached result was made. */
  cached_at?: string;
  /**
   * HTML pages: where the content came from — the main-content pick (`main`), a fallback when
   * it left almost nothing (`wider`, `body`, `json_ld`, `noscript`, `app_state`), or a browser
   * render that `render: auto` chose because the HTML had no text of its own (`browser`).
   */
  content_source?: ContentSource;
  /** HTML pages: the page's kind, from its markup and structure. */
  page_type?: PageType;
  /** The proxy tier the page came through (issue 42): "basic" or "stealth". */
  proxy_used?: ProxyTier;
}

export interface ActionResults {
  screenshots: string[];
  scrapes: { url: string; markdown: string; html?: string }[];
  javascript_returns: unknown[];
}

export interface ScrapeResult {
  url: string;
  markdown?: string;
  json?: Record<string, unknown>;
  html?: string;
  raw_html?: string;
  links?: string[];
  /** Where the screenshot is kept (a URL from the service's file store). */
  screenshot?: string;
  /** What the actions produced, in step order. */
  actions?: ActionResults;
  metadata: ScrapeMetadata;
  /** Per JSON field, where its value came from (json-ld:offers.price, meta:og:title …). */
  sources?: Record<string, string>;
  /** Present when the answer is not all it could be (a JavaScript page without a browser …). */
  warnings?: string[];
}

/** The warning of an answer whose content holds almost no text after every fallback. */
export const SCANT_WARNING =
  'the page holds almost no text to extract: its main content, a wider part of it, the whole body, its JSON-LD, its <noscript> markup and its server-rendered data were tried';
