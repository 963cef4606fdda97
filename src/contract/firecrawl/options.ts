/**
 * Which of Firecrawl's request options Trawl honours. Every key a body carries is looked up in
 * its endpoint's table before anything else happens: an option Trawl maps is validated and used;
 * an option Trawl cannot honour is refused by name — unless it carries the value Trawl already
 * behaves as (`blockAds: false`, `includeTags: []`, `proxy: "basic"`); a key
 * that is no option of Firecrawl's API at all is refused too. Nothing is silently ignored.
 */
import { invalidRequest, TrawlError } from '../../errors.js';

/**
 * An option of Firecrawl's API that Trawl cannot honour: refused by name (never ignored), as a
 * 400 whose details carry the option's path.
 */
export function unsupported(path: string, why: string): TrawlError {
  return new TrawlError('invalid_request', `${path}: not supported by Trawl's Firecrawl-compatible API — ${why}`, {
    fields: { unsupported_option: path },
  });
}
import { EMPTY_BODY, httpUrl } from '../validation.js';

export type Rule =
  /** Mapped onto Trawl's options (validated by the endpoint's schema). */
  | 'map'
  /** A caller's label (`origin`, `integration`): it asks for no behaviour. */
  | 'tag'
  /** Accepted only at values Trawl already behaves as; refused otherwise, with why. */
  | { accepts: (v: unknown) => boolean; why: string };

export type OptionTable = Record<string, Rule>;

/** Refused at any value but an empty one. */
export const refuse = (why: string): Rule => ({ accepts: isEmpty, why });
/** Accepted only at these values (Trawl's own behaviour). */
export const onlyAt = (values: readonly unknown[], why: string): Rule => ({
  accepts: (v) => values.includes(v as never),
  why,
});
/** Accepted at any value: the option only permits something Trawl never needs (a cached answer …). */
export const permits = (why: string): Rule => ({ accepts: () => true, why });

export function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

/**
 * Checks every key of `body` against `table`; `at` prefixes paths in errors (`scrapeOptions.`).
 * Returns the body without null values (Firecrawl's clients send null for "not set").
 */
export function checkOptions(body: Record<string, unknown>, table: OptionTable, at = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const rule = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
    if (!rule) throw unsupported(`${at}${key}`, "not an option of this endpoint in Firecrawl's API");
    if (value === null || value === undefined) continue;
    if (typeof rule === 'object' && !rule.accepts(value)) throw unsupported(`${at}${key}`, rule.why);
    if (rule === 'map') out[key] = value;
  }
  return out;
}

/** A body as a plain object, or a 400 naming where. */
export function objectAt(v: unknown, at: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidRequest(`${at}: must be a JSON object`);
  return v as Record<string, unknown>;
}

/** The request body as an object (Firecrawl's endpoints all take one). */
export function bodyOf(body: unknown): Record<string, unknown> {
  if (body === undefined) throw invalidRequest(EMPTY_BODY);
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidRequest('body: must be a JSON object');
  return body as Record<string, unknown>;
}

const URL_CHECK = httpUrl();

/** An http(s) URL, or a 400 naming the field. */
export function httpUrlAt(v: unknown, path: string): string {
  if (v === undefined) throw invalidRequest(`${path}: is required`);
  if (!URL_CHECK.safeParse(v).success) throw invalidRequest(`${path}: must be an http or https URL`);
  return v as string;
}

/** A boolean option, or a 400 naming it. */
export function boolAt(v: unknown, path: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw invalidRequest(`${path}: must be true or false`);
  return v;
}

/** An array of strings (at most `max`, each 1–`len` characters), or a 400 naming it. */
export function stringsAt(v: unknown, path: string, max: number, len = 500): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > max || v.some((s) => typeof s !== 'string' || !s.length || s.length > len)) {
    throw invalidRequest(`${path}: must be an array of at most ${max} strings of 1 to ${len} characters`);
  }
  return v as string[];
}

/** An integer in bounds, or a 400 naming it. */
export function intIn(v: unknown, min: number, max: number, path: string, unit = ''): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw invalidRequest(`${path}: must be an integer from ${min} to ${max}${unit ? ` (${unit})` : ''}`);
  return v;
}

/**
 * Whether a crawl or a map reads the site's sitemaps (default: it does): v2's `sitemap`
 * ("include" or "skip"; "only" is refused, `whyNotOnly` saying what Trawl does instead), v1's
 * `ignoreSitemap`.
 */
export function sitemapWanted(o: Record<string, unknown>, version: 'v1' | 'v2', whyNotOnly: string): boolean {
  let useSitemap = true;
  if (version === 'v2' && o.sitemap !== undefined) {
    if (o.sitemap === 'only') throw unsupported('sitemap', whyNotOnly);
    if (o.sitemap !== 'include' && o.sitemap !== 'skip') throw invalidRequest('sitemap: must be "include" or "skip"');
    useSitemap = o.sitemap === 'include';
  }
  if (version === 'v1' && boolAt(o.ignoreSitemap, 'ignoreSitemap')) useSitemap = false;
  return useSitemap;
}
