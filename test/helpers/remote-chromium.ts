/**
 * A second local Chromium with --remote-debugging-port: the stand-in for a remote browser
 * (Browserless, a cloud "scraping browser") in the tests and `npm run eval:walls` (issue 42).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Chromium listening for DevTools on a free port; resolves with its ws:// endpoint. */
export async function startRemoteChromium(
  path: string,
): Promise<{ endpoint: string; http: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-remote-chromium-'));
  const child: ChildProcess = spawn(
    path,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--remote-debugging-port=0',
      '--remote-debugging-address=127.0.0.1',
      `--user-data-dir=${dir}`,
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      'about:blank',
    ],
    // Its own process group: stopping it stops its renderer and utility processes too.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`remote Chromium did not start: ${err.slice(-500)}`)), 20_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const u = new URL(endpoint);
  return {
    endpoint,
    http: `http://${u.host}`,
    stop: async () => {
      const exited = new Promise((r) =>
        child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r),
      );
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      await exited;
      // A helper process may still be writing its profile for a moment after the browser went.
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
