/** Per-host politeness: a cap on pages at once per host, Crawl-delay between requests, other hosts unaffected. */
import { describe, expect, it } from 'vitest';
import { HostGate } from '../../src/jobs/host-gate.js';

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
    await Promise.all([0, 1, 2].map(async () => {
      const leave = await gate.enter('slow.test', 150);
      starts.push(Date.now() - t0);
      leave();
    }));
    starts.sort((x, y) => x - y);
    expect(starts[1]).toBeGreaterThanOrEqual(140);
    expect(starts[2]).toBeGreaterThanOrEqual(290);
  });
});
