/**
 * "The target's own site" for a caller's headers and cookies (contract section 9), and a crawl's
 * scope: the same registrable domain as the Public Suffix List sees it, its private section
 * included (`shop.example.co.uk` and `www.example.co.uk` are one site; `cdn.other.com` is a third
 * party; `victim.run.app` and `attacker.run.app`, two customers of one platform, are two sites).
 * The list is tldts's, kept current by its releases.
 */
import { isIP } from 'node:net';
import { getDomain, getPublicSuffix } from 'tldts';

const PSL = { allowPrivateDomains: true, extractHostname: false, validateHostname: false } as const;

/** A host as compared: lower case, no trailing dot, no IPv6 brackets. */
const normal = (host: string) =>
  host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');

/** The registrable domain of a host (an IP address or a single label is its own site). */
export function registrableDomain(host: string): string {
  const h = normal(host);
  if (isIP(h) || !h.includes('.')) return h;
  // A host that is itself a public suffix (a platform's customer under a wildcard rule) is its own site.
  return getDomain(h, PSL) ?? h;
}

/** Whether a host is a public suffix (`co.uk`, `github.io`): nothing below it is one site. */
export function isPublicSuffix(host: string): boolean {
  const h = normal(host);
  return !isIP(h) && getPublicSuffix(h, PSL) === h;
}

/** Whether `host` is on the same site as `siteHost`. */
export function sameSite(siteHost: string, host: string): boolean {
  return registrableDomain(siteHost) === registrableDomain(host);
}

/** A predicate for URLs on the site of `targetUrl`. */
export function siteOf(targetUrl: string): (u: URL | string) => boolean {
  const site = registrableDomain(new URL(targetUrl).hostname);
  return (u) => {
    try {
      return registrableDomain((typeof u === 'string' ? new URL(u) : u).hostname) === site;
    } catch {
      return false;
    }
  };
}
