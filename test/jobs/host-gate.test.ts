/** Per-host politeness: a cap on pages at once per host, Crawl-delay between requests, other hosts unaffected. */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { HostGate } from '../../src/engine/crawl/host-gate.js';
import { SharedHostGate } from '../../src/jobs/shared-host-gate.js';

describe('HostGate', () => {
  it('holds a host to its cap while another host goes at once', async () => {
    const gate = new HostGate(2);
    const a1 = await gate.enter('a', 0);
    await gate.enter('a', 0);
    let third = false;
    const a3 = gate.enter('a', 0).then((leave) => ((third = true), leave));
    await new Promise((r) => setImmediate(r));
    expect(third).toBe(false);
    (await gate.enter('b', 0))();
    a1();
    (await a3)();
    expect(third).toBe(true);
  });

  it('spaces requests to one host by its delay', async () => {
    const gate = new HostGate(8);
    const t0 = Date.now();
    const starts: number[] = [];
    await Promise.all(
      [0, 1, 2].map(async () => {
        const leave = await gate.enter('slow.test', 150);
        starts.push(Date.now() - t0);
        leave();
      }),
    );
    starts.sort((x, y) => x - y);
    expect(starts[1]).toBeGreaterThanOrEqual(140);
    expect(starts[2]).toBeGreaterThanOrEqual(290);
  });
});

describe('SharedHostGate (Redis): one politeness for every worker', () => {
  const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `trawl-gate-${process.pid}-${Date.now()}`;
  const clients: Redis[] = [];
  const worker = (perHost: number) => {
    const r = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    clients.push(r);
    return new SharedHostGate(r, prefix, perHost);
  };
  afterAll(async () => {
    const keys = await clients[0].keys(`${prefix}:*`);
    if (keys.length) await clients[0].del(...keys);
    for (const c of clients) c.disconnect();
  });
  const ready = (r: Redis) => new Promise<void>((ok) => (r.status === 'ready' ? ok() : r.once('ready', () => ok())));

  it('holds a host to its cap across two gates (workers)', async () => {
    const [a, b] = [worker(2), worker(2)];
    await Promise.all(clients.map(ready));
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const leave = await (i % 2 ? a : b).enter('cap.test', 0);
        peak = Math.max(peak, ++active);
        await new Promise((r) => setTimeout(r, 40));
        active--;
        leave();
      }),
    );
    expect(peak).toBe(2);
  });

  it('spaces requests to one host by its Crawl-delay across gates', async () => {
    const [a, b] = [worker(8), worker(8)];
    await Promise.all(clients.map(ready));
    const t0 = Date.now();
    const starts = await Promise.all(
      [a, b, a, b].map(async (g) => {
        const leave = await g.enter('delay.test', 120);
        leave();
        return Date.now() - t0;
      }),
    );
    starts.sort((x, y) => x - y);
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(100);
  });

  it('falls back to its own gate while Redis cannot be reached', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    const gate = new SharedHostGate(dead, prefix, 1);
    const leave = await gate.enter('down.test', 0);
    let second = false;
    const next = gate.enter('down.test', 0).then((l) => ((second = true), l));
    await new Promise((r) => setTimeout(r, 30));
    expect(second).toBe(false);
    leave();
    (await next)();
    expect(second).toBe(true);
    dead.disconnect();
  });
});
