/**
 * A saved browser session (issue 44) while pages are read with it: its cookies and localStorage,
 * which go only to its own sites (registrable domains, site.ts — the rule of the caller's
 * `cookies`), on the HTTP path (a Cookie header per hop, Set-Cookie taken back) and in the
 * browser (the render's context loaded, then read back). Cookies another site sets are never kept,
 * and a cookie is never sent to a host outside the session's sites, whatever its Domain says.
 */
import { isPublicSuffix, registrableDomain } from './site.js';

/** A cookie as Playwright's `storageState` writes it: a leading dot on `domain` for a domain cookie, none for a host-only one. */
export interface SessionCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix seconds; -1 for a cookie of the browsing session. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

export interface OriginStorage {
  origin: string;
  localStorage: { name: string; value: string }[];
}

/** Playwright's `storageState` shape. */
export interface StorageState {
  cookies: SessionCookie[];
  origins: OriginStorage[];
}

const bare = (domain: string) => domain.toLowerCase().replace(/^\./, '');
const alive = (c: SessionCookie, nowS: number) => c.expires === -1 || c.expires > nowS;

function domainMatches(c: SessionCookie, host: string): boolean {
  const d = bare(c.domain);
  return c.domain.startsWith('.') ? host === d || host.endsWith(`.${d}`) : host === d;
}

function pathMatches(cookiePath: string, path: string): boolean {
  return path === cookiePath || path.startsWith(cookiePath.endsWith('/') ? cookiePath : `${cookiePath}/`);
}

/** RFC 6265's default path: the request path up to its last slash. */
function defaultPath(u: URL): string {
  const p = u.pathname;
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/** Set-Cookie values a client joined with ", " (an Expires date has a comma too: split only before `name=`). */
export const splitSetCookie = (joined: string): string[] =>
  joined
    .split(/,\s*(?=[^;=\s,]+=)/)
    .map((s) => s.trim())
    .filter(Boolean);

export class SessionJar {
  readonly name: string;
  readonly sites: ReadonlySet<string>;
  #cookies: SessionCookie[];
  #origins: OriginStorage[];
  /** Whether a site set or changed something since the jar was made (the caller saves it then). */
  changed = false;

  constructor(name: string, state: StorageState, sites: string[]) {
    this.name = name;
    this.sites = new Set(sites.map((s) => registrableDomain(s)));
    this.#cookies = state.cookies.filter((c) => this.#onSiteHost(bare(c.domain)));
    this.#origins = state.origins.filter((o) => this.onSite(o.origin));
  }

  #onSiteHost(host: string): boolean {
    return !!host && this.sites.has(registrableDomain(host));
  }

  /** Whether a URL is on one of the session's sites. */
  onSite(u: URL | string): boolean {
    try {
      return this.#onSiteHost((typeof u === 'string' ? new URL(u) : u).hostname);
    } catch {
      return false;
    }
  }

  /** The Cookie header for a request to `u`, or undefined (off the session's sites, or nothing matches). */
  cookieHeader(u: URL): string | undefined {
    if (!this.onSite(u)) return undefined;
    const host = u.hostname.toLowerCase();
    const now = Date.now() / 1000;
    const jar = this.#cookies.filter(
      (c) =>
        alive(c, now) &&
        domainMatches(c, host) &&
        pathMatches(c.path, u.pathname) &&
        (!c.secure || u.protocol === 'https:'),
    );
    // Longer paths first, as browsers send them.
    jar.sort((a, b) => b.path.length - a.path.length);
    return jar.length ? jar.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  /** Takes the Set-Cookie header(s) of an answer from `u`: only from the session's sites, only for them. */
  absorb(u: URL, setCookie: string | string[] | undefined): void {
    if (!setCookie || !this.onSite(u)) return;
    const lines = (Array.isArray(setCookie) ? setCookie : [setCookie]).flatMap(splitSetCookie);
    for (const line of lines) {
      const c = this.#parse(u, line);
      if (c) this.#put(c);
    }
  }

  #parse(u: URL, line: string): SessionCookie | undefined {
    const [pair, ...attrs] = line.split(';');
    const eq = pair!.indexOf('=');
    if (eq <= 0) return undefined;
    const host = u.hostname.toLowerCase();
    const c: SessionCookie = {
      name: pair!.slice(0, eq).trim(),
      value: pair!.slice(eq + 1).trim(),
      domain: host,
      path: defaultPath(u),
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax',
    };
    let maxAge: number | undefined;
    for (const attr of attrs) {
      const i = attr.indexOf('=');
      const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
      const val = i < 0 ? '' : attr.slice(i + 1).trim();
      if (key === 'domain' && val) {
        const d = bare(val);
        // A Domain the host is not under, or a public suffix, is refused as browsers refuse it.
        if (!(host === d || host.endsWith(`.${d}`)) || isPublicSuffix(d)) return undefined;
        c.domain = `.${d}`;
      } else if (key === 'path' && val.startsWith('/')) c.path = val;
      else if (key === 'max-age' && /^-?\d+$/.test(val)) maxAge = Number(val);
      else if (key === 'expires' && !Number.isNaN(Date.parse(val))) c.expires = Math.floor(Date.parse(val) / 1000);
      else if (key === 'httponly') c.httpOnly = true;
      else if (key === 'secure') c.secure = true;
      else if (key === 'samesite') c.sameSite = /^strict$/i.test(val) ? 'Strict' : /^none$/i.test(val) ? 'None' : 'Lax';
    }
    if (maxAge !== undefined) c.expires = maxAge <= 0 ? 0 : Math.floor(Date.now() / 1000) + maxAge;
    return this.#onSiteHost(bare(c.domain)) ? c : undefined;
  }

  /** Adds or replaces a cookie (same name, domain and path); an expired one removes it. */
  #put(c: SessionCookie): void {
    const same = (o: SessionCookie) => o.name === c.name && o.domain === c.domain && o.path === c.path;
    const before = this.#cookies.find(same);
    this.#cookies = this.#cookies.filter((o) => !same(o));
    if (alive(c, Date.now() / 1000)) this.#cookies.push(c);
    if (!before || before.value !== c.value || before.expires !== c.expires || !alive(c, Date.now() / 1000))
      this.changed = true;
  }

  /** The session as stored. */
  state(): StorageState {
    return { cookies: this.#cookies.map((c) => ({ ...c })), origins: this.#origins.map((o) => ({ ...o })) };
  }

  /** Cookies for a browser context: live ones, never sent cross-site on a sub-request (SameSite=None becomes Lax). */
  browserCookies(): SessionCookie[] {
    const now = Date.now() / 1000;
    return this.#cookies
      .filter((c) => alive(c, now))
      .map((c) => ({ ...c, sameSite: c.sameSite === 'Strict' ? 'Strict' : 'Lax' }));
  }

  /** localStorage per origin, for the session's sites only. */
  origins(): OriginStorage[] {
    return this.#origins.map((o) => ({ ...o }));
  }

  /** What the browser holds after a render: its cookies on the session's sites replace the jar's. */
  takeBrowserState(cookies: SessionCookie[], origin?: OriginStorage): void {
    const mine = cookies.filter((c) => this.#onSiteHost(bare(c.domain)));
    const key = (c: SessionCookie) => `${c.name}\t${c.domain}\t${c.path}\t${c.value}`;
    const was = new Set(this.#cookies.map(key));
    if (mine.length !== this.#cookies.length || mine.some((c) => !was.has(key(c)))) this.changed = true;
    this.#cookies = mine.map((c) => ({ ...c }));
    if (origin && this.onSite(origin.origin)) {
      const old = this.#origins.find((o) => o.origin === origin.origin);
      if (JSON.stringify(old?.localStorage ?? []) !== JSON.stringify(origin.localStorage)) this.changed = true;
      this.#origins = [...this.#origins.filter((o) => o.origin !== origin.origin), origin];
    }
  }
}

/** Path segments that name a login page. */
const LOGIN_PATH = /(?:^|\/)(?:log-?in|sign-?in|signon|auth(?:enticate)?|session\/new|account\/login)(?:[/.?]|$)/i;
const PASSWORD_INPUT = /<input\b[^>]*\btype\s*=\s*["']?password\b/i;

/** Whether a URL is a login page by its path. */
export const isLoginUrl = (u: string): boolean => {
  try {
    return LOGIN_PATH.test(new URL(u).pathname);
  } catch {
    return false;
  }
};

/**
 * Why a page read with a session shows the session has expired, or undefined: a redirect to a
 * login page, or a login form (a password input) where the asked page is not itself a login page.
 * (A 401 or 403 is seen where the HTTP status stops the read.)
 */
export function sessionExpiry(asked: string, page: { url: string; status: number; text?: string }): string | undefined {
  if (page.status === 401 || page.status === 403) return `the site answered HTTP ${page.status}`;
  if (isLoginUrl(asked)) return undefined;
  if (page.url !== asked && isLoginUrl(page.url)) return `the site sent the page to its login page (${page.url})`;
  if (page.text && PASSWORD_INPUT.test(page.text)) return 'the page shows a login form where its content was';
  return undefined;
}
