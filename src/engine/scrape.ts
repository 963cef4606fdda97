/**
 * scrape: one URL → markdown / cleaned html / raw html / links / schema JSON + metadata.
 * Pure of HTTP and billing: options in, data out, or a TrawlError thrown.
 */
import { TrawlError } from '../errors.js';
import { parseHtml, type ContentSource, type PageType } from './document/index.js';
import { processDocument, processPdf } from './document/process.js';
import type { DocumentProcessor, JobControl } from './document/processor.js';
import type { CompiledSchema } from './extract/schema.js';
import type { LlmClient } from './extract/llm.js';
import { extractFromDocument, pageExtraction } from './extract/index.js';
import type { Action, ActionOutput, ImageFormat } from './fetch/actions.js';
import type { Cookie, Location, PageSetup, Viewport } from './fetch/emulation.js';
import { imageFormatOf } from './fetch/screenshot.js';
import {
  fetchPage,
  releasePage,
  withoutCredentials,
  type Fetchers,
  type Page,
  type ProxyMode,
  type RenderMode,
  type StealthGate,
} from './fetch/page.js';
import type { ProxyTier } from './fetch/http.js';
import { cacheKey, type CacheKeyParts, type ResultCache } from './result-cache.js';

/** What the document pipeline produces. */
export type Format = 'markdown' | 'json' | 'html' | 'raw_html' | 'links';
export const FORMATS: readonly Format[] = ['markdown', 'json', 'html', 'raw_html', 'links'];
/** What a scrape may ask for: the document's formats, and a screenshot (of the viewport, or of the whole page). */
export type ScrapeFormat = Format | 'screenshot' | 'screenshot@full_page';
export const SCRAPE_FORMATS: readonly ScrapeFormat[] = [...FORMATS, 'screenshot', 'screenshot@full_page'];
const isDocumentFormat = (f: ScrapeFormat): f is Format => (FORMATS as readonly string[]).includes(f);

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
/** Added to SCANT_WARNING when the browser was not tried (render "http"). */
const RENDER_HINT = 'if the page draws its content with JavaScript, ask again with render "browser"';

/** What the answer adds when it is given free (nothingCameBack). */
export const FREE_WARNING = 'nothing came back from this page, so no credit was charged';

/**
 * Whether an HTML page's answer carries nothing at all: its content had no text after every
 * fallback (SCANT_WARNING), and every format asked for is empty (no markdown or html text, no
 * links, no JSON value, no raw HTML, no screenshot or action output). Such an answer is free.
 */
export function nothingCameBack(r: ScrapeResult): boolean {
  if (!r.warnings?.includes(SCANT_WARNING)) return false;
  const blank = (s: string | undefined) => s === undefined || s.trim() === '';
  const noValue = (v: unknown): boolean =>
    v === null || v === undefined || (Array.isArray(v) && v.every(noValue)) || v === '';
  return (
    blank(r.markdown) &&
    blank(r.html) &&
    blank(r.raw_html) &&
    !r.links?.length &&
    (!r.json || Object.values(r.json).every(noValue)) &&
    !r.screenshot &&
    !r.actions
  );
}

export function resolveFormats<F extends ScrapeFormat>(
  formats: F[] | undefined,
  hasSchema: boolean,
): Set<F | 'markdown' | 'json'> {
  const set = new Set<F | 'markdown' | 'json'>(formats?.length ? formats : ['markdown']);
  if (!formats?.length && hasSchema) set.add('json');
  return set;
}

/** A script that runs (not a JSON or template block). */
const RUNS_SCRIPTS = /<script\b(?![^>]*type=["']?(?:application\/(?:ld\+)?json|text\/template))[^>]*>/i;

/** Whether the options need the browser (a screenshot, actions, or something to wait for). */
export const needsBrowser = (o: Pick<ScrapeOptions, 'formats' | 'actions' | 'waitFor' | 'render'>) =>
  !!o.actions?.length ||
  !!o.formats?.some((f) => f.startsWith('screenshot')) ||
  (o.waitFor !== undefined && o.render !== 'http');

/** The cache key's parts for a scrape's options. */
export function cacheParts(options: ScrapeOptions): CacheKeyParts {
  return {
    url: options.url,
    formats: [...resolveFormats(options.formats, !!options.schema)],
    // A JSON Schema's enums and formats change the answer: part of the key.
    schema: options.schema?.hints
      ? { schema: options.schema.schema, hints: options.schema.hints }
      : (options.schema?.schema ?? (options.prompt ? { prompt: options.prompt } : undefined)),
    onlyMainContent: options.onlyMainContent,
    render: needsBrowser(options) ? 'browser' : options.render,
    waitFor: options.waitFor,
    screenshotFormat:
      options.formats?.some((f) => f.startsWith('screenshot')) || options.actions?.some((a) => a.type === 'screenshot')
        ? (options.screenshotFormat ?? 'png')
        : undefined,
    viewport: options.viewport,
    mobile: options.mobile,
    location: options.location,
    headers: options.headers,
    cookies: options.cookies,
    actions: options.actions,
    // The PDF page limit and the scrape steps' HTML change the result: part of the key whoever calls.
    extra:
      options.pdf?.maxPages !== undefined || options.actionScrapeHtml
        ? {
            ...options.cacheExtra,
            ...(options.pdf?.maxPages !== undefined ? { pdf_max_pages: options.pdf.maxPages } : {}),
            ...(options.actionScrapeHtml ? { action_scrape_html: true } : {}),
          }
        : options.cacheExtra,
  };
}

/**
 * One page in the formats asked. With `cache` and a `maxAgeMs`, a result of the same URL and
 * options younger than that is returned as it was stored (`metadata.cache: "hit"`); otherwise the
 * page is fetched and its result stored (`"miss"`).
 */
export async function scrape(fetchers: Fetchers, options: ScrapeOptions): Promise<ScrapeResult> {
  const cache = options.cache;
  if (!cache || cache.maxAgeMs <= 0) return scrapeNow(fetchers, options);
  const key = cacheKey(cacheParts(options), cache.account);
  const hit = await cache.store.get(key, new Date(Date.now() - cache.maxAgeMs));
  if (hit) return { ...hit.result, metadata: { ...hit.result.metadata, cache: 'hit', cached_at: hit.cachedAt } };
  // The entry lives no longer than the files it points to.
  const files: Date[] = [];
  const given = options.files;
  const sink: FileSink | undefined = given && {
    async save(bytes, format) {
      const saved = await given.save(bytes, format);
      if (saved.expiresAt) files.push(saved.expiresAt);
      return saved;
    },
  };
  const result = await scrapeNow(fetchers, { ...options, files: sink });
  const expiresAt = files.length ? new Date(Math.min(...files.map((d) => d.getTime()))) : undefined;
  // A cache that cannot be written is no reason to fail the scrape that was done.
  await cache.store.put(key, result, expiresAt).catch(() => undefined);
  return { ...result, metadata: { ...result.metadata, cache: 'miss' } };
}

async function scrapeNow(fetchers: Fetchers, options: ScrapeOptions): Promise<ScrapeResult> {
  const formats = resolveFormats(options.formats, !!options.schema);
  // json from a prompt alone: the LLM reads the page's markdown and chooses the fields.
  const askLlm = formats.has('json') && !options.schema && !!options.prompt && !!options.llm;
  if (formats.has('json') && !options.schema && !askLlm)
    throw new TrawlError('invalid_schema', 'schema: is required when formats includes "json"');
  const shot = formats.has('screenshot@full_page') ? 'full' : formats.has('screenshot') ? 'viewport' : undefined;
  const browser = needsBrowser(options);
  if ((options.actions?.length || shot) && options.render === 'http')
    throw new TrawlError(
      'invalid_request',
      'render: screenshots and actions need the browser; leave render out or set it to "browser"',
    );
  if ((shot || options.actions?.some((a) => a.type === 'screenshot')) && !options.files)
    throw new TrawlError(
      'invalid_request',
      'formats: screenshots need a place to keep them, which this caller has not set up',
    );
  // The time budget starts once the page's turn has come.
  const leave = await options.turn?.();
  const started = Date.now();
  // One deadline for the whole request: fetch, render, actions, processing and extraction.
  const deadline = started + (options.timeoutMs ?? 30_000);
  const setup: PageSetup | undefined =
    options.viewport || options.mobile || options.location || options.headers || options.cookies
      ? {
          viewport: options.viewport,
          mobile: options.mobile,
          location: options.location,
          headers: options.headers,
          cookies: options.cookies,
        }
      : undefined;
  const imageFormat = options.screenshotFormat ?? 'png';
  let page: Awaited<ReturnType<typeof fetchPage>>;
  try {
    page = await fetchPage(fetchers, options.url, {
      render: browser ? 'browser' : options.render,
      timeoutMs: options.timeoutMs,
      waitFor: options.waitFor,
      signal: options.signal,
      setup,
      actions: options.actions,
      screenshot: shot ? { fullPage: shot === 'full', format: imageFormat } : undefined,
      imageFormat,
      followRedirect: options.followRedirect,
      proxy: options.proxy,
      stealthGate: options.stealthGate,
    });
  } finally {
    leave?.();
  }
  const control = { signal: options.signal, deadline };
  const useLlm = !!options.llm && !!options.schema && formats.has('json');
  const docFormats = new Set([...formats].filter(isDocumentFormat));
  const screenshot = page.screenshot;
  const actionOutput = page.actions;
  // The LLM reads the page as markdown, even when markdown was not asked for.
  const asked = useLlm || askLlm ? new Set<Format>([...docFormats, 'markdown']) : docFormats;
  let result = await documentFromPage(page, asked, { ...options, documents: fetchers.documents, control });
  // Nothing to read in the HTML of a page that runs scripts: with render "auto", the browser's
  // copy is the answer when it has text (a shell the up-front check did not recognise).
  if (
    result.warnings?.includes(SCANT_WARNING) &&
    (options.render ?? 'auto') === 'auto' &&
    !browser &&
    !page.rendered &&
    page.kind === 'html' &&
    fetchers.browser?.available &&
    RUNS_SCRIPTS.test(page.text ?? '')
  ) {
    const rendered = await fetchPage(fetchers, options.url, {
      render: 'browser',
      timeoutMs: Math.max(1000, deadline - Date.now()),
      signal: options.signal,
      setup,
      proxy: page.proxyUsed ?? options.proxy,
      stealthGate: options.stealthGate,
    }).catch((e) => {
      // The HTTP copy is still an answer, unless the render found a refusal or a bot wall.
      if (e instanceof TrawlError && (e.code === 'forbidden_target' || e.code === 'blocked')) throw e;
      return undefined;
    });
    if (rendered) {
      const again = await documentFromPage(rendered, asked, { ...options, documents: fetchers.documents, control });
      if (!again.warnings?.includes(SCANT_WARNING)) {
        if (again.metadata.content_source === 'main') again.metadata.content_source = 'browser';
        result = again;
      }
    }
  }
  if (useLlm && result.json) {
    const filled = await options.llm!.fill({
      json: result.json,
      sources: result.sources ?? {},
      schema: options.schema!,
      markdown: result.markdown ?? '',
      url: result.url,
      prompt: options.prompt,
      signal: options.signal,
      timeoutMs: (options.timeoutMs ?? 30_000) - (Date.now() - started),
    });
    result.json = filled.json;
    result.sources = filled.sources;
    if (!formats.has('markdown')) delete result.markdown;
  }
  if (askLlm) {
    result.json = await options.llm!.ask({
      markdown: result.markdown ?? '',
      url: result.url,
      prompt: options.prompt!,
      signal: options.signal,
      timeoutMs: (options.timeoutMs ?? 30_000) - (Date.now() - started),
    });
    result.sources = Object.fromEntries(Object.keys(result.json).map((k) => [k, 'llm']));
    if (!formats.has('markdown')) delete result.markdown;
  }
  if (options.render === 'http' && result.warnings?.includes(SCANT_WARNING)) result.warnings.push(RENDER_HINT);
  // Kept as what the bytes are: a picture over the byte cap as PNG was taken as a JPEG (its warning says so).
  if (screenshot) result.screenshot = (await options.files!.save(screenshot, imageFormatOf(screenshot))).ref;
  if (actionOutput) result.actions = await actionResults(actionOutput, options, fetchers.documents, control);
  if (page.warnings?.length) result.warnings = [...page.warnings, ...(result.warnings ?? [])];
  return result;
}

/** The actions' screenshots kept, their snapshots of the page as markdown. */
async function actionResults(
  out: ActionOutput,
  options: ScrapeOptions,
  documents: DocumentProcessor | undefined,
  control: JobControl,
): Promise<ActionResults> {
  const screenshots: string[] = [];
  for (const b of out.screenshots) screenshots.push((await options.files!.save(b, imageFormatOf(b))).ref);
  const scrapes: ActionResults['scrapes'] = [];
  for (const s of out.scrapes) {
    const doc = await processDocument(
      documents,
      s.html,
      { url: s.url, onlyMainContent: options.onlyMainContent ?? true, markdown: true, html: false, links: false },
      undefined,
      control,
    );
    scrapes.push({
      url: withoutCredentials(s.url),
      markdown: doc.markdown ?? '',
      ...(options.actionScrapeHtml ? { html: s.html } : {}),
    });
  }
  return { screenshots, scrapes, javascript_returns: out.javascriptReturns };
}

/** How a fetched page becomes a document: main content only, a schema to extract, where it is processed, its limits. */
interface ConvertOptions {
  onlyMainContent?: boolean;
  schema?: CompiledSchema;
  documents?: DocumentProcessor;
  control?: JobControl;
  pdf?: { maxPages?: number };
}

/** Turn a fetched page into the requested formats (shared by scrape and extract); its admission slot is let go after. */
export async function documentFromPage(
  page: Page,
  formats: Set<Format>,
  options: ConvertOptions,
): Promise<ScrapeResult> {
  try {
    return await convertPage(page, formats, options);
  } finally {
    releasePage(page);
  }
}

async function convertPage(page: Page, formats: Set<Format>, options: ConvertOptions): Promise<ScrapeResult> {
  const base = {
    status_code: page.status,
    content_type: page.contentType.split(';')[0].trim() || (page.kind === 'pdf' ? 'application/pdf' : 'text/html'),
    source_url: page.sourceUrl,
    ...(page.proxyUsed ? { proxy_used: page.proxyUsed } : {}),
  };
  if (page.kind === 'pdf') {
    const { markdown, title, pages, warnings } = await processPdf(
      options.documents,
      page.bytes!,
      { maxPages: options.pdf?.maxPages },
      options.control,
    ).catch((e) => {
      // (a time limit or a cancellation is what it is; anything else is the document's fault)
      if (e instanceof TrawlError || options.control?.signal?.aborted) throw e;
      throw new TrawlError('fetch_failed', `${page.url} could not be read as a PDF: ${(e as Error)?.message ?? e}`, {
        cause: e,
        retryable: false,
      });
    });
    const result: ScrapeResult = {
      url: page.url,
      metadata: { title, description: null, language: null, ...base, pages },
    };
    if (warnings.length) result.warnings = warnings;
    if (formats.has('markdown')) result.markdown = markdown;
    if (formats.has('links')) result.links = [];
    if (formats.has('json') && options.schema) Object.assign(result, extractFromText(markdown, options.schema));
    return result;
  }
  if (page.kind === 'text') {
    const text = page.text ?? '';
    const ct = base.content_type;
    const markdown =
      ct.includes('json') || ct.includes('xml')
        ? `\`\`\`${ct.includes('json') ? 'json' : 'xml'}\n${text.trim()}\n\`\`\``
        : text.trim();
    const result: ScrapeResult = {
      url: page.url,
      metadata: { title: null, description: null, language: null, ...base },
    };
    if (formats.has('markdown')) result.markdown = markdown;
    if (formats.has('raw_html')) result.raw_html = text;
    if (formats.has('links')) result.links = [];
    if (formats.has('json') && options.schema) Object.assign(result, extractFromText(text, options.schema));
    return result;
  }
  const doc = await processDocument(
    options.documents,
    page.text ?? '',
    {
      url: page.url,
      onlyMainContent: options.onlyMainContent ?? true,
      markdown: formats.has('markdown'),
      html: formats.has('html'),
      links: formats.has('links'),
    },
    formats.has('json') && options.schema ? pageExtraction(options.schema) : undefined,
    options.control,
  );
  const extracted = doc.extracted;
  const result: ScrapeResult = {
    url: page.url,
    metadata: {
      title: doc.metadata.title,
      description: doc.metadata.description,
      language: doc.metadata.language,
      ...base,
      canonical_url: doc.metadata.canonical_url,
      // (A page rendered because its HTML was a script shell: its content is the browser's.)
      ...(doc.metadata.content_source
        ? {
            content_source:
              page.shell && doc.metadata.content_source === 'main' ? 'browser' : doc.metadata.content_source,
          }
        : {}),
      ...(doc.metadata.page_type ? { page_type: doc.metadata.page_type } : {}),
    },
  };
  if (doc.scant) result.warnings = [SCANT_WARNING];
  if (formats.has('markdown')) result.markdown = doc.markdown ?? '';
  if (extracted) {
    result.json = options.schema ? options.schema.finish(extracted.json, extracted.sources) : extracted.json;
    result.sources = extracted.sources;
  }
  if (formats.has('html')) result.html = doc.html ?? '';
  if (formats.has('raw_html')) result.raw_html = page.text ?? '';
  if (formats.has('links')) result.links = doc.links ?? [];
  return result;
}

function extractFromText(
  text: string,
  schema: CompiledSchema,
): { json: Record<string, unknown>; sources: Record<string, string> } {
  // Plain text and PDFs have no markup: only "Label: value" lines can answer.
  const out = extractFromDocument(parseHtml(''), { schema, url: 'about:blank', text });
  return { json: schema.finish(out.json, out.sources), sources: out.sources };
}
