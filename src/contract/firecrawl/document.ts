/**
 * Firecrawl's Document from what Trawl made: a scrape's result, or a page of a batch or crawl
 * job as the job stored it. Content fields keep Firecrawl's names (`rawHtml`, `json` — or v1's
 * `extract` —, `screenshot`, `actions` in Firecrawl's shape), and metadata carries `sourceURL`
 * (what was asked), `url` (where it ended), `statusCode`, `title`, `description`, `language`,
 * `contentType`, `numPages`, `cacheState`/`cachedAt`; a value Trawl did not find is left out, as
 * Firecrawl does.
 */
import type { ScrapeResult } from '../../engine/index.js';
import type { ActionResults } from '../../engine/scrape.js';
import { actionsAnswer } from './browser-options.js';
import type { Field } from './scrape-options.js';

export type FirecrawlDocument = Record<string, unknown> & { metadata: Record<string, unknown> };

/** Trawl's field name → Firecrawl's. */
const CONTENT: [string, Field][] = [
  ['markdown', 'markdown'],
  ['html', 'html'],
  ['raw_html', 'rawHtml'],
  ['links', 'links'],
  ['json', 'json'],
  ['screenshot', 'screenshot'],
];

function metadataOf(
  m: {
    title?: unknown;
    description?: unknown;
    language?: unknown;
    status_code?: unknown;
    content_type?: unknown;
    source_url?: unknown;
    canonical_url?: unknown;
    pages?: unknown;
    cache?: unknown;
    cached_at?: unknown;
    proxy_used?: unknown;
  },
  sourceURL: string,
  url: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => {
    if (v !== null && v !== undefined && v !== '') out[k] = v;
  };
  put('title', m.title);
  put('description', m.description);
  put('language', m.language);
  put('sourceURL', sourceURL);
  put('url', url);
  put('statusCode', m.status_code);
  put('contentType', m.content_type);
  put('canonicalUrl', m.canonical_url);
  put('numPages', m.pages);
  // With maxAge: whether the answer came from Trawl's result cache, and when it was made.
  put('cacheState', m.cache);
  put('cachedAt', m.cached_at);
  // Firecrawl's name for the proxy tier that served the page (issue 42).
  put('proxyUsed', m.proxy_used);
  return out;
}

/** Content fields, renamed, limited to `fields` (all present ones when absent); `json` answers as v1's `extract` when that was asked. */
function contentOf(r: Record<string, unknown>, fields?: readonly Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const want = fields ? new Set(fields) : undefined;
  for (const [trawl, name] of CONTENT) {
    if (r[trawl] === undefined) continue;
    if (name === 'json' && want?.has('extract')) out.extract = r.json;
    if (!want || want.has(name)) out[name] = r[trawl];
  }
  // Present only when actions were given.
  const actions = actionsAnswer(r.actions as ActionResults | undefined);
  if (actions) out.actions = actions;
  return out;
}

/** A scrape's answer; `summary` when one was written. */
export function documentOfScrape(
  r: ScrapeResult,
  requested: string,
  fields: readonly Field[],
  summary?: string,
): FirecrawlDocument {
  return {
    ...contentOf(r as unknown as Record<string, unknown>, fields),
    ...(summary !== undefined ? { summary } : {}),
    ...(r.warnings?.length ? { warning: r.warnings.join(' ') } : {}),
    metadata: metadataOf(r.metadata, requested, r.url),
  };
}

/**
 * A job page (batch: `{url, final_url, …, metadata}`; crawl: `{url, depth, status_code, title, …}`)
 * that succeeded; failed pages go to the errors endpoint instead.
 */
export function documentOfPage(page: Record<string, unknown>, fields?: readonly Field[]): FirecrawlDocument {
  const url = String(page.final_url ?? page.url);
  const meta = (page.metadata as Record<string, unknown> | undefined) ?? {
    title: page.title,
    status_code: page.status_code,
    cache: page.cache,
    cached_at: page.cached_at,
  };
  const warnings = page.warnings as string[] | undefined;
  return {
    ...contentOf(page, fields),
    ...(warnings?.length ? { warning: warnings.join(' ') } : {}),
    metadata: metadataOf(meta, String(page.url), url),
  };
}
