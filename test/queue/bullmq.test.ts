/**
 * The BullMQ adapter against the real Redis: the store is the only memory, so a finished job
 * leaves nothing behind — recovery re-adding the same run id is handled again (a kept job made
 * that a silent no-op: runs stranded) — and a run another runner holds is looked at again when
 * the holder's lease ends instead of being dropped.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BullQueue } from '../../src/queue/index.js';

const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `trawl-test-q-${process.pid}-${Date.now()}`;

async function until(what: string, fn: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('BullQueue', () => {
  const queue = new BullQueue({ redisUrl: REDIS_URL, prefix, runConcurrency: 4 });
  afterAll(async () => {
    await queue.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  const calls: { id: string; at: number }[] = [];
  let holdUntil = 0;
  queue.consume({
    run: async (id) => {
      calls.push({ id, at: Date.now() });
      if (id === 'run_held' && holdUntil > Date.now()) return { retryAt: holdUntil };
    },
    delivery: async () => undefined,
  });

  it('handles a run id again when it is re-added after its job finished', async () => {
    await queue.addRuns(['run_again']);
    await until('first', () => calls.filter((c) => c.id === 'run_again').length === 1);
    await new Promise((r) => setTimeout(r, 100));
    await queue.addRuns(['run_again']);
    await until('second', () => calls.filter((c) => c.id === 'run_again').length === 2);
  });

  it("delays a held run to the holder's lease end, then runs it", async () => {
    holdUntil = Date.now() + 800;
    const t0 = Date.now();
    await queue.addRuns(['run_held']);
    await until('looked again', () => calls.filter((c) => c.id === 'run_held').length === 2, 15_000);
    const [, second] = calls.filter((c) => c.id === 'run_held');
    expect(second.at - t0).toBeGreaterThanOrEqual(750);
  }, 20_000);

  it('reports room for runs from what waits in Redis', async () => {
    expect(await queue.runCapacity()).toBe(8);
  });
});
