import type { ParentNode } from './dom.js';
import { absoluteUrl, elements } from './dom.js';

/**
 * Root-relative links ("/p/12") resolve the same on every page of a site, and sites repeat
 * them (navigation, footers) on every page: resolved once per origin, not once per page.
 * Bounded, and cleared whole when full.
 */
const resolved = new Map<string, string | undefined>();
const RESOLVED_MAX = 20_000;

function resolve(href: string, baseUrl: string, origin: string | undefined): string | undefined {
  if (origin === undefined || href.charCodeAt(0) !== 47 /* / */ || href.charCodeAt(1) === 47 || href.charCodeAt(1) === 92 /* \ */) return absoluteUrl(href, baseUrl);
  const key = origin + href;
  let abs = resolved.get(key);
  if (abs === undefined && !resolved.has(key)) {
    abs = absoluteUrl(href, baseUrl);
    if (resolved.size >= RESOLVED_MAX) resolved.clear();
    resolved.set(key, abs);
  }
  return abs;
}

/** `scheme://host[:port]` of an absolute http(s) URL, read off the string. */
function originOf(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  const origin = slash < 0 ? url : url.slice(0, slash);
  return /[?#@\\]/.test(origin) ? undefined : origin;
}

/** Every distinct http(s) link target of the page, absolute, fragment dropped, in document order. */
export function extractLinks(root: ParentNode, baseUrl: string): string[] {
  const seen = new Set<string>();
  const origin = originOf(baseUrl);
  for (const el of elements(root)) {
    if ((el.name !== 'a' && el.name !== 'area') || !el.attribs.href) continue;
    const abs = resolve(el.attribs.href.trim(), baseUrl, origin);
    if (!abs || !abs.startsWith('http')) continue;
    const hash = abs.indexOf('#');
    seen.add(hash >= 0 ? abs.slice(0, hash) : abs);
  }
  return [...seen];
}
