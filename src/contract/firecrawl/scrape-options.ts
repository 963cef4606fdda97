/**
 * Firecrawl's scrape options (a scrape's body, a batch's, a crawl's or search's
 * `scrapeOptions`) in Trawl's terms: the formats to make, the schema, the budgets — and the
 * Firecrawl fields to answer with. Which options each use can honour is in the tables below;
 * the rest are refused by name (options.ts).
 */
import { compileSchema, type CompiledSchema, type Format } from '../../engine/index.js';
import { invalidRequest } from '../../errors.js';
import { unsupported } from './options.js';
import { strictJsonSchema } from '../../engine/extract/json-schema.js';
import { checkOptions, intIn, onlyAt, permits, refuse, type OptionTable } from './options.js';
import { browserPlan, checkWaits, screenshotFormat, ShotSettings, type BrowserPlan } from './browser-options.js';
import { BROWSER_PAGE_MS } from '../../engine/crawl/rich-page.js';
import type { ScrapeFormat } from '../../engine/scrape.js';

export type Version = 'v1' | 'v2';
/** Where the options apply: each path of Trawl's engine honours a different set. */
export type Use = 'scrape' | 'batch' | 'crawl' | 'search';
/** A field of Firecrawl's Document. */
export type Field = 'markdown' | 'html' | 'rawHtml' | 'links' | 'json' | 'extract' | 'summary' | 'screenshot';

export interface ScrapePlan {
  /** What the engine makes (the page's screenshot is `browser.screenshot`). */
  formats: Format[];
  /** What the answer carries, in Firecrawl's names. */
  fields: Field[];
  /** The schema as jobs store it: the caller's JSON Schema (its hints kept), or its short form. */
  schema?: Record<string, unknown>;
  compiled?: CompiledSchema;
  /** A hint for the LLM pass (scrape only). */
  prompt?: string;
  onlyMainContent?: boolean;
  timeoutMs?: number;
  /** Milliseconds to wait in the browser. */
  waitFor?: number;
  /** Screenshot, actions, headers, device, location, cache, PDF limit — in Trawl's names. */
  browser: BrowserPlan;
}

/** The formats the engine makes for a plan: the document's and the screenshot. */
export const engineFormats = (p: ScrapePlan): ScrapeFormat[] => [
  ...p.formats,
  ...(p.browser.screenshot ? [p.browser.screenshot] : []),
];

const TRAWL_FORMAT: Record<Exclude<Field, 'summary' | 'extract' | 'screenshot'>, Format> = {
  markdown: 'markdown',
  html: 'html',
  rawHtml: 'raw_html',
  links: 'links',
  json: 'json',
};

/** Options every use shares, at the values Trawl behaves as. */
const COMMON: OptionTable = {
  formats: 'map',
  onlyMainContent: 'map',
  headers: 'map',
  includeTags: refuse('Trawl selects the main content itself (onlyMainContent); CSS selectors are not supported'),
  excludeTags: refuse('Trawl selects the main content itself (onlyMainContent); CSS selectors are not supported'),
  mobile: 'map',
  parsers: 'map',
  actions: 'map',
  location: 'map',
  skipTlsVerification: onlyAt([false], 'Trawl always verifies TLS certificates'),
  removeBase64Images: onlyAt([true], "Trawl's markdown never carries base64 (data:) images"),
  fastMode: onlyAt([false], 'there is no fast mode'),
  useMock: refuse("mocks are a feature of Firecrawl's own test suite"),
  blockAds: onlyAt([false], 'Trawl does not block ads or cookie pop-ups'),
  // Pages of jobs and search stay on the basic tier (the stealth tier is priced on scrapes only);
  // a tier of one's own is for single scrapes (scrapeOptionTable).
  proxy: onlyAt(
    ['auto', 'basic'],
    'pages of batch scrapes, crawls and search use the basic proxy tier (the stealth tier is for single scrapes); choose a tier per page with POST /scrape',
  ),
  maxAge: 'map',
  storeInCache: 'map',
  minAge: refuse('Trawl has no cache-only reads: maxAge answers from the cache when it can, else fetches'),
  lockdown: onlyAt([false], 'Trawl has no cache-only reads: maxAge answers from the cache when it can, else fetches'),
  redactPII: onlyAt([false], 'PII redaction is not supported'),
  threatProtection: refuse('threat protection is a Firecrawl cloud feature'),
  auditMetadata: refuse('audit metadata is a Firecrawl cloud feature'),
  profile: refuse('browser profiles are not supported'),
  domainTools: onlyAt([false], 'domain tools are a Firecrawl cloud feature'),
  toolDetail: refuse('domain tools are a Firecrawl cloud feature'),
  zeroDataRetention: onlyAt([false], 'job results are kept for TRAWL_JOB_RETENTION_HOURS'),
  origin: 'tag',
  integration: 'tag',
};

/** Search reads its results over HTTP for their passages: the page options of a browser are not for it. */
const SEARCH_ONLY_HTTP =
  'search results are read over HTTP for their text; batch-scrape the result URLs (POST /batch/scrape) to use it';
const SEARCH: OptionTable = {
  headers: refuse(SEARCH_ONLY_HTTP),
  mobile: onlyAt([false], SEARCH_ONLY_HTTP),
  actions: refuse(SEARCH_ONLY_HTTP),
  location: refuse(`${SEARCH_ONLY_HTTP} (the search's own country and lang pick the results)`),
  parsers: {
    accepts: (v) =>
      Array.isArray(v) &&
      v.length > 0 &&
      v.every(
        (p) =>
          p === 'pdf' ||
          (typeof p === 'object' &&
            p !== null &&
            Object.keys(p).join() === 'type' &&
            (p as { type: unknown }).type === 'pdf'),
      ),
    why: 'search results are read as their text; PDF parser options are for scrapes, batches and crawls',
  },
  // A fresh page always satisfies maxAge; search results are not cached.
  maxAge: permits('search results are always read fresh'),
  storeInCache: permits('search results are not cached'),
};

/** v1's names for the same things (and its own extras). */
const V1_ONLY: OptionTable = {
  extract: 'map',
  jsonOptions: 'map',
  changeTrackingOptions: refuse('change tracking is not supported (Trawl has monitors: /v1/monitors)'),
  parsePDF: onlyAt([true], 'PDFs are always parsed to markdown'),
  agent: refuse('the FIRE-1 agent is a Firecrawl cloud feature'),
};

/** The scrape options a use honours (batch adds its own keys; see batch.ts). */
export function scrapeOptionTable(use: Use, version: Version): OptionTable {
  const t: OptionTable = { ...COMMON, ...(version === 'v1' ? V1_ONLY : {}), timeout: 'map', waitFor: 'map' };
  if (use === 'scrape') {
    t.proxy = 'map';
    // Trawl's own: a saved browser session (/v1/sessions, issue 44).
    t.session = 'map';
  }
  if (use === 'crawl') t.timeout = refuse("each page of a crawl has Trawl's fixed budget (15 s; 30 s in the browser)");
  if (use === 'search') {
    Object.assign(t, SEARCH);
    t.waitFor = onlyAt([0], SEARCH_ONLY_HTTP);
    t.timeout = refuse("search results are fetched within the search's own timeout");
    t.onlyMainContent = onlyAt([true], 'search results are read as their main content');
  }
  return t;
}

export interface PlanContext {
  version: Version;
  use: Use;
  /** Whether an LLM is configured (summary needs one). */
  llm: boolean;
  /** Path prefix for errors (`scrapeOptions.`). */
  at?: string;
}

/** Reads scrape options already checked against their table (checkOptions). */
export function planScrape(o: Record<string, unknown>, ctx: PlanContext): ScrapePlan {
  const at = ctx.at ?? '';
  const plan: ScrapePlan = { formats: [], fields: [], browser: {} };
  const shots = new ShotSettings();
  let screenshot: BrowserPlan['screenshot'];
  const fields = new Set<Field>();
  const rawFormats = o.formats;
  if (rawFormats !== undefined && !Array.isArray(rawFormats))
    throw invalidRequest(`${at}formats: must be an array of formats`);
  const list = (rawFormats as unknown[] | undefined) ?? (ctx.use === 'search' ? [] : ['markdown']);
  list.forEach((f, i) => {
    const p = `${at}formats[${i}]`;
    const name =
      typeof f === 'string' ? f : typeof f === 'object' && f !== null ? (f as { type?: unknown }).type : undefined;
    if (typeof name !== 'string') throw invalidRequest(`${p}: must be a format name or {"type": …}`);
    // A plain format as an object ({"type": "markdown"}) takes no options.
    const plain = () => typeof f === 'object' && checkOptions(f as Record<string, unknown>, { type: 'map' }, `${p}.`);
    switch (name) {
      case 'markdown':
      case 'html':
      case 'rawHtml':
      case 'links':
        plain();
        fields.add(name);
        return;
      case 'summary':
        plain();
        if (ctx.use !== 'scrape') throw unsupported(p, "'summary' is made for single scrapes only (POST /scrape)");
        if (!ctx.llm)
          throw unsupported(p, "'summary' needs an LLM and none is configured on this server (LLM_BASE_URL)");
        fields.add('summary');
        return;
      case 'json':
      case 'extract': {
        // v2: {type:'json', schema, prompt}; v1: "json" with jsonOptions, or "extract" with extract.
        const opts =
          typeof f === 'object'
            ? (f as Record<string, unknown>)
            : ctx.version === 'v1'
              ? (o[name === 'json' ? 'jsonOptions' : 'extract'] as Record<string, unknown> | undefined)
              : undefined;
        if (typeof f === 'string' && ctx.version === 'v2')
          throw invalidRequest(`${p}: "json" must be an object {"type": "json", "schema": …}`);
        const where = typeof f === 'object' ? `${p}.` : `${at}${name === 'json' ? 'jsonOptions' : 'extract'}.`;
        const j = checkOptions(
          opts ?? {},
          {
            type: 'map',
            schema: 'map',
            prompt: 'map',
            systemPrompt: refuse("Trawl's extractor uses its own instructions; give a prompt as a hint"),
            checkPromptInjection: onlyAt([false], 'prompt-injection checks are a Firecrawl cloud feature'),
          },
          where,
        );
        // A prompt alone drives the LLM of a single scrape when the server has one (issue 43).
        const promptAlone = j.schema === undefined && j.prompt !== undefined && ctx.use === 'scrape' && ctx.llm;
        if (j.schema === undefined && !promptAlone)
          throw unsupported(
            `${where}schema`,
            ctx.use !== 'scrape'
              ? 'json from a prompt alone is for single scrapes: for crawls and batches add "schema" (a JSON Schema)'
              : j.prompt === undefined
                ? 'add "schema" (a JSON Schema), or a "prompt" when the server has an LLM'
                : 'json from a prompt alone needs an LLM, and this server has none (its operator can set LLM_BASE_URL, LLM_MODEL and LLM_API_KEY): add "schema" (a JSON Schema)',
          );
        if (j.schema !== undefined) {
          plan.schema = strictJsonSchema(j.schema, `${where}schema`);
          // Trawl's limits (depth, field count, names) apply as to its own schemas.
          plan.compiled = compileSchema(plan.schema, `${where}schema`);
        }
        if (j.prompt !== undefined) {
          if (typeof j.prompt !== 'string' || j.prompt.length > 2000)
            throw invalidRequest(`${where}prompt: must be a string of at most 2000 characters`);
          if (ctx.use !== 'scrape')
            throw unsupported(
              `${where}prompt`,
              'a prompt guides single scrapes only; for crawls and batches the schema alone guides extraction',
            );
          plan.prompt = j.prompt;
        }
        fields.add(name === 'extract' ? 'extract' : 'json');
        return;
      }
      case 'screenshot':
      case 'screenshot@fullPage': {
        if (ctx.use === 'search') throw unsupported(p, SEARCH_ONLY_HTTP);
        const shot = screenshotFormat(f, p, shots);
        if (screenshot)
          throw invalidRequest(`${p}: ask for one screenshot (a viewport's, or the full page's), not two`);
        screenshot = shot;
        fields.add('screenshot');
        return;
      }
      default:
        throw unsupported(
          p,
          `format '${name}' is not supported (Trawl makes markdown, html, rawHtml, links, json, screenshot${ctx.llm ? ', summary' : ''})`,
        );
    }
  });
  for (const k of ['jsonOptions', 'extract'] as const) {
    if (o[k] !== undefined && !fields.has(k === 'extract' ? 'extract' : 'json'))
      throw invalidRequest(`${at}${k}: list "${k === 'extract' ? 'extract' : 'json'}" in formats to use it`);
  }
  if (ctx.use === 'crawl' && fields.has('rawHtml'))
    throw unsupported(
      `${at}formats`,
      "'rawHtml' is not kept for crawled pages; use html, or a batch scrape of the URLs",
    );
  if (ctx.use === 'search' && [...fields].some((f) => f !== 'markdown'))
    throw unsupported(`${at}formats`, 'search results carry markdown only');
  plan.fields = [...fields];
  const formats = new Set<Format>();
  for (const f of plan.fields)
    if (f !== 'summary' && f !== 'screenshot') formats.add(f === 'extract' ? 'json' : TRAWL_FORMAT[f]);
  // The summary is written from the page's markdown.
  if (fields.has('summary')) formats.add('markdown');
  plan.formats = [...formats];
  if (o.onlyMainContent !== undefined) {
    if (typeof o.onlyMainContent !== 'boolean') throw invalidRequest(`${at}onlyMainContent: must be true or false`);
    plan.onlyMainContent = o.onlyMainContent;
  }
  if (o.timeout !== undefined) plan.timeoutMs = intIn(o.timeout, 1000, 120_000, `${at}timeout`, 'milliseconds');
  if (o.waitFor !== undefined && o.waitFor !== 0)
    plan.waitFor = intIn(o.waitFor, 0, 60_000, `${at}waitFor`, 'milliseconds');
  plan.browser = browserPlan(o, at, shots, screenshot);
  // (Jobs and search climb the ladder on their own: "auto".)
  if (ctx.use !== 'scrape') delete plan.browser.proxy;
  // The page's waits fit in its budget: the request's timeout, or a crawled page's.
  if (ctx.use === 'crawl') checkWaits(plan.browser, plan.waitFor, BROWSER_PAGE_MS, at, "a crawled page's budget");
  else checkWaits(plan.browser, plan.waitFor, plan.timeoutMs ?? 30_000, at, `timeout`);
  return plan;
}

/**
 * A plan's page options in Trawl's names, as a batch or crawl job stores them (and scrape reads
 * them): the browser's options, waitFor, and whether screenshots need the files' address.
 */
export function pageOptionsOf(plan: ScrapePlan): {
  screenshot_format?: 'png' | 'jpeg';
  viewport?: BrowserPlan['viewport'];
  actions?: BrowserPlan['actions'];
  headers?: Record<string, string>;
  mobile?: boolean;
  location?: BrowserPlan['location'];
  max_age?: number;
  pdf?: { max_pages: number };
  proxy?: 'basic' | 'stealth' | 'auto';
  wait_for?: number;
  render?: 'browser';
  action_scrape_html?: boolean;
} {
  const { screenshot: _shot, ...b } = plan.browser;
  return {
    ...b,
    ...(plan.waitFor !== undefined ? { wait_for: plan.waitFor, render: 'browser' as const } : {}),
    // Firecrawl's scrape steps answer the page's HTML.
    ...(b.actions?.some((a) => a.type === 'scrape') ? { action_scrape_html: true } : {}),
  };
}

/** Whether the plan's pages make screenshots (so their URLs need the service's address). */
export const takesScreenshots = (plan: ScrapePlan) =>
  !!plan.browser.screenshot || !!plan.browser.actions?.some((a) => a.type === 'screenshot');
