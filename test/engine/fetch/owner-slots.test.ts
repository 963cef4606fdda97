/** Per-owner fetch slots: a cap per owner, never across owners, in order, nothing kept when idle. */
import { describe, expect, it } from 'vitest';
import { OwnerSlots } from '../../../src/engine/fetch/owner-slots.js';

const settled = async <T>(p: Promise<T>) => {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('OwnerSlots', () => {
  it('holds one owner to its limit while another owner gets slots at once', async () => {
    const slots = new OwnerSlots(2);
    const a = slots.for('a');
    const give1 = await a.acquire();
    await a.acquire();
    const third = a.acquire();
    expect(await settled(third)).toBe(false);
    expect(slots.active('a')).toBe(2);
    // Another owner is not behind a's line.
    const b = await slots.for('b').acquire();
    expect(slots.active('b')).toBe(1);
    give1();
    expect(await settled(third)).toBe(true);
    expect(slots.active('a')).toBe(2);
    b();
    expect(slots.active('b')).toBe(0);
  });

  it('hands slots over in arrival order, and a give called twice frees one slot only', async () => {
    const slots = new OwnerSlots(1);
    const a = slots.for('a');
    const give = await a.acquire();
    const order: number[] = [];
    const waits = [1, 2, 3].map((n) => a.acquire().then((g) => (order.push(n), g)));
    give();
    give();
    const g1 = await waits[0];
    expect(order).toEqual([1]);
    g1();
    (await waits[1])();
    (await waits[2])();
    expect(order).toEqual([1, 2, 3]);
    expect(slots.owners).toBe(0);
  });

  it('a waiter whose signal aborts leaves the line with the reason and takes no slot', async () => {
    const slots = new OwnerSlots(1);
    const a = slots.for('a');
    const give = await a.acquire();
    const ctl = new AbortController();
    const waiting = a.acquire(ctl.signal);
    ctl.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    give();
    expect(slots.active('a')).toBe(0);
    expect(slots.owners).toBe(0);
    await expect(a.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
    expect(slots.owners).toBe(0);
  });
});
