/**
 * scrape: one URL → markdown / cleaned html / raw html / links / schema JSON + metadata.
 * Pure of HTTP and billing: options in, data out, or a TrawlError thrown.
 */
import { TrawlError } from '../errors.js';
import { processDocument } from './document/process.js';
import type { DocumentProcessor, JobControl } from './document/processor.js';
import type { ActionOutput } from './fetch/actions.js';
import type { PageSetup } from './fetch/emulation.js';
import { imageFormatOf } from './fetch/screenshot.js';
import { fetchPage, withoutCredentials, type Fetchers } from './fetch/page.js';
import { expiredError, sessionExpired } from './session-expired.js';
import { sessionExpiry } from './fetch/session-jar.js';
import { cacheKey, type CacheKeyParts } from './result-cache.js';
import { documentFromPage } from './document-from-page.js';
import {
  SCANT_WARNING,
  isDocumentFormat,
  type ActionResults,
  type FileSink,
  type Format,
  type ScrapeFormat,
  type ScrapeOptions,
  type ScrapeResult,
} from './scrape-model.js';

// Where callers find them: the scrape's model and the page's conversion have modules of their own.
export {
  FORMATS,
  SCRAPE_FORMATS,
  SCANT_WARNING,
  type ActionResults,
  type FileSink,
  type Format,
  type ScrapeCache,
  type ScrapeFormat,
  type ScrapeMetadata,
  type ScrapeOptions,
  type ScrapeResult,
} from './scrape-model.js';
export { documentFromPage } from './document-from-page.js';

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
  // A page read with a saved session is the session's alone: never served from or put in the cache.
  if (!cache || cache.maxAgeMs <= 0 || options.session) return scrapeNow(fetchers, options);
  const parts = cacheParts(options);
  const key = cacheKey(parts, cache.account);
  // A page read through the stealth proxy tier is its account's alone: it paid the tier, and
  // another's `proxy: "basic"` must not get through a cache what its tier cannot (issue 42).
  // (Only a request that may climb to the tier looks there: the others pay no second lookup.)
  const mayStealth = (options.proxy === 'auto' || options.proxy === 'stealth') && fetchers.http.stealthAvailable;
  const stealthKey = mayStealth
    ? cacheKey({ ...parts, extra: { ...parts.extra, proxy_tier: 'stealth' } }, cache.account, true)
    : undefined;
  const since = new Date(Date.now() - cache.maxAgeMs);
  const hit =
    (await cache.store.get(key, since)) ?? (stealthKey ? await cache.store.get(stealthKey, since) : undefined);
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
  await cache.store
    .put(result.metadata.proxy_used === 'stealth' && stealthKey ? stealthKey : key, result, expiresAt)
    .catch(() => undefined);
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
    options.viewport || options.mobile || options.location || options.headers || options.cookies || options.session
      ? {
          viewport: options.viewport,
          mobile: options.mobile,
          location: options.location,
          headers: options.headers,
          cookies: options.cookies,
          session: options.session,
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
      jar: options.clearance,
    });
  } catch (e) {
    throw (options.session && expiredError(options.session, options.url, e)) || e;
  } finally {
    leave?.();
  }
  if (options.session) {
    const why = sessionExpiry(options.url, page);
    if (why) throw sessionExpired(options.session, why);
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
      jar: options.clearance,
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
