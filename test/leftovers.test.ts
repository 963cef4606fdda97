import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { leftovers, RUN_MARK } from './helpers/leftovers.js';

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

  it("leaves another run's processes alone (suites of several checkouts on one machine)", async () => {
    const start = (mark: string) =>
      spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', TRAWL], {
        stdio: 'ignore',
        env: { ...process.env, [RUN_MARK]: mark },
      });
    const mine = start('run-a');
    const theirs = start('run-b');
    try {
      await new Promise((r) => setTimeout(r, 300));
      const found = leftovers(60, 'run-a').map((p) => p.pid);
      expect(found).toContain(mine.pid);
      expect(found).not.toContain(theirs.pid);
    } finally {
      for (const child of [mine, theirs]) {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
    }
  });
});
