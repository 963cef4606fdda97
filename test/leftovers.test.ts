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
});
