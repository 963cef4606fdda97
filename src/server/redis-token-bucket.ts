/**
 * The same token bucket as MemoryTokenBuckets, kept in Redis so that every API process of a
 * scale-out deployment draws from one bucket per key. One Lua script does read-refill-take
 * atomically; the bucket expires once it would be full again.
 */
import { Redis } from 'ioredis';
import { MemoryTokenBuckets, type RateLimiter, type Verdict } from './token-bucket.js';

const TAKE = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local rate = limit / 60000
local b = redis.call('HMGET', key, 't', 'at', 'l')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or tonumber(b[3]) ~= limit then tokens = limit; at = now end
tokens = math.min(limit, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', key, 't', tostring(tokens), 'at', tostring(now), 'l', tostring(limit))
redis.call('PEXPIRE', key, math.ceil((limit - tokens) / rate) + 1000)
return {allowed, tostring(tokens)}
`;

export class RedisTokenBuckets implements RateLimiter {
  readonly #redis: Redis;
  readonly #prefix: string;
  /** While Redis is unreachable each process limits on its own: degraded, never a 500 for every request. */
  readonly #fallback = new MemoryTokenBuckets();
  #closing?: Promise<void>;

  constructor(url: string, options: { prefix?: string } = {}) {
    this.#redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    // Redis away is a failed command (the limiter answers for it), not an unhandled event.
    this.#redis.on('error', () => undefined);
    this.#prefix = options.prefix ?? 'trawl:rl:';
    this.#redis.defineCommand('trawlTake', { numberOfKeys: 1, lua: TAKE });
  }

  async take(key: string, perMinute: number): Promise<Verdict> {
    // Redis TIME would be more exact across hosts; Date.now() is what the memory bucket uses too.
    let answer: [number, string];
    try {
      answer = (await (
        this.#redis as unknown as { trawlTake: (...a: unknown[]) => Promise<[number, string]> }
      ).trawlTake(this.#prefix + key, perMinute, Date.now())) as [number, string];
    } catch {
      return this.#fallback.take(key, perMinute);
    }
    const [allowed, tokensRaw] = answer;
    const tokens = Number(tokensRaw);
    const rate = perMinute / 60_000;
    const reset = Math.ceil((perMinute - tokens) / rate / 1000);
    if (allowed === 1) return { allowed: true, limit: perMinute, remaining: Math.floor(tokens), retryAfter: 0, reset };
    return {
      allowed: false,
      limit: perMinute,
      remaining: 0,
      retryAfter: Math.max(1, Math.ceil((1 - tokens) / rate / 1000)),
      reset,
    };
  }

  close(): Promise<void> {
    this.#closing ??= this.#redis.quit().then(
      () => undefined,
      () => undefined,
    );
    return this.#closing;
  }
}
