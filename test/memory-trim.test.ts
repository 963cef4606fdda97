import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../src/memory-trim.ts', import.meta.url));
const linux = process.platform === 'linux';

/** Runs `body` in a fresh Node with gc exposed and the module as `m`; returns its JSON line. */
function child(body: string): Record<string, number> {
  const code = `const m = await import(${JSON.stringify(MODULE)});\n${body}`;
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

// Small backing stores come from malloc; keeping one in 16 leaves the arena's top in use, so
// glibc cannot shrink it by itself: the shape a worker's or a screenshot's freed memory leaves.
const FRAGMENT = `
let all = []; const keep = [];
for (let i = 0; i < 300_000; i++) { const b = new ArrayBuffer(1024); all.push(b); if (i % 16 === 0) keep.push(b); }
all = null; gc(); await new Promise((r) => setTimeout(r, 100)); gc();
globalThis.keep = keep;`;

describe.runIf(linux)('memory trim', () => {
  it('gives back the freed pages of a fragmented heap that glibc keeps on its own', () => {
    const r = child(`${FRAGMENT}
const idle = process.memoryUsage.rss();
await new Promise((r) => setTimeout(r, 500));
const stillHeld = process.memoryUsage.rss();
const t = await m.trimNativeMemory();
console.log(JSON.stringify({ idle, stillHeld, before: t.before, after: t.after }));`);
    // Without the trim the memory stays (the reason the module exists) …
    expect(r.stillHeld).toBeGreaterThan(r.idle - 20 * 2 ** 20);
    // … and the trim returns most of the ~280 MB freed.
    expect(r.before - r.after).toBeGreaterThan(150 * 2 ** 20);
  });

  it('trims on its own after growth, and not while the process stays as it is', () => {
    const r = child(`
const trims = [];
const t = m.startMemoryTrimmer({ intervalMs: 50, growthBytes: 64 * 2 ** 20, onTrim: (x) => trims.push(x) });
await new Promise((r) => setTimeout(r, 400));
const quiet = trims.length;
${FRAGMENT}
await new Promise((r) => setTimeout(r, 400));
t.stop();
console.log(JSON.stringify({ quiet, trims: trims.length, freed: trims.reduce((s, x) => s + x.before - x.after, 0) }));`);
    expect(r.quiet).toBe(0);
    expect(r.trims).toBeGreaterThanOrEqual(1);
    expect(r.freed).toBeGreaterThan(150 * 2 ** 20);
  });

  it('backs off while what stands over the start is live memory', () => {
    const r = child(`
const trims = [];
const t = m.startMemoryTrimmer({ intervalMs: 20, growthBytes: 32 * 2 ** 20, onTrim: (x) => trims.push(x) });
const live = Array.from({ length: 100 }, () => Buffer.alloc(2 ** 20, 1));
await new Promise((r) => setTimeout(r, 1500));
t.stop();
console.log(JSON.stringify({ trims: trims.length, held: live.length }));`);
    // 75 looks; without the back-off each would trim.
    expect(r.trims).toBeGreaterThanOrEqual(1);
    expect(r.trims).toBeLessThanOrEqual(8);
  });
});
