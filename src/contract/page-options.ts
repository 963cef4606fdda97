/**
 * The browser-grade options of scrape (contract section 9), shared by the bodies that take them
 * (scrape, batch scrape, extract, monitors): screenshot format and viewport, actions, headers and
 * cookies, mobile, location, and max_age. Each field carries the sentence a person reads in
 * `detail`; `checkPageOptions` adds the checks that need several fields at once.
 */
import { z } from 'zod';
import { invalidRequest } from '../errors.js';
import { SCRAPE_FORMATS, type ScrapeFormat, type ScrapeOptions } from '../engine/scrape.js';
import type { CompiledSchema } from '../engine/extract/schema.js';
import { ACTION_TYPES, type Action } from '../engine/fetch/actions.js';
import {
  canonicalLanguage,
  isKnownCountry,
  type Cookie,
  type Location,
  type Viewport,
} from '../engine/fetch/emulation.js';
import { registrableDomain } from '../engine/fetch/site.js';
import { bool, intIn, oneOf, text } from './validation.js';
import { HOP_BY_HOP } from '../engine/fetch/hop-by-hop.js';

export const MAX_ACTIONS = 50;
export const MAX_HEADERS = 50;
export const MAX_COOKIES = 50;
const MAX_HEADER_VALUE = 4096;
/** max_age at most 30 days. */
const MAX_AGE_MS = 30 * 86_400_000;

/** Headers a caller may not set: the connection's own (hop-by-hop), the target's name, and what the client must control to read the answer. */
const REFUSED_HEADERS = new Set([...HOP_BY_HOP, 'host', 'content-length', 'expect', 'accept-encoding']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

export const scrapeFormats = z
  .array(oneOf(SCRAPE_FORMATS as unknown as [string, ...string[]]), {
    error: `must be an array of ${SCRAPE_FORMATS.join(', ')}`,
  })
  .min(1, { error: 'must list at least one format' })
  .max(SCRAPE_FORMATS.length, { error: `must list at most ${SCRAPE_FORMATS.length} formats` });

const selector = text(1, 1000).describe('A CSS selector');

const objectHint = `must be an object whose "type" is one of ${ACTION_TYPES.join(', ')}, e.g. {"type":"click","selector":"#more"}`;
const Action = z.discriminatedUnion(
  'type',
  [
    z
      .strictObject({
        type: z.literal('wait'),
        milliseconds: intIn(1, 60_000).optional(),
        selector: selector.optional(),
      })
      .refine((w) => (w.milliseconds === undefined) !== (w.selector === undefined), {
        error: 'a wait needs either "milliseconds" (1 to 60000) or "selector", not both',
      }),
    z.strictObject({
      type: z.literal('click'),
      selector,
      all: bool().optional().describe('Click every matching element (at most 100)'),
    }),
    z.strictObject({
      type: z.literal('write'),
      selector: selector.optional().describe('Focus this element first; else types into the focused one'),
      text: text(1, 5000),
    }),
    z.strictObject({
      type: z.literal('press'),
      key: text(1, 64).describe('A key name such as Enter, Tab, ArrowDown, or a combination such as Control+a'),
    }),
    z.strictObject({
      type: z.literal('scroll'),
      direction: oneOf(['down', 'up']),
      amount: z
        .union([intIn(1, 100_000), z.literal('bottom')], {
          error: 'must be a number of pixels from 1 to 100000, or "bottom"',
        })
        .optional()
        .describe('Pixels (default: one viewport height), or "bottom" (the top when scrolling up)'),
    }),
    z.strictObject({ type: z.literal('screenshot'), full_page: bool().optional() }),
    z.strictObject({ type: z.literal('scrape') }),
    z.strictObject({
      type: z.literal('execute_javascript'),
      script: text(1, 65_536).describe(
        'The body of an async function; what it returns (JSON, ≤ 64 KiB) is in actions.javascript_returns',
      ),
    }),
  ],
  {
    error: (iss) => {
      const type = (iss.input as { type?: unknown } | undefined)?.type;
      return iss.input && typeof iss.input === 'object' && type !== undefined
        ? `must be one of ${ACTION_TYPES.join(', ')} (got ${JSON.stringify(type).slice(0, 60)})`
        : objectHint;
    },
  },
);

/** One browser step (a login recipe takes them too). */
export const ActionBody = Action;

const headers = z
  .record(z.string(), z.string({ error: 'must be a string' }), {
    error: 'must be an object of header names and string values',
  })
  .superRefine((h, ctx) => {
    const names = Object.keys(h);
    if (names.length > MAX_HEADERS)
      ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_HEADERS} headers (got ${names.length})` });
    for (const name of names) {
      const value = h[name];
      const path = [name];
      if (!TOKEN.test(name)) ctx.addIssue({ code: 'custom', path, message: 'is not a valid header name' });
      else if (REFUSED_HEADERS.has(name.toLowerCase()))
        ctx.addIssue({
          code: 'custom',
          path,
          message: `cannot be set: ${name.toLowerCase() === 'host' ? "the host is the URL's" : 'it belongs to the connection, which Trawl manages'}`,
        });
      else if (Buffer.byteLength(value) > MAX_HEADER_VALUE)
        ctx.addIssue({ code: 'custom', path, message: `must be at most ${MAX_HEADER_VALUE} bytes` });
      else if (/[\r\n\0]/.test(value))
        ctx.addIssue({ code: 'custom', path, message: 'must not contain line breaks or NUL' });
    }
  });

const cookie = z.strictObject({
  name: z
    .string(req('must be a cookie name'))
    .regex(TOKEN, { error: "must be a cookie name (letters, digits and !#$%&'*+.^_`|~-)" }),
  value: z
    .string(req('must be a string'))
    .max(MAX_HEADER_VALUE, { error: `must be at most ${MAX_HEADER_VALUE} characters` })
    .refine((v) => !/[;\r\n\0]/.test(v), { error: 'must not contain ";", line breaks or NUL' }),
  domain: z
    .string(req('must be a host name'))
    .regex(/^\.?[A-Za-z0-9.-]{1,253}$/, { error: 'must be a host name such as example.com' })
    .optional()
    .describe("The cookie then goes to this host and the hosts under it; without it, to the URL's host only"),
  path: z
    .string(req('must be a path'))
    .regex(/^\/[^;\r\n\0]{0,1023}$/, { error: 'must be a path starting with "/"' })
    .optional(),
});

function req(msg: string) {
  return { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : msg) };
}

const location = z.strictObject(
  {
    country: z
      .string(req('must be an ISO 3166-1 alpha-2 code such as "DE"'))
      .refine(isKnownCountry, { error: 'must be an ISO 3166-1 alpha-2 code of a country, such as "DE"' })
      .transform((c) => c.toUpperCase())
      .optional(),
    languages: z
      .array(
        z
          .string()
          .max(35)
          .refine((l) => !!canonicalLanguage(l), { error: 'must be a BCP 47 language tag such as "de-DE" or "en"' })
          .transform((l) => canonicalLanguage(l)!),
        { error: 'must be an array of language tags such as ["de-DE","en"]' },
      )
      .min(1, { error: 'must list at least one language' })
      .max(10, { error: 'must list at most 10 languages' })
      .optional(),
  },
  { error: 'must be an object {"country","languages"}' },
);

/** Options of how the page is fetched: what extract and monitors take too. */
export const pageOptions = {
  actions: z
    .array(Action, { error: 'must be an array of actions' })
    .max(MAX_ACTIONS, { error: `must have at most ${MAX_ACTIONS} steps` })
    .optional()
    .describe('Browser steps run in order before the page is read (implies the browser)'),
  headers: headers.optional().describe(`Request headers (≤ ${MAX_HEADERS}), sent to the target's own site only`),
  cookies: z
    .array(cookie, { error: 'must be an array of {"name","value","domain"?,"path"?}' })
    .max(MAX_COOKIES, { error: `must have at most ${MAX_COOKIES} cookies` })
    .optional()
    .describe("Cookies, sent to the target's own site only"),
  mobile: bool().optional().describe('A phone: mobile user agent, 412×915 viewport, touch'),
  location: location.optional().describe('Accept-Language, the browser locale and time zone'),
};

/**
 * Which proxies carry a scrape (issue 42; Firecrawl's values): `basic` the operator's HTTP_PROXY_URLS
 * (or none; also when `proxy` is left out), `stealth` TRAWL_STEALTH_PROXY_URLS, `auto` basic first, then stealth
 * when the answer is a bot wall.
 */
export const proxyOption = oneOf(['basic', 'stealth', 'auto'])
  .optional()
  .describe('Proxy tier: "basic" (the default), "stealth" or "auto" (basic, then stealth when blocked)');

/** Options of scrape and batch scrape beyond pageOptions: screenshots and the cache. */
export const captureOptions = {
  screenshot_format: oneOf(['png', 'jpeg']).optional().describe('Format of screenshots (default png)'),
  viewport: z
    .strictObject(
      { width: intIn(240, 3840), height: intIn(240, 4320) },
      { error: 'must be an object {"width","height"}' },
    )
    .optional()
    .describe('Browser viewport in CSS pixels (default 1280×800; 412×915 when mobile)'),
  max_age: intIn(0, MAX_AGE_MS)
    .optional()
    .describe('Milliseconds: a cached result younger than this is returned without fetching (default 0: never)'),
};

export interface PageOptionsBody {
  url?: string;
  urls?: string[];
  formats?: string[];
  render?: string;
  timeout_ms?: number;
  wait_for?: string | number;
  actions?: { type: string; milliseconds?: number }[];
  headers?: Record<string, string>;
  cookies?: Cookie[];
  mobile?: boolean;
  location?: Location;
  screenshot_format?: 'png' | 'jpeg';
  viewport?: Viewport;
  max_age?: number;
  proxy?: 'basic' | 'stealth' | 'auto';
}

/** Checks that need several fields: screenshots and actions need the browser, waits fit the budget, cookies are for the target's site. */
export function checkPageOptions(body: PageOptionsBody, defaultTimeoutMs = 30_000): void {
  const formats = body.formats ?? [];
  if (formats.includes('screenshot') && formats.includes('screenshot@full_page'))
    throw invalidRequest('formats: ask for either "screenshot" or "screenshot@full_page", not both');
  const browser = formats.some((f) => f.startsWith('screenshot')) || !!body.actions?.length;
  if (browser && body.render === 'http')
    throw invalidRequest('render: screenshots and actions need the browser; leave render out or set it to "browser"');
  if (body.wait_for !== undefined && body.render === 'http')
    throw invalidRequest('wait_for: only applies when render is "browser" or "auto"');
  const waits = (body.actions ?? []).reduce(
    (ms, a) => ms + (a.type === 'wait' && a.milliseconds ? a.milliseconds : 0),
    typeof body.wait_for === 'number' ? body.wait_for : 0,
  );
  const budget = body.timeout_ms ?? defaultTimeoutMs;
  if (waits >= budget)
    throw invalidRequest(
      `actions: the waits add up to ${waits} ms, which does not fit in timeout_ms (${budget}); wait less or raise timeout_ms`,
    );
  // (Only when a cookie names its domain: a batch's 10,000 URLs are not parsed again for nothing.)
  if (!body.cookies?.some((c) => c.domain)) return;
  const sites = new Set(
    [body.url, ...(body.urls ?? [])].filter((u): u is string => !!u).map((u) => registrableDomain(new URL(u).hostname)),
  );
  body.cookies.forEach((c, i) => {
    if (c.domain && !sites.has(registrableDomain(c.domain.replace(/^\./, '')))) {
      throw invalidRequest(
        `cookies[${i}].domain: "${c.domain}" is not on the target's site (${[...sites].join(', ')}); cookies go to the target's own site only`,
      );
    }
  });
}

/** The engine's scrape options for the page options of a (validated) body. */
export function enginePageOptions(body: PageOptionsBody) {
  return {
    formats: body.formats as ScrapeFormat[] | undefined,
    screenshotFormat: body.screenshot_format,
    viewport: body.viewport,
    mobile: body.mobile,
    location: body.location,
    headers: body.headers,
    cookies: body.cookies,
    // The body was validated against the same shapes the engine's type describes.
    actions: body.actions as Action[] | undefined,
    ...(body.proxy ? { proxy: body.proxy } : {}),
  };
}

/** A validated page request: the page options of the contract and what the page is read for. */
export interface PageRequest extends PageOptionsBody {
  url: string;
  schema?: CompiledSchema;
  prompt?: string;
  only_main_content?: boolean;
  render?: 'auto' | 'http' | 'browser';
  pdf?: { max_pages?: number };
  action_scrape_html?: boolean;
}

/**
 * The engine's scrape options for a validated page request, as every surface that scrapes one
 * page reads the contract (what the caller's process adds: stores, signal, LLM, is its own).
 */
export function engineScrapeOptions(p: PageRequest): ScrapeOptions {
  return {
    ...enginePageOptions(p),
    url: p.url,
    schema: p.schema,
    prompt: p.prompt,
    onlyMainContent: p.only_main_content,
    render: p.render,
    timeoutMs: p.timeout_ms,
    waitFor: p.wait_for,
    pdf: p.pdf?.max_pages !== undefined ? { maxPages: p.pdf.max_pages } : undefined,
    actionScrapeHtml: p.action_scrape_html,
  };
}

/** Extract and monitors read the page after the steps; steps that only produce output (screenshot, scrape) would be lost there. */
export function checkPreparingActions(actions: { type: string }[] | undefined, where: string): void {
  actions?.forEach((a, i) => {
    if (a.type === 'screenshot' || a.type === 'scrape') {
      throw invalidRequest(
        `actions[${i}]: a ${a.type} step gives nothing in ${where}, whose answer is the page's data; use it with /v1/scrape or /v1/batch/scrape`,
      );
    }
  });
}

/** The page setup (device, location, headers, cookies) of a body, or undefined when it has none. */
export function pageSetupOf(body: PageOptionsBody) {
  const { mobile, location, headers, cookies, viewport } = body;
  return mobile || location || headers || cookies || viewport
    ? { mobile, location, headers, cookies, viewport }
    : undefined;
}
