/**
 * "The target's own site" for a caller's headers and cookies (contract section 9): the same
 * registrable domain (`shop.example.co.uk` and `www.example.co.uk` are one site; `cdn.other.com`
 * is a third party). The service ships no copy of the Public Suffix List, so the registrable
 * domain is found by its most common rules: the last two labels, or three under a two-letter
 * country code whose second level is a generic one (`co.uk`, `com.au`, `ne.jp`), and the
 * shared-hosting suffixes below (each customer of `github.io` is a site of its own). Where the
 * rules guess, they guess narrow: an unknown suffix of three labels is never taken as one site.
 */
import { isIP } from 'node:net';

/** Second-level labels that are public under a two-letter country code (co.uk, com.br, or.jp …). */
const GENERIC_SECOND_LEVEL = new Set([
  'ac',
  'co',
  'com',
  'edu',
  'gob',
  'gov',
  'govt',
  'gv',
  'go',
  'or',
  'ne',
  'net',
  'org',
  'mil',
  'nom',
  'ltd',
  'plc',
  'sch',
  'nic',
  'res',
  'lg',
  'ed',
  'gr',
  'ad',
  'int',
  'info',
  'biz',
  'web',
  'nhs',
  'police',
  'me',
  'id',
  'in',
  'firm',
  'gen',
  'ind',
]);

/** Suffixes under which every name belongs to someone else (a sample of the PSL's private section). */
const SHARED_SUFFIXES = new Set([
  'github.io',
  'gitlab.io',
  'herokuapp.com',
  'blogspot.com',
  'appspot.com',
  'cloudfront.net',
  'amazonaws.com',
  'azurewebsites.net',
  'cloudapp.net',
  'netlify.app',
  'vercel.app',
  'pages.dev',
  'workers.dev',
  'web.app',
  'firebaseapp.com',
  'fly.dev',
  'onrender.com',
  'glitch.me',
  'repl.co',
  'wordpress.com',
  'tumblr.com',
  'myshopify.com',
  'wixsite.com',
  'squarespace.com',
  'webflow.io',
  'surge.sh',
  'ngrok.io',
  'ngrok-free.app',
  'trycloudflare.com',
  'r2.dev',
  'azureedge.net',
  'azurestaticapps.net',
  'fastly.net',
  'akamaized.net',
  'googleusercontent.com',
  'blob.core.windows.net',
  's3.amazonaws.com',
  'digitaloceanspaces.com',
  'duckdns.org',
  'no-ip.org',
  'dyndns.org',
]);

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
  const labels = h.split('.');
  for (let n = Math.min(4, labels.length - 1); n >= 2; n--) {
    // Under a shared suffix, the customer's label makes the site.
    if (SHARED_SUFFIXES.has(labels.slice(-n).join('.'))) return labels.slice(-n - 1).join('.');
  }
  const [sld, tld] = labels.slice(-2);
  const take = tld.length === 2 && GENERIC_SECOND_LEVEL.has(sld) ? 3 : 2;
  return labels.slice(-take).join('.');
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
