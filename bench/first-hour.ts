/**
 * npm run bench:first-hour — a newcomer's first hour, scripted from the README (issue 43): serve
 * (through the bin), an account with a password and a key (the CLI), dashboard login with that
 * account, a JSON Schema extract, a first crawl, the README's monitor on an ordinary page (run
 * now: its baseline), keys list, then SIGTERM. Each step timed and printed; any step that fails
 * stops the run with exit code 1. Pages come from a local site (TRAWL_ALLOW_PRIVATE_NETWORK=1).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './lib/service.js';

const BIN = join(ROOT, 'bin/trawl.js');
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-first-hour-'));
const env = {
  ...process.env,
  TRAWL_DATA_DIR: dataDir,
  TRAWL_ALLOW_PRIVATE_NETWORK: '1',
  DATABASE_URL: '',
  REDIS_URL: '',
  LOG_LEVEL: 'warn',
};
const rows: [string, number, string][] = [];

async function step<T>(name: string, fn: () => Promise<T>, show: (v: T) => string = () => ''): Promise<T> {
  const t = performance.now();
  try {
    const v = await fn();
    rows.push([name, performance.now() - t, show(v)]);
    return v;
  } catch (e) {
    rows.push([name, performance.now() - t, `FAILED: ${(e as Error).message}`]);
    throw e;
  }
}

const cli = async (args: string[]) =>
  JSON.parse((await promisify(execFile)(process.execPath, [BIN, '--json', ...args], { env })).stdout);

const page = (title: string, body: string) =>
  `<html><head><title>${title}</title><meta name="description" content="${title}: an ordinary page"></head><body><h1>${title}</h1><p>${body}</p><a href="/about">About</a></body></html>`;
const site = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(
    req.url === '/about'
      ? page('About us', 'Who we are, with commas, and a full stop.')
      : page('Home', 'Welcome, reader, to an ordinary home page.'),
  );
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;

const server = spawn(process.execPath, [BIN, '--json', 'serve', '--port', '0'], {
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let failed = false;
try {
  const base = await step(
    'serve (to listening)',
    () =>
      new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout!.on('data', (d) => {
          out += d;
          const m = /\{"status":"listening","url":"([^"]+)"\}/.exec(out);
          if (m) resolve(m[1]);
        });
        server.once('exit', (c) => reject(new Error(`serve exited ${c}`)));
      }),
    (u) => u,
  );
  const email = 'you@example.com';
  const password = 'a long passphrase';
  await step(
    'account create --password',
    () => cli(['account', 'create', '--email', email, '--password', password, '--credits', '1000']),
    (a) => a.account_id,
  );
  const { key } = await step(
    'keys create',
    () => cli(['keys', 'create', '--email', email]),
    (k) => k.key_id,
  );
  await step(
    'keys list',
    () => cli(['keys', 'list', '--email', email]),
    (l) => `${l.keys.length} key`,
  );
  await step(
    'dashboard login',
    async () => {
      const res = await fetch(`${base}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
        body: new URLSearchParams({ email, password }),
      });
      const cookie = res.headers.get('set-cookie');
      if (res.status !== 303 || !cookie) throw new Error(`login answered ${res.status}`);
      const overview = await fetch(`${base}/`, { headers: { cookie: cookie.split(';')[0] } });
      const title = /<title>([^<]*)/.exec(await overview.text())?.[1];
      if (!title?.startsWith('Overview')) throw new Error(`the dashboard answered ${overview.status}: ${title}`);
      return title;
    },
    (t) => t,
  );
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  await step(
    '/docs',
    async () => (await fetch(`${base}/docs`)).status,
    (s) => `HTTP ${s}`,
  );
  await step(
    'scrape',
    () => api('/v1/scrape', { url: siteUrl, formats: ['markdown', 'links'] }),
    (r) => `${r.markdown.length} chars`,
  );
  await step(
    'extract (JSON Schema)',
    () =>
      api('/v1/extract', {
        urls: [siteUrl],
        schema: { type: 'object', properties: { title: { type: 'string' }, description: { type: 'string' } } },
      }),
    (r) => JSON.stringify(r.data),
  );
  await step(
    'crawl',
    () => api('/v1/crawl', { url: siteUrl, max_depth: 1, limit: 10 }),
    (r) => `${r.total} pages`,
  );
  const { monitor } = await step(
    'monitor create (README example)',
    () =>
      api('/v1/monitors', {
        url: siteUrl,
        interval: '1h',
        watch: ['title', 'markdown'],
        webhook: 'https://your-app.example/hooks/trawl',
      }),
    (m) => m.monitor.monitor_id,
  );
  await step(
    'monitor run now (baseline)',
    () => api(`/v1/monitors/${monitor.monitor_id}/run`, {}),
    (r) => `${r.run.status}: ${JSON.stringify(r.run.values?.title)}`,
  );
  await step(
    'SIGTERM (to exit)',
    () =>
      new Promise<number | null>((resolve) => {
        server.once('exit', (code) => resolve(code));
        server.kill('SIGTERM');
      }),
    (c) => `exit ${c}`,
  );
} catch {
  failed = true;
} finally {
  if (server.exitCode === null) server.kill('SIGKILL');
  site.close();
  rmSync(dataDir, { recursive: true, force: true });
}
const total = rows.reduce((n, r) => n + r[1], 0);
for (const [name, ms, note] of rows) console.log(`${name.padEnd(32)} ${`${ms.toFixed(0)} ms`.padStart(9)}  ${note}`);
console.log(`${'total'.padEnd(32)} ${`${total.toFixed(0)} ms`.padStart(9)}`);
process.exit(failed ? 1 : 0);
