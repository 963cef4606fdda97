/**
 * URL canonicalisation for deduplication: one string per page, so each page is fetched once.
 * Drops the fragment, the default port, tracking parameters (utm_*, gclid, fbclid …) and
 * empty queries; lower-cases the host; sorts the remaining parameters; applies the
 * trailing-slash policy (default: strip, except for the root).
 */
export type TrailingSlashPolicy = 'strip' | 'keep' | 'add';

const TRACKING = /^(?:utm_[a-z_]+|gclid|gclsrc|dclid|fbclid|msclkid|mc_cid|mc_eid|_ga|_gl|yclid|igshid|twclid|ttclid|li_fat_id|wickedid|_hsenc|_hsmi|hsa_[a-z]+|mkt_tok|oly_anon_id|oly_enc_id|vero_id|rb_clickid|s_cid|spm|scid|ref_src|ref_url)$/i;

export function isTrackingParam(name: string): boolean {
  return TRACKING.test(name);
}

export interface CanonicalParts {
  href: string;
  hostname: string;
  pathname: string;
}

export function canonicalUrl(raw: string, policy: TrailingSlashPolicy = 'strip'): string | undefined {
  return canonicalParts(raw, policy)?.href;
}

/** The canonical URL and the parts a crawler checks next, from one parse. */
export function canonicalParts(raw: string, policy: TrailingSlashPolicy = 'strip'): CanonicalParts | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  // Built as a string: URL setters re-serialise the whole URL each time (hot in crawls).
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  const port = u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  let search = '';
  if (u.search.length > 1) {
    const params = [...u.searchParams].filter(([k]) => !isTrackingParam(k));
    if (params.length) {
      params.sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
      search = `?${new URLSearchParams(params).toString()}`;
    }
  }
  let path = u.pathname.includes('//') ? u.pathname.replace(/\/{2,}/g, '/') : u.pathname;
  if (path !== '/') {
    if (policy === 'strip') path = path.replace(/\/+$/, '') || '/';
    else if (policy === 'add' && !path.endsWith('/') && !/\.[a-z0-9]{1,5}$/i.test(path)) path += '/';
  }
  return { href: `${u.protocol}//${host}${port}${path}${search}`, hostname: host, pathname: path };
}
