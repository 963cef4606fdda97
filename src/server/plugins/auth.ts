/**
 * Bearer API keys. The presented key is hashed (SHA-256) and looked up by hash; the stored
 * and computed digests are then compared in constant time. Any fault → 401 unauthorized,
 * with nothing charged or logged against an account.
 */
import type { FastifyRequest } from 'fastify';
import { TrawlError } from '../../errors.js';
import { accounts, digestsEqual, keys, sha256Hex } from '../../store/index.js';
import type { AuthInfo, ServerContext } from '../context.js';

const KEY_FORMAT = /^trawl_[0-9A-Za-z]{32,128}$/;
const SEND = 'send the header "Authorization: Bearer trawl_…"';
const UNKNOWN_KEY =
  "authorization: this API key is not known to this server; check that it was copied whole and made on this server (npx trawl keys list shows the keys' prefixes)";

const unauthorized = (detail: string) => new TrawlError('unauthorized', detail);

/**
 * The key a request presents, or a 401 whose detail names what is wrong with the header: each
 * cause its own sentence, so the fix is plain (the contract's body, `detail` added as for
 * every code this project adds).
 */
export function presentedKey(headers: FastifyRequest['headers']): string {
  const header = headers.authorization;
  if (typeof header !== 'string' || !header.trim()) {
    if (headers['x-api-key'] !== undefined)
      throw unauthorized(`authorization: missing; the key goes in the Authorization header, not x-api-key: ${SEND}`);
    throw unauthorized(
      `authorization: missing; ${SEND} with an API key (npx trawl keys create --email … or the dashboard's API keys page)`,
    );
  }
  const value = header.trim();
  const m = /^Bearer\s+(\S+)$/i.exec(value);
  if (!m) {
    if (/^trawl_/.test(value)) throw unauthorized(`authorization: the key must follow "Bearer ": ${SEND}`);
    const scheme = /^(\S+)\s/.exec(value)?.[1];
    if (scheme && !/^bearer$/i.test(scheme))
      throw unauthorized(`authorization: the ${scheme.slice(0, 20)} scheme is not accepted; ${SEND}`);
    throw unauthorized(`authorization: must be "Bearer " followed by the key alone; ${SEND}`);
  }
  if (!KEY_FORMAT.test(m[1]))
    throw unauthorized(
      `authorization: "${m[1].slice(0, 12)}…" is not a Trawl API key, which is "trawl_" and 40 letters and digits; check that it was copied whole`,
    );
  return m[1];
}
const TOUCH_EVERY_MS = 60_000;

export function makeAuthenticate(ctx: ServerContext) {
  const touched = new Map<string, number>();
  return async function authenticate(request: FastifyRequest): Promise<AuthInfo> {
    const key = presentedKey(request.headers);
    const hash = sha256Hex(key);
    const row = await keys.findKeyForAuth(ctx.store.db, hash);
    if (!row || !digestsEqual(row.key_hash, hash)) throw unauthorized(UNKNOWN_KEY);
    if (row.revoked_at)
      throw unauthorized(
        `authorization: this API key (${row.prefix ?? 'trawl_…'}) was revoked on ${String(row.revoked_at).slice(0, 10)}; create a new one (npx trawl keys create --email … or the dashboard's API keys page)`,
      );
    const now = Date.now();
    if ((touched.get(row.id) ?? 0) < now - TOUCH_EVERY_MS) {
      touched.set(row.id, now);
      // Best effort: a missed "last used" stamp must never fail a request.
      keys.touchKey(ctx.store.db, row.id, new Date(now).toISOString()).catch(() => undefined);
    }
    // A key never goes faster than its account's ceiling, even one made before the operator lowered it.
    const ceiling = accounts.rateLimitCeiling(row, ctx.config.rateLimitPerMinute);
    return {
      accountId: row.account_id,
      keyId: row.id,
      rateLimitPerMinute: Math.min(row.rate_limit_per_minute ?? ctx.config.rateLimitPerMinute, ceiling),
    };
  };
}
