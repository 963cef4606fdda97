/** The compiled `trawl` command, for benches that run the real service in its own process. */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readHtml } from './fixtures.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `trawl --json ARGS` with `env` (the build in `root`, this checkout's by default); resolves with its stdout. */
export function trawlCli(args: string[], env: NodeJS.ProcessEnv, root = ROOT): Promise<string> {
  return new Promise((ok, fail) => {
    const p = spawn(process.execPath, [join(root, 'bin/trawl.js'), '--json', ...args], { env });
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

/**
 * Serves saved pages at their own URLs (host + path + query) on 127.0.0.1, for a service
 * told to resolve their hosts here: `resolve` is the TRAWL_RESOLVE value. Two captures of one
 * URL (logged in / out) are told apart with a marker parameter — their `url` is changed.
 */
export async function serveSavedPages(
  pages: { url: string; file: string }[],
): Promise<{ resolve: string; close(): void }> {
  const taken = new Set<string>();
  for (const p of pages) {
    if (taken.has(p.url)) p.url += `${p.url.includes('?') ? '&' : '?'}fixture=${taken.size}`;
    taken.add(p.url);
  }
  const key = (u: string) => `${new URL(u).host}${new URL(u).pathname}${new URL(u).search}`;
  const byKey = new Map(pages.map((p) => [key(p.url), p]));
  const site = createServer((req, res) => {
    const p = byKey.get(`${req.headers.host}${req.url}`);
    if (!p) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readHtml(p.file));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const port = (site.address() as AddressInfo).port;
  const hosts = [...new Set(pages.map((p) => new URL(p.url).hostname))];
  return { resolve: hosts.map((h) => `${h}=127.0.0.1:${port}`).join(','), close: () => site.close() };
}

/** The environment of a bench's own `trawl serve`: embedded SQLite in `dataDir`, local targets allowed, quiet. */
export const serviceEnv = (dataDir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  TRAWL_DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATABASE_URL: '',
  REDIS_URL: '',
  LOG_LEVEL: 'error',
  TRAWL_ALLOW_PRIVATE_NETWORK: '1',
  TRAWL_RATE_LIMIT_PER_MINUTE: '1000000',
  ...extra,
});

/** An account with `credits` and a key for it, made with that build's CLI; resolves with the key. */
export async function benchKey(env: NodeJS.ProcessEnv, root: string, email: string, credits: number): Promise<string> {
  await trawlCli(['account', 'create', '--email', email, '--credits', String(credits)], env, root);
  const out = await trawlCli(['keys', 'create', '--email', email, '--rate-limit', '1000000'], env, root);
  return (JSON.parse(out) as { key: string }).key;
}

/** Serves fixed bodies by path (the query is ignored) on 127.0.0.1; resolves with its base URL. */
export async function serveFiles(
  files: Map<string, { type: string; body: Buffer }>,
): Promise<{ url: string; close(): void }> {
  const site = createServer((req, res) => {
    const f = files.get((req.url ?? '').split('?')[0]);
    if (!f) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f.type }).end(f.body);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`, close: () => void site.close() };
}
