/**
 * Worker heartbeats (issue 29): each `trawl worker` says it is alive in Redis every few seconds, so
 * an API process's /readyz (and /metrics) can tell whether anyone is there to run monitors, deliver
 * webhooks and work on jobs. One sorted set per queue prefix; a worker's score is when its beat
 * expires, so a worker that died (no goodbye) drops out on its own after HEARTBEAT_TTL_MS, and the
 * set itself expires when no worker beats at all. Reading is one ZCOUNT, whatever the keyspace.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';

/** A beat is good for this long; workers beat every third of it. */
export const HEARTBEAT_TTL_MS = 30_000;

export const heartbeatKey = (prefix: string) => `${prefix}:workers:alive`;

/** Workers whose last beat has not expired. */
export async function liveWorkers(redis: Redis, prefix: string, nowMs = Date.now()): Promise<number> {
  return redis.zcount(heartbeatKey(prefix), nowMs, '+inf');
}

export class WorkerHeartbeat {
  /** `host:pid:random`: tells the operator which worker it is, never collides with a restarted one. */
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly #redis: Redis;
  readonly #key: string;
  #timer?: NodeJS.Timeout;

  constructor(redisUrl: string, prefix: string) {
    // Commands fail at once while Redis is away (the next beat tries again), never queue up.
    this.#redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.#redis.on('error', () => undefined);
    this.#key = heartbeatKey(prefix);
  }

  async start(): Promise<void> {
    await this.#redis.connect().catch(() => undefined);
    await this.beat();
    this.#timer = setInterval(() => void this.beat(), HEARTBEAT_TTL_MS / 3);
    this.#timer.unref();
  }

  /** One beat: this worker's expiry moves on, expired ones are dropped. Best effort. */
  async beat(nowMs = Date.now()): Promise<void> {
    await this.#redis
      .multi()
      .zadd(this.#key, nowMs + HEARTBEAT_TTL_MS, this.id)
      .zremrangebyscore(this.#key, '-inf', nowMs)
      .pexpire(this.#key, HEARTBEAT_TTL_MS * 2)
      .exec()
      .catch(() => undefined);
  }

  /** Leaves the set at once (a clean stop), then closes the connection. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#redis.zrem(this.#key, this.id).catch(() => undefined);
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
