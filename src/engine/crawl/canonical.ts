/**
 * URL canonicalisation for deduplication: one string per page, so each page is fetched once.
 * Drops the fragment, the default port, credentials, tracking parameters (utm_*, gclid,
 * fbclid …) and empty queries; lower-cases the host; sorts the remaining parameters. The path
 * is never changed: `/site/` and `/site` (or `/a//b` and `/a/b`) are different resources to
 * a server, and a site that serves only one of them must get the one its links name.
 */
import { isPublicSuffix } from '../fetch/site.js';

const TRACKING =
  /^(?:utm_[a-z_]+|gclid|gclsrc|dclid|fbclid|msclkid|mc_cid|mc_eid|_ga|_gl|yclid|igshid|twclid|ttclid|li_fat_id|wickedid|_hsenc|_hsmi|hsa_[a-z]+|mkt_tok|oly_anon_id|oly_enc_id|vero_id|rb_clickid|s_cid|spm|scid|ref_src|ref_url)$/i;

export function isTrackingParam(name: string): boolean {
  return TRACKING.test(name);
}

export interface CanonicalParts {
  href: string;
  hostname: string;
  pathname: string;
}

export function canonicalUrl(raw: string): string | undefined {
  return canonicalParts(raw)?.href;
}

/** The canonical URL and the parts a crawler checks next, from one parse. */
export function canonicalParts(raw: string): CanonicalParts | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  // Built as a string: URL setters re-serialise the whole URL each time (hot in crawls).
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  const port =
    u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443'))
      ? `:${u.port}`
      : '';
  let search = '';
  if (u.search.length > 1) {
    const params = [...u.searchParams].filter(([k]) => !isTrackingParam(k));
    if (params.length) {
      params.sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
      search = `?${new URLSearchParams(params).toString()}`;
    }
  }
  const path = u.pathname;
  return { href: `${u.protocol}//${host}${port}${path}${search}`, hostname: host, pathname: path };
}

/** A host without its `www.`: the same site either way. */
export const bareHost = (h: string) => h.toLowerCase().replace(/^www\./, '');

/**
 * Whether a URL's host is the start's site (or, when asked, one of its subdomains — never below a
 * public suffix: a crawl of `github.io` or `run.app` does not spread to every customer's site).
 */
export function siteMatcher(startHost: string, allowSubdomains = false): (u: { hostname: string }) => boolean {
  const site = bareHost(startHost);
  const below = allowSubdomains && !isPublicSuffix(site);
  return (u) => {
    const h = bareHost(u.hostname);
    return h === site || (below && h.endsWith(`.${site}`));
  };
}

/** Paths whose extension says they are not HTML pages: links to them are not followed. */
export const NOT_PAGES =
  /\.(?:jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|mp[34]|m4[av]|mov|avi|webm|ogg|wav|flac|zip|gz|tgz|bz2|7z|rar|tar|exe|dmg|msi|apk|iso|bin|css|js|mjs|json|xml|rss|atom|woff2?|ttf|otf|eot|pdf|docx?|xlsx?|pptx?|csv|txt)$/i;
