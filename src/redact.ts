/**
 * Secrets never leave in errors (issue 26): one function that replaces every configured secret
 * with `[redacted]`, applied where text leaves the process — error bodies, log lines, stored run
 * and delivery errors, CLI errors. A secret often travels inside a URL, so each character also
 * matches its percent-encoding at any depth (`|` as `%7C`, `%7c`, `%257C`, …) and its JSON
 * escape (log lines are JSON), in any mix.
 */
import type { Config } from './config.js';

export type Redactor = (s: string) => string;

/** Shorter strings are too likely to occur by chance to be worth redacting. */
export const MIN_SECRET_LENGTH = 6;
export const REDACTED = '[redacted]';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
const hexDigit = (d: string) => (/[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d);

/** The pattern of one character: itself, its JSON escape, or its UTF-8 bytes percent-encoded once or more (a space also as a form's `+`). */
function charPattern(c: string): string {
  const alts = new Set([escapeRe(c), escapeRe(JSON.stringify(c).slice(1, -1))]);
  if (c === ' ') alts.add('\\+');
  const bytes = [...Buffer.from(c, 'utf8')].map(
    (b) => `%(?:25)*${[...b.toString(16).toUpperCase().padStart(2, '0')].map(hexDigit).join('')}`,
  );
  alts.add(bytes.join(''));
  return `(?:${[...alts].join('|')})`;
}

export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const kept = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH))];
  if (!kept.length) return (s) => s;
  // Longest first, so a whole `id|secret` goes before its secret part alone.
  kept.sort((a, b) => b.length - a.length);
  const re = new RegExp(kept.map((s) => [...s].map(charPattern).join('')).join('|'), 'g');
  return (s) => (typeof s === 'string' ? s.replace(re, REDACTED) : s);
}

/** The credentials of a URL: its password (and, with `withUser`, the whole `user:password`), decoded. */
function urlCredentials(raw: string | undefined, withUser = false): string[] {
  if (!raw) return [];
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [];
  }
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const out = u.password ? [decode(u.password)] : [];
  if (withUser && u.username && u.password) out.push(`${decode(u.username)}:${decode(u.password)}`);
  return out;
}

function queryValues(raw: string | undefined): string[] {
  try {
    return raw ? [...new URL(raw).searchParams.values()].filter((v) => v.length >= 8) : [];
  } catch {
    return [];
  }
}

/** Every secret the configuration holds (too-short ones are dropped by createRedactor). */
export function configSecrets(config: Config): string[] {
  const token = config.metaAccessToken;
  return [
    token,
    // A Meta app token is `app_id|app_secret`: the secret part must not leak alone either.
    ...(token?.includes('|') ? [token.slice(token.indexOf('|') + 1)] : []),
    config.llmApiKey,
    config.braveApiKey,
    config.metricsToken,
    config.secretKey,
    ...(config.secretKeyPrevious ?? []),
    // `user:password` whole (a user name alone is no secret, and redacting it could cut page text).
    ...config.proxyUrls.flatMap((p) => urlCredentials(p, true)),
    ...(config.stealthProxyUrls ?? []).flatMap((p) => urlCredentials(p, true)),
    ...[
      config.searxngUrl,
      config.databaseUrl,
      config.redisUrl,
      config.llmBaseUrl,
      config.braveApiUrl,
      config.duckduckgoUrl,
      config.browserEndpoint,
      config.smtpUrl,
    ].flatMap((u) => urlCredentials(u)),
    // A remote browser's key rides in its query (Browserless: `?token=…`).
    ...queryValues(config.browserEndpoint),
  ].filter((s): s is string => !!s);
}
