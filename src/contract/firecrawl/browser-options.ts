/**
 * Firecrawl's browser options onto Trawl's (API.md section 9), and Trawl's answers back into
 * Firecrawl's shapes. In: screenshot formats (`screenshot`, `screenshot@fullPage`, v2's
 * `{type: "screenshot", fullPage, quality, viewport}`), `actions` (wait, click, write, press,
 * scroll, screenshot, scrape, executeJavascript), `headers`, `mobile`, `location`, `maxAge`,
 * `storeInCache`, `parsers`. Out: `actions: {screenshots, scrapes: [{url, html}], javascriptReturns:
 * [{type, value}], pdfs}` and `metadata.cacheState`/`cachedAt`. Values are checked with the same
 * rules as /v1's (server/scrape-options.ts), errors naming Firecrawl's paths.
 */
import { Script } from 'node:vm';
import { z } from 'zod';
import type { Action } from '../../engine/fetch/actions.js';
import type { Location, Viewport } from '../../engine/fetch/emulation.js';
import type { ActionResults } from '../../engine/scrape.js';
import { invalidRequest } from '../../errors.js';
import { captureOptions, pageOptions } from '../page-options.js';
import { unsupported } from './options.js';
import { checkOptions, refuse, type OptionTable } from './options.js';

/** Trawl's page options as its bodies name them (what a scrape, batch or crawl job takes). */
export interface BrowserPlan {
  screenshot?: 'screenshot' | 'screenshot@full_page';
  screenshot_format?: 'png' | 'jpeg';
  viewport?: Viewport;
  actions?: Action[];
  headers?: Record<string, string>;
  mobile?: boolean;
  location?: Location;
  max_age?: number;
  pdf?: { max_pages: number };
  proxy?: 'basic' | 'stealth' | 'auto';
}

/** Trawl keeps results at most 30 days; a longer maxAge permits nothing more. */
const MAX_AGE_MS = 30 * 86_400_000;
const ACTION_TYPES = ['wait', 'click', 'write', 'press', 'scroll', 'screenshot', 'scrape', 'executeJavascript'];
const NO_PDF =
  'Trawl does not print pages to PDF; take a screenshot step ({"type": "screenshot", "fullPage": true}) instead';

/** A value checked with one of /v1's Zod shapes; a failure names `path` (and the part inside it). */
function parsed<T extends z.ZodType>(schema: T, value: unknown, path: string, rename: Record<string, string> = {}) {
  const r = schema.safeParse(value);
  if (r.success) return r.data as z.output<T>;
  const issue = r.error.issues[0];
  let at = path;
  for (const p of issue.path) at += typeof p === 'number' ? `[${p}]` : `.${rename[String(p)] ?? String(p)}`;
  throw invalidRequest(`${at}: ${issue.message.startsWith('Invalid input') ? 'has an invalid value' : issue.message}`);
}

/** A screenshot's JPEG quality (any asks for JPEG; Trawl encodes at its own quality, 80). */
function quality(v: unknown, path: string): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100)
    throw invalidRequest(`${path}: must be a number from 0 to 100`);
}

/** Collects what screenshot formats and steps ask of the page: one viewport, one image format. */
export class ShotSettings {
  viewport?: Viewport;
  viewportAt?: string;
  jpeg = false;

  take(o: Record<string, unknown>, at: string): void {
    quality(o.quality, `${at}quality`);
    if (o.quality !== undefined && o.quality !== null) this.jpeg = true;
    if (o.viewport === undefined || o.viewport === null) return;
    const v = parsed(captureOptions.viewport, o.viewport, `${at}viewport`) as Viewport;
    if (this.viewport && (this.viewport.width !== v.width || this.viewport.height !== v.height))
      throw unsupported(
        `${at}viewport`,
        `a page has one viewport, and ${this.viewportAt} already set ${this.viewport.width}×${this.viewport.height}; give the same viewport or one only`,
      );
    this.viewport = v;
    this.viewportAt = `${at}viewport`;
  }
}

/** A screenshot format (`screenshot`, `screenshot@fullPage`, or v2's object) at `p` (`formats[2]`). */
export function screenshotFormat(f: unknown, p: string, shots: ShotSettings): 'screenshot' | 'screenshot@full_page' {
  if (typeof f === 'string') return f === 'screenshot@fullPage' ? 'screenshot@full_page' : 'screenshot';
  const o = checkOptions(
    f as Record<string, unknown>,
    { type: 'map', fullPage: 'map', quality: 'map', viewport: 'map' },
    `${p}.`,
  );
  shots.take(o, `${p}.`);
  if (o.fullPage !== undefined && typeof o.fullPage !== 'boolean')
    throw invalidRequest(`${p}.fullPage: must be true or false`);
  return o.fullPage ? 'screenshot@full_page' : 'screenshot';
}

/** Playwright's key names, matched without regard to case (Firecrawl's examples write "ENTER"). */
const KEY_NAMES = new Map(
  [
    'Enter',
    'Tab',
    'Escape',
    'Backspace',
    'Delete',
    'Insert',
    'Home',
    'End',
    'PageUp',
    'PageDown',
    'ArrowUp',
    'ArrowDown',
    'ArrowLeft',
    'ArrowRight',
    'Shift',
    'Control',
    'Alt',
    'Meta',
    'ControlOrMeta',
    'CapsLock',
    'Space',
    ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  ].map((k) => [k.toLowerCase(), k]),
);
KEY_NAMES.set('esc', 'Escape');
KEY_NAMES.set('return', 'Enter');
KEY_NAMES.set('ctrl', 'Control');

const keyName = (key: string) =>
  key.length > 1
    ? key
        .split('+')
        .map((k) => (k.length > 1 ? (KEY_NAMES.get(k.toLowerCase()) ?? k) : k))
        .join('+')
    : key;

/**
 * Firecrawl's script as the body Trawl runs: an expression (`document.title`, an IIFE) answers its
 * value — a function's (`() => document.title`) is called, as a browser driver evaluating a string
 * does —; statements run as they are, answering what they `return`. The test only compiles the
 * script here (it runs in the page, never in this process).
 */
export function scriptBody(script: string): string {
  const body = `const __trawl_value = (\n${script}\n);\nreturn typeof __trawl_value === 'function' ? __trawl_value() : __trawl_value;`;
  try {
    new Script(`(async () => {\n${body}\n})`);
    return body;
  } catch {
    return script;
  }
}

/** One of Firecrawl's steps as Trawl's, the step's keys checked (an unknown one is refused by name). */
function mapAction(a: unknown, p: string, shots: ShotSettings): Record<string, unknown> {
  if (typeof a !== 'object' || a === null || Array.isArray(a))
    throw invalidRequest(`${p}: must be an object whose "type" is one of ${ACTION_TYPES.join(', ')}`);
  const type = (a as { type?: unknown }).type;
  const at = `${p}.`;
  const check = (table: OptionTable) => checkOptions(a as Record<string, unknown>, { type: 'map', ...table }, at);
  switch (type) {
    case 'wait':
      return { type, ...check({ milliseconds: 'map', selector: 'map' }) };
    case 'click':
      return { type, ...check({ selector: 'map', all: 'map' }) };
    case 'write':
      return { type, ...check({ text: 'map', selector: 'map' }) };
    case 'press': {
      const o = check({ key: 'map' });
      return { type, key: typeof o.key === 'string' ? keyName(o.key) : o.key };
    }
    case 'scroll': {
      const o = check({
        direction: 'map',
        amount: 'map',
        selector: refuse(
          'scrolling inside an element is not supported: scroll the page, or run {"type": "executeJavascript", "script": "document.querySelector(…).scrollBy(0, 500)"}',
        ),
      });
      return { type, direction: o.direction ?? 'down', ...(o.amount !== undefined ? { amount: o.amount } : {}) };
    }
    case 'screenshot': {
      const o = check({ fullPage: 'map', quality: 'map', viewport: 'map' });
      shots.take(o, at);
      return { type, ...(o.fullPage !== undefined ? { full_page: o.fullPage } : {}) };
    }
    case 'scrape':
      check({});
      return { type };
    case 'executeJavascript': {
      const o = check({ script: 'map' });
      return { type: 'execute_javascript', script: typeof o.script === 'string' ? scriptBody(o.script) : o.script };
    }
    case 'pdf':
    case 'generatePDF':
      throw unsupported(`${p}.type`, NO_PDF);
    default:
      throw invalidRequest(
        `${p}.type: must be one of ${ACTION_TYPES.join(', ')} (got ${JSON.stringify(type ?? null).slice(0, 60)})`,
      );
  }
}

/** Firecrawl's `actions` as Trawl's steps, in the same order (a failing step's index is the caller's). */
export function mapActions(v: unknown, at: string, shots: ShotSettings): Action[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalidRequest(`${at}actions: must be an array of actions`);
  if (!v.length) return undefined;
  const steps = v.map((a, i) => mapAction(a, `${at}actions[${i}]`, shots));
  return parsed(pageOptions.actions, steps, `${at}actions`, { full_page: 'fullPage' }) as Action[];
}

/** `parsers`: PDFs are read as text (Trawl's own reader), with a page limit when one is given. */
export function pdfOptions(v: unknown, at: string): { max_pages: number } | undefined {
  if (v === undefined || v === null) return undefined;
  const path = `${at}parsers`;
  if (!Array.isArray(v)) throw invalidRequest(`${path}: must be an array such as ["pdf"]`);
  if (!v.length)
    throw unsupported(
      path,
      'Trawl always reads a PDF into markdown; an empty list (the file as base64) is not supported',
    );
  let maxPages: number | undefined;
  v.forEach((p, i) => {
    const here = `${path}[${i}]`;
    const type = typeof p === 'object' && p !== null ? (p as { type?: unknown }).type : p;
    if (type !== 'pdf')
      throw unsupported(
        here,
        type === 'image'
          ? 'Trawl reads no images (no OCR); leave "image" out'
          : `only the "pdf" parser exists (got ${JSON.stringify(type).slice(0, 40)})`,
      );
    if (typeof p !== 'object') return;
    const o = checkOptions(
      p as Record<string, unknown>,
      {
        type: 'map',
        maxPages: 'map',
        mode: {
          accepts: (m) => m === 'auto' || m === 'fast',
          why: 'Trawl reads the text layer of a PDF ("fast"; "auto" does the same, with no OCR for scans); "ocr" is not supported',
        },
        pages: refuse('per-page markdown is not supported: the document is one markdown text'),
        pageMarkdown: refuse('per-page markdown is not supported: the document is one markdown text'),
        blocks: refuse('layout blocks are not supported'),
        pageMarkers: refuse('page markers are not supported'),
      },
      `${here}.`,
    );
    if (o.maxPages !== undefined) {
      if (typeof o.maxPages !== 'number' || !Number.isInteger(o.maxPages) || o.maxPages < 1 || o.maxPages > 10_000)
        throw invalidRequest(`${here}.maxPages: must be an integer from 1 to 10000`);
      maxPages = o.maxPages;
    }
  });
  return maxPages !== undefined ? { max_pages: maxPages } : undefined;
}

/**
 * The page options of a scrape-options body (already checked against its table): everything but
 * the formats, which `planScrape` reads (passing `shots` here for the viewport and image format).
 */
export function browserPlan(
  o: Record<string, unknown>,
  at: string,
  shots: ShotSettings,
  screenshot: BrowserPlan['screenshot'],
): BrowserPlan {
  const plan: BrowserPlan = {};
  if (screenshot) plan.screenshot = screenshot;
  const actions = mapActions(o.actions, at, shots);
  if (actions) plan.actions = actions;
  if (given(o.headers)) plan.headers = parsed(pageOptions.headers, o.headers, `${at}headers`) as Record<string, string>;
  if (o.mobile !== undefined) {
    if (typeof o.mobile !== 'boolean') throw invalidRequest(`${at}mobile: must be true or false`);
    if (o.mobile) plan.mobile = true;
  }
  // Firecrawl's tiers: v1 "stealth", v2 "enhanced" (the same: the operator's stealth proxies).
  if (o.proxy !== undefined && o.proxy !== null) {
    const tier = o.proxy === 'enhanced' ? 'stealth' : o.proxy;
    if (tier !== 'basic' && tier !== 'stealth' && tier !== 'auto')
      throw invalidRequest(`${at}proxy: must be "basic", "stealth" (or "enhanced") or "auto"`);
    plan.proxy = tier;
  }
  if (given(o.location)) plan.location = parsed(pageOptions.location, o.location, `${at}location`) as Location;
  if (o.maxAge !== undefined) {
    if (typeof o.maxAge !== 'number' || !Number.isInteger(o.maxAge) || o.maxAge < 0)
      throw invalidRequest(`${at}maxAge: must be a whole number of milliseconds, 0 or more`);
    if (o.maxAge > 0) plan.max_age = Math.min(o.maxAge, MAX_AGE_MS);
  }
  if (o.storeInCache === false && plan.max_age)
    throw unsupported(
      `${at}storeInCache`,
      'Trawl stores every result read with maxAge (that is how a later request finds it); leave storeInCache out, or set maxAge to 0',
    );
  const pdf = pdfOptions(o.parsers, at);
  if (pdf) plan.pdf = pdf;
  if (shots.viewport) plan.viewport = shots.viewport;
  if (shots.jpeg) plan.screenshot_format = 'jpeg';
  return plan;
}

/** A value to read: anything but nothing or an empty object (what SDKs send for "none"). */
const given = (v: unknown) =>
  v !== undefined && !(typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.keys(v).length);

/** The waits a page makes (waitFor and wait steps), which must fit in its budget. */
export function checkWaits(plan: BrowserPlan, waitFor: number | undefined, budgetMs: number, at: string, of: string) {
  const waits = (plan.actions ?? []).reduce(
    (ms, a) => ms + (a.type === 'wait' && a.milliseconds ? a.milliseconds : 0),
    waitFor ?? 0,
  );
  if (waits >= budgetMs)
    throw invalidRequest(
      `${at}actions: the waits (waitFor and wait steps) add up to ${waits} ms, which does not fit in ${of} (${budgetMs} ms); wait less${of.startsWith('timeout') ? ' or raise timeout' : ''}`,
    );
}

/** Trawl's action outputs in Firecrawl's shape (`pdfs` is always empty: Trawl prints no PDFs). */
export function actionsAnswer(a: ActionResults | undefined): Record<string, unknown> | undefined {
  if (!a) return undefined;
  return {
    screenshots: a.screenshots,
    scrapes: a.scrapes.map((s) => ({ url: s.url, html: s.html ?? '', markdown: s.markdown })),
    javascriptReturns: a.javascript_returns.map((value) => ({ type: typeof value, value })),
    pdfs: [],
  };
}
