/** The compiled `trawl` command, for benches that run the real service in its own process. */
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `trawl --json ARGS` with `env`; resolves with its stdout. */
export function trawlCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((ok, fail) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), '--json', ...args], { env });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? ok(out) : fail(new Error(`trawl ${args.join(' ')} failed`))));
  });
}

/** Resolves once `${base}/healthz` answers 200 (throws after 20 s). */
export async function waitHealthy(base: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (i > 200) throw new Error(`${base} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
