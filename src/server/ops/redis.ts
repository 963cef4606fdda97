/**
 * The Redis connection of the operator endpoints (/readyz, /metrics) in a process with REDIS_URL.
 * Its own, so a check never waits behind the rate limiter's traffic, and failing fast: while Redis
 * is away a command fails at once (no offline queue, no retries) and the client reconnects in the
 * background, so /readyz answers 503 quickly and 200 again as soon as Redis is back.
 */
import { once } from 'node:events';
import { Redis } from 'ioredis';

export class OpsRedis {
  readonly client: Redis;

  constructor(url: string) {
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    // An outage is reported by the checks that meet it, not as an unhandled 'error' event.
    this.client.on('error', () => undefined);
  }

  /** Resolves once connected; rejects after `ms` (a check then fails instead of hanging). */
  async ready(ms: number): Promise<Redis> {
    if (this.client.status === 'ready') return this.client;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), ms);
    try {
      await once(this.client, 'ready', { signal: ac.signal });
    } catch (e) {
      // Out of time, or the reconnection attempt failed (its error has the code: ECONNREFUSED …).
      throw ac.signal.aborted ? Object.assign(new Error('not connected'), { code: 'ETIMEDOUT' }) : e;
    } finally {
      clearTimeout(timer);
    }
    return this.client;
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** `work`, or a rejection after `ms`: checks and scrapes are bounded whatever hangs behind them. */
export async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
