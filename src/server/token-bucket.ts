/**
 * Per-key token buckets in memory: capacity = the per-minute limit, refilled continuously
 * at limit/60 tokens a second, one token per request. (rate-limiter-flexible only offers
 * fixed and rolling windows, not a bucket, so this dozen-line structure replaces it.)
 */
export interface Verdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds (≥ 1) until a request would be accepted; 0 when allowed. */
  retryAfter: number;
  /** Whole seconds until the bucket is full again. */
  reset: number;
}

export interface RateLimiter {
  take(key: string, perMinute: number): Promise<Verdict> | Verdict;
  close?(): Promise<void>;
}

export class MemoryTokenBuckets implements RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number; limit: number }>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  take(key: string, perMinute: number): Verdict {
    const now = this.#now();
    const rate = perMinute / 60_000; // tokens per ms
    let b = this.#buckets.get(key);
    if (!b || b.limit !== perMinute) {
      b = { tokens: perMinute, at: now, limit: perMinute };
      this.#buckets.set(key, b);
      if (this.#buckets.size > 100_000) this.#sweep(now);
    }
    b.tokens = Math.min(perMinute, b.tokens + (now - b.at) * rate);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return {
        allowed: true,
        limit: perMinute,
        remaining: Math.floor(b.tokens),
        retryAfter: 0,
        reset: Math.ceil((perMinute - b.tokens) / rate / 1000),
      };
    }
    return {
      allowed: false,
      limit: perMinute,
      remaining: 0,
      retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / rate / 1000)),
      reset: Math.ceil((perMinute - b.tokens) / rate / 1000),
    };
  }

  #sweep(now: number): void {
    for (const [k, b] of this.#buckets)
      if (b.tokens + (now - b.at) * (b.limit / 60_000) >= b.limit) this.#buckets.delete(k);
  }
}
