/**
 * The scrape result cache (`max_age`, contract section 9), as the engine sees it: a key made of
 * the URL and every option that changes the result, and a narrow store (the service's is in the
 * database, store/result-cache.ts, so every process of a scale-out shares it). A result made with
 * the caller's own headers, cookies or actions is keyed to the account that asked (it may hold
 * what only that account may see); any other result is shared between accounts.
 */
import { createHash } from 'node:crypto';

export interface CachedResult<T> {
  result: T;
  /** When the result was made (ISO-8601). */
  cachedAt: string;
}

export interface ResultCache<T = unknown> {
  /** The entry under `key` made at or after `notBefore`, unless it expired. */
  get(key: string, notBefore: Date): Promise<CachedResult<T> | undefined>;
  /** Stores (or replaces) the entry; `expiresAt`: when it may no longer be read (its files are gone then). */
  put(key: string, result: T, expiresAt?: Date): Promise<void>;
}

/** Options whose value changes a scrape's result (the ones that do not: timeouts, signals, the LLM client). */
export interface CacheKeyParts {
  url: string;
  formats: string[];
  schema?: unknown;
  onlyMainContent?: boolean;
  render?: string;
  waitFor?: string | number;
  screenshotFormat?: string;
  viewport?: unknown;
  mobile?: boolean;
  location?: unknown;
  headers?: Record<string, string>;
  cookies?: unknown[];
  actions?: unknown[];
  /** Options added later (e.g. PDF limits), each by name. */
  extra?: Record<string, unknown>;
}

/** JSON with object keys sorted, so equal options give equal keys whatever their order. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, x]) => `${JSON.stringify(k)}:${stable(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Whether a result is the asking account's own (made with its headers, cookies or actions). */
export const isPrivateResult = (p: CacheKeyParts) =>
  !!(p.actions?.length || p.cookies?.length || (p.headers && Object.keys(p.headers).length));

/**
 * The cache key: SHA-256 over the scope and the options (`own`: the account's scope whatever the
 * options, for results only it may be given). Header names count in any case, the
 * URL as parsed (so `HTTP://Example.com` and `http://example.com/` are one page), formats as a set.
 */
export function cacheKey(parts: CacheKeyParts, account: string, own = false): string {
  const scope = own || isPrivateResult(parts) ? `account:${account}` : 'shared';
  let url = parts.url;
  try {
    url = new URL(parts.url).href;
  } catch {
    // An invalid URL never reaches the cache; kept as given.
  }
  const headers = parts.headers
    ? Object.fromEntries(Object.entries(parts.headers).map(([k, v]) => [k.toLowerCase(), v]))
    : undefined;
  const body = stable({
    ...parts,
    url,
    headers,
    formats: [...new Set(parts.formats)].sort(),
    onlyMainContent: parts.onlyMainContent ?? true,
    render: parts.render ?? 'auto',
  });
  return createHash('sha256').update(`${scope}\n${body}`).digest('hex');
}
