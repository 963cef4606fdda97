import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leftovers } from './helpers/leftovers.js';

const TRAWL = fileURLToPath(new URL('../bin/trawl.js', import.meta.url));

describe.runIf(process.platform === 'linux')('the check for processes left behind', () => {
  it('finds a trawl process a test started and did not stop, and not once it is stopped', async () => {
    // `trawl --help` would exit at once: a process that waits stands in for a forgotten server.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', TRAWL], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(leftovers(60).map((p) => p.pid)).toContain(child.pid);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    expect(leftovers(60).map((p) => p.pid)).not.toContain(child.pid);
  });

  it("counts a Chromium of this run or of no run, never one another checkout's run holds", async () => {
    // A process whose arguments look like Playwright's Chromium stands in for one.
    const chromium = ['-e', 'setTimeout(() => {}, 60_000)', '--', '--remote-debugging-pipe'];
    const mine = spawn(process.execPath, chromium, { stdio: 'ignore' });
    // Another run: a "vitest" process (by its arguments) holding its own Chromium.
    const other = spawn(
      process.execPath,
      [
        '-e',
        `require('child_process').spawn(process.execPath, ${JSON.stringify(chromium)}, { stdio: 'ignore' }); setTimeout(() => {}, 60_000)`,
        'vitest',
      ],
      { stdio: 'ignore', detached: true },
    );
    try {
      await new Promise((r) => setTimeout(r, 500));
      const found = leftovers(60).map((p) => p.pid);
      expect(found).toContain(mine.pid);
      const held = leftovers(60, -1).filter((p) => p.args.includes('--remote-debugging-pipe') && p.pid !== mine.pid);
      expect(held).toEqual([]);
      // Once that run is gone (its Chromium orphaned), the Chromium is a leftover of no run: counted.
      const child = Number(
        (await import('node:child_process'))
          .execFileSync('pgrep', ['-P', String(other.pid)], { encoding: 'utf8' })
          .trim(),
      );
      process.kill(other.pid!, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 300));
      expect(leftovers(60, -1).map((p) => p.pid)).toContain(child);
      process.kill(child, 'SIGKILL');
    } finally {
      mine.kill('SIGKILL');
      try {
        process.kill(-other.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });
});
