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
const TOUCH_EVERY_MS = 60_000;

export function makeAuthenticate(ctx: ServerContext) {
  const touched = new Map<string, number>();
  return async function authenticate(request: FastifyRequest): Promise<AuthInfo> {
    const header = request.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m || !KEY_FORMAT.test(m[1])) throw new TrawlError('unauthorized');
    const hash = sha256Hex(m[1]);
    const row = await keys.findKeyForAuth(ctx.store.db, hash);
    if (!row || !digestsEqual(row.key_hash, hash) || row.revoked_at) throw new TrawlError('unauthorized');
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
