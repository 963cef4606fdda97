/** Shared render slots split between owners: a cap per owner, a freed slot to the owner holding fewest. */
import { describe, expect, it } from 'vitest';
import { FairSlots } from '../../../src/engine/fetch/fair-slots.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('FairSlots', () => {
  it('keeps one of four slots for others: the hog waits, another owner gets the free one at once', async () => {
    const slots = new FairSlots(4);
    const a = await Promise.all([slots.take('a', 1000), slots.take('a', 1000), slots.take('a', 1000)]);
    let fourth = false;
    const aFourth = slots.take('a', 5000).then((g) => ((fourth = true), g));
    await tick();
    expect(fourth).toBe(false);
    expect(slots.active).toBe(3);
    const b = await slots.take('b', 1000);
    expect(slots.active).toBe(4);
    // When one of a's ends, a's waiting render may go (a holds 2 then, under its cap).
    a[0]();
    await tick();
    expect(fourth).toBe(true);
    (await aFourth)();
    b();
    a[1]();
    a[2]();
    expect(slots.active).toBe(0);
  });

  it('gives a freed slot to the waiting owner that holds fewest, before earlier waiters of a busier one', async () => {
    const slots = new FairSlots(2, 2);
    const a1 = await slots.take('a', 1000);
    const a2 = await slots.take('a', 1000);
    const order: string[] = [];
    const aWait = slots.take('a', 5000).then((g) => (order.push('a'), g));
    const bWait = slots.take('b', 5000).then((g) => (order.push('b'), g));
    a1();
    await tick();
    expect(order).toEqual(['b']);
    a2();
    await tick();
    expect(order).toEqual(['b', 'a']);
    (await aWait)();
    (await bWait)();
    expect(slots.active).toBe(0);
  });

  it('a wait ends at its budget with a 504 naming the slots, or with its signal, and holds nothing after', async () => {
    const slots = new FairSlots(1, 1, 'Chromium render slots');
    const held = await slots.take('a', 1000);
    await expect(slots.take('b', 50)).rejects.toMatchObject({
      code: 'timeout',
      detail: expect.stringContaining('all 1 Chromium render slots'),
    });
    const ctl = new AbortController();
    const w = slots.take('c', 5000, ctl.signal);
    ctl.abort(new Error('gone'));
    await expect(w).rejects.toThrow('gone');
    held();
    expect(slots.active).toBe(0);
    (await slots.take('d', 10))();
  });
});
