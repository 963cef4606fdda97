/**
 * Politeness per host across every worker (scale-out): the same rules as ./host-gate.ts — at
 * most `perHost` pages of one host at once, successive requests spaced by its Crawl-delay —
 * kept in Redis, so N workers together are as polite as one. One script call decides a turn
 * atomically on Redis's clock: holders are a sorted set of tokens scored by when their lease
 * ends (a killed worker's turn frees itself), the next allowed start is a key of its own. A
 * worker whose host is full looks again as soon as one of its own turns of that host ends, or
 * shortly (another worker's turn may end first); a page waits its host's delay in process.
 * While Redis cannot be reached, each worker falls back to its own gate (polite per process).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { HostGate } from '../engine/crawl/index.js';

// Returns -1 when the host is full, else the ms to wait before starting (Crawl-delay).
const ENTER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap, lease, delay = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= cap then return -1 end
local wait = 0
if delay > 0 then
  local nxt = tonumber(redis.call('GET', KEYS[2]) or '0')
  local start = math.max(now, nxt)
  wait = start - now
  redis.call('SET', KEYS[2], start + delay, 'PX', start + delay - now + 1000)
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[4])
redis.call('PEXPIRE', KEYS[1], lease)
return wait`;

/** A held turn outlives no page: longer than any fetch's time limit. */
const LEASE_MS = 150_000;
const FULL_RETRY_MS = 25;
const SCRIPT = 'trawlHostEnter';
type WithEnter = Redis & Record<typeof SCRIPT, (...args: (string | number)[]) => Promise<number>>;

export class SharedHostGate {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #local: HostGate;
  /** Pages of this process waiting for a full host, by host: one is woken when this process leaves it. */
  readonly #waiting = new Map<string, Set<() => void>>();

  /** `redis` should fail fast when disconnected (enableOfflineQueue false), so the fallback applies. */
  constructor(
    redis: Redis,
    prefix: string,
    readonly perHost = 16,
  ) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#local = new HostGate(perHost);
    // EVALSHA: the script's text is sent once per connection, not with every page.
    if (!(SCRIPT in redis)) redis.defineCommand(SCRIPT, { numberOfKeys: 2, lua: ENTER });
  }

  /** Waits for this host's turn (across workers); call the result when the page is fetched. */
  async enter(host: string, delayMs: number, signal?: AbortSignal): Promise<() => void> {
    const holders = `${this.#prefix}:host:${host}:holders`;
    const next = `${this.#prefix}:host:${host}:next`;
    const token = randomBytes(9).toString('base64url');
    const delay = Math.min(10_000, Math.max(0, Math.round(delayMs)));
    for (;;) {
      let wait: number;
      try {
        wait = Number(await (this.#redis as WithEnter)[SCRIPT](holders, next, this.perHost, LEASE_MS, delay, token));
      } catch {
        return this.#local.enter(host, delay, signal);
      }
      if (wait >= 0) {
        if (wait > 0) await sleep(wait, signal);
        break;
      }
      if (signal?.aborted) throw signal.reason;
      await this.#turnEnded(host, signal);
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      void this.#redis
        .zrem(holders, token)
        .catch(() => undefined)
        .finally(() => this.#wakeOne(host));
    };
  }

  /** Until one of this process's turns of `host` ends, or FULL_RETRY_MS (a turn elsewhere may have). */
  #turnEnded(host: string, signal?: AbortSignal): Promise<void> {
    let set = this.#waiting.get(host);
    if (!set) this.#waiting.set(host, (set = new Set()));
    const waiters = set;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        waiters.delete(done);
        if (!waiters.size && this.#waiting.get(host) === waiters) this.#waiting.delete(host);
        resolve();
      };
      const timer = setTimeout(done, FULL_RETRY_MS);
      waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  #wakeOne(host: string): void {
    const first = this.#waiting.get(host)?.values().next().value;
    first?.();
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
  });
