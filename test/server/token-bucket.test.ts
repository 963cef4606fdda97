/** Token buckets: refill arithmetic in memory, and the shared Redis bucket against a real Redis. */
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { MemoryTokenBuckets } from '../../src/server/token-bucket.js';
import { RedisTokenBuckets } from '../../src/server/redis-token-bucket.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('MemoryTokenBuckets', () => {
  it('allows a burst up to the limit, then refills at limit/60 per second', () => {
    let now = 0;
    const b = new MemoryTokenBuckets(() => now);
    for (let i = 0; i < 6; i++) expect(b.take('k', 6).allowed).toBe(true);
    const denied = b.take('k', 6);
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfter: 10 });
    now += 9_000;
    expect(b.take('k', 6)).toMatchObject({ allowed: false, retryAfter: 1 });
    now += 1_000;
    expect(b.take('k', 6).allowed).toBe(true);
    expect(b.take('other', 6)).toMatchObject({ allowed: true, remaining: 5 });
  });
  it('rounds retry_after up to whole seconds, never below 1', () => {
    const now = 0;
    const b = new MemoryTokenBuckets(() => now);
    b.take('k', 600);
    for (let i = 0; i < 599; i++) b.take('k', 600);
    expect(b.take('k', 600).retryAfter).toBe(1);
  });
});

describe('RedisTokenBuckets (real Redis)', () => {
  const prefix = `trawl-test-${process.pid}-${Date.now()}:`;
  const limiter = new RedisTokenBuckets(REDIS_URL, { prefix });
  afterAll(async () => {
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    await r.quit();
    await limiter.close();
  });

  it('shares one bucket between limiters (processes) and refuses past the limit', async () => {
    const second = new RedisTokenBuckets(REDIS_URL, { prefix });
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? limiter : second).take('key_shared', 5)),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(5);
      const denied = results.find((r) => !r.allowed)!;
      expect(denied.retryAfter).toBeGreaterThanOrEqual(1);
      expect(denied.retryAfter).toBeLessThanOrEqual(12);
    } finally {
      await second.close();
    }
  });
});
