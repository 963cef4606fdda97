/**
 * Vitest's global setup: at the end of a run, no process the tests started may be left running
 * (issue 43: a test once left `trawl mcp --http` listening for 29 minutes after the suite).
 * Processes are this checkout's `bin/trawl.js` and the Chromiums the tests launch (Playwright's,
 * and the remote-browser stand-in), started after the run began. Those found are listed, stopped,
 * and fail the run.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** A process of the tests: this checkout's CLI, or a Chromium a test launched. */
const OURS = [
  `${ROOT}/bin/trawl.js`,
  'trawl-remote-chromium-',
  // Playwright's Chromium: driven over a pipe, its profile in a temporary directory.
  '--remote-debugging-pipe',
];

interface Proc {
  pid: number;
  ppid: number;
  /** Seconds since it started. */
  age: number;
  args: string;
}

function processes(): Proc[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,etimes=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), age: Number(m[3]), args: m[4] }));
}

/**
 * Whether a process belongs to this run: it inherited the run's token (set before the workers
 * start). Other runs on the machine — another checkout's, another engineer's — are not ours to stop.
 */
function ofThisRun(pid: number): boolean {
  const token = process.env.TRAWL_TEST_RUN;
  if (!token) return true;
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`TRAWL_TEST_RUN=${token}`);
  } catch {
    return false;
  }
}

/** Processes of the tests started within the last `seconds` (Chromium's helpers only once: by their browser). */
export function leftovers(seconds: number): Proc[] {
  if (process.platform !== 'linux') return [];
  const all = processes();
  const found = all.filter(
    (p) => p.pid !== process.pid && p.age <= seconds && OURS.some((o) => p.args.includes(o)) && ofThisRun(p.pid),
  );
  const pids = new Set(found.map((p) => p.pid));
  // A browser's renderers and zygotes are its own: listed once, through it.
  return found.filter((p) => !pids.has(p.ppid));
}

export default function setup(): () => void {
  const started = Date.now();
  // Inherited by the workers and every process they start.
  process.env.TRAWL_TEST_RUN ??= randomUUID();
  return () => {
    const left = leftovers(Math.ceil((Date.now() - started) / 1000) + 5);
    if (!left.length) return;
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    // (Vitest reports an error thrown here but still exits 0: the exit code says it.)
    process.exitCode = 1;
    console.error(
      `the tests left ${left.length} process(es) running (stopped now):\n${left.map((p) => `  ${p.pid} ${p.args.slice(0, 200)}`).join('\n')}`,
    );
  };
}
