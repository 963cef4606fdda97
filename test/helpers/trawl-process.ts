/**
 * `trawl <command>` as a child process (the compiled CLI), resolved once it prints its first
 * `--json` line; each launch is journaled (its last stderr and how it ended) so a failing test
 * can say what the processes said.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '../../bin/trawl.js');

export interface Launched {
  args: string;
  err: string;
  exit?: number | string | null;
}

export function launchTrawl(
  args: string[],
  env: Record<string, string>,
  journal: Launched[] = [],
): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [BIN, '--json', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const entry: Launched = { args: args.join(' '), err: '' };
  journal.push(entry);
  child.stderr!.on('data', (d) => (entry.err = (entry.err + d).slice(-4000)));
  child.once('exit', (code, signal) => (entry.exit = code ?? signal));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ child, line: String(d).split('\n')[0] }));
    child.once('exit', (code) => reject(new Error(`trawl ${args[0]} exited (${code}): ${entry.err}`)));
  });
}
