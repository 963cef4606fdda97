/**
 * How a page is asked for on the caller's behalf (contract section 9): the viewport, a mobile
 * device (user agent, touch, a phone's screen), a location (Accept-Language, the browser's
 * locale and time zone), and the caller's own headers and cookies — which go only to the
 * target's own site (site.ts), on the HTTP path and in the browser alike.
 */
import type { BrowserContextOptions } from 'playwright-core';
import { chromeIdentity } from './chrome.js';
import type { SessionJar } from './session-jar.js';
import { siteOf } from './site.js';

export interface Viewport {
  width: number;
  height: number;
}

export interface Cookie {
  name: string;
  value: string;
  /** Without it the cookie is the target host's own (host-only). */
  domain?: string;
  /** @default '/' */
  path?: string;
}

export interface Location {
  /** ISO 3166-1 alpha-2 code ("DE"): the time zone, and the language when none is given. */
  country?: string;
  /** BCP 47 tags in order of preference ("de-DE", "en"). */
  languages?: string[];
}

export interface PageSetup {
  /** @default 1280×800 (412×915 when mobile) */
  viewport?: Viewport;
  mobile?: boolean;
  location?: Location;
  /** Sent to the target's site only; names in any case. */
  headers?: Record<string, string>;
  cookies?: Cookie[];
  /** A saved browser session (issue 44): its cookies go to its own sites only, and what they set comes back to it. */
  session?: SessionJar;
}

export const DEFAULT_VIEWPORT: Viewport = { width: 1280, height: 800 };
/** A current Android phone (Pixel 8): its CSS viewport and pixel ratio. */
export const MOBILE_VIEWPORT: Viewport = { width: 412, height: 915 };
const MOBILE_SCALE = 2.625;
/** Chrome on Android as Chrome's reduced User-Agent writes it (chrome.ts): the same on the HTTP path and in the browser. */
export const MOBILE_USER_AGENT = chromeIdentity(true).userAgent;

/** The time zone a country's people mostly live in, where it has several (else its only one). */
const MAIN_ZONE: Record<string, string> = {
  US: 'America/New_York',
  CA: 'America/Toronto',
  MX: 'America/Mexico_City',
  BR: 'America/Sao_Paulo',
  AR: 'America/Argentina/Buenos_Aires',
  CL: 'America/Santiago',
  EC: 'America/Guayaquil',
  RU: 'Europe/Moscow',
  UA: 'Europe/Kyiv',
  KZ: 'Asia/Almaty',
  CN: 'Asia/Shanghai',
  ID: 'Asia/Jakarta',
  MN: 'Asia/Ulaanbaatar',
  AU: 'Australia/Sydney',
  NZ: 'Pacific/Auckland',
  DE: 'Europe/Berlin',
  ES: 'Europe/Madrid',
  PT: 'Europe/Lisbon',
  CD: 'Africa/Kinshasa',
  MY: 'Asia/Kuala_Lumpur',
  PG: 'Pacific/Port_Moresby',
  FM: 'Pacific/Pohnpei',
  KI: 'Pacific/Tarawa',
  PF: 'Pacific/Tahiti',
  UZ: 'Asia/Tashkent',
  GL: 'America/Nuuk',
  CY: 'Asia/Nicosia',
  MH: 'Pacific/Majuro',
  UM: 'Pacific/Midway',
  AQ: 'Antarctica/McMurdo',
  PS: 'Asia/Gaza',
  VN: 'Asia/Ho_Chi_Minh',
  CU: 'America/Havana',
  IN: 'Asia/Kolkata',
  JP: 'Asia/Tokyo',
};

type LocaleInfo = Intl.Locale & { timeZones?: string[]; getTimeZones?: () => string[] };

/** A country's time zones as ICU knows them, or undefined for a code that names no country. */
function zonesOf(country: string): string[] | undefined {
  try {
    const l = new Intl.Locale(`und-${country.toUpperCase()}`) as LocaleInfo;
    const zones = l.getTimeZones?.() ?? l.timeZones;
    return zones?.length ? zones : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an ISO 3166-1 alpha-2 code names a country with a time zone (validation). */
export const isKnownCountry = (country: string) => /^[A-Za-z]{2}$/.test(country) && !!zonesOf(country);

/** A BCP 47 tag in its canonical spelling, or undefined when it is not one. */
export function canonicalLanguage(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

export function timeZoneOf(country: string): string {
  const c = country.toUpperCase();
  return MAIN_ZONE[c] ?? zonesOf(c)?.[0] ?? 'UTC';
}

/** The languages asked, or the country's main one ("und-DE" → "de-DE"). */
export function languagesOf(location: Location): string[] {
  if (location.languages?.length) return location.languages;
  if (!location.country) return [];
  const c = location.country.toUpperCase();
  try {
    return [`${new Intl.Locale(`und-${c}`).maximize().language}-${c}`];
  } catch {
    return [];
  }
}

/** The tags in order, each followed by its bare language when that is not listed (de-DE, de, en). */
export function languageTags(languages: string[]): string[] {
  const tags: string[] = [];
  for (const l of languages) {
    if (!tags.includes(l)) tags.push(l);
    const base = l.split('-')[0];
    if (!tags.includes(base) && !languages.includes(base)) tags.push(base);
  }
  return tags;
}

/** `de-DE,de;q=0.9,en;q=0.8`: preference falling by 0.1 a tag, as Chromium writes it. */
export function acceptLanguage(languages: string[]): string {
  return languageTags(languages)
    .map((t, i) => (i === 0 ? t : `${t};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`))
    .join(',');
}

/** Whether a setup can use a page opened without knowing it (no device or locale to emulate). */
export const isPlainSetup = (s: PageSetup | undefined) => !s?.mobile && !s?.location;

export function viewportOf(s: PageSetup | undefined): Viewport {
  return s?.viewport ?? (s?.mobile ? MOBILE_VIEWPORT : DEFAULT_VIEWPORT);
}

/** Options of a browser context for a setup (Playwright's BrowserContextOptions, the parts used). */
export function contextOptions(s: PageSetup | undefined): BrowserContextOptions {
  const o: BrowserContextOptions = { viewport: viewportOf(s) };
  if (s?.mobile)
    Object.assign(o, { userAgent: MOBILE_USER_AGENT, isMobile: true, hasTouch: true, deviceScaleFactor: MOBILE_SCALE });
  if (s?.location) {
    const languages = languagesOf(s.location);
    if (languages.length)
      Object.assign(o, { locale: languages[0], extraHTTPHeaders: { 'accept-language': acceptLanguage(languages) } });
    if (s.location.country) o.timezoneId = timeZoneOf(s.location.country);
  }
  return o;
}

/** Headers every HTTP request of the page carries (whatever its host): the device's and the location's. */
export function deviceHeaders(s: PageSetup | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  if (s?.mobile) {
    // The client hints go with the User-Agent they describe (a phone's UA with desktop hints is a tell).
    h['sec-ch-ua-mobile'] = '?1';
    h['sec-ch-ua-platform'] = '"Android"';
    h['user-agent'] = MOBILE_USER_AGENT;
  }
  const languages = s?.location ? languagesOf(s.location) : [];
  if (languages.length) h['accept-language'] = acceptLanguage(languages);
  return h;
}

/** The caller's headers with lower-case names (so they replace the client's defaults, never doubling them). */
export function lowerCaseHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

/** Whether a cookie goes with a request to `u` (RFC 6265 domain and path matching). */
export function cookieMatches(c: Cookie, u: URL, targetHost: string): boolean {
  const host = u.hostname.toLowerCase();
  const domain = c.domain?.toLowerCase().replace(/^\./, '');
  const hostOk = domain ? host === domain || host.endsWith(`.${domain}`) : host === targetHost.toLowerCase();
  const path = c.path ?? '/';
  return hostOk && (u.pathname === path || u.pathname.startsWith(path.endsWith('/') ? path : `${path}/`));
}

/**
 * Per hop of the HTTP path: the caller's headers and a Cookie header, only on the target's site
 * (a redirect to another site gets neither). Undefined when the caller gave none.
 */
export function siteHeaders(
  targetUrl: string,
  s: PageSetup | undefined,
): ((u: URL) => Record<string, string> | undefined) | undefined {
  const headers = lowerCaseHeaders(s?.headers);
  const cookies = s?.cookies ?? [];
  const session = s?.session;
  if (!Object.keys(headers).length && !cookies.length && !session) return undefined;
  const onSite = siteOf(targetUrl);
  const targetHost = new URL(targetUrl).hostname;
  return (u) => {
    if (!onSite(u)) return undefined;
    const jar = cookies.filter((c) => cookieMatches(c, u, targetHost)).map((c) => `${c.name}=${c.value}`);
    // The session's own rule (its sites) on top of the target's: both must hold.
    const saved = session?.cookieHeader(u);
    if (saved) jar.push(saved);
    if (!jar.length) return headers;
    const given = headers.cookie ? `${headers.cookie}; ` : '';
    return { ...headers, cookie: `${given}${jar.join('; ')}` };
  };
}
