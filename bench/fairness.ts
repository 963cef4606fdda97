/**
 * npm run bench:fairness — one account's hanging targets must not delay another's monitors.
 * Account B has 20 monitors every 2 s on a fast local page; account A has 500 monitors every 2 s
 * on a page that never answers (each run holds its slot until its timeout). One `trawl serve`
 * (embedded: SQLite, in-process scheduler) per phase:
 *   1. B alone;  2. B beside A with TRAWL_ACCOUNT_CONCURRENCY (default 8);
 *   3. B beside A with no cap (TRAWL_ACCOUNT_CONCURRENCY=10000, the behaviour before issue 26).
 * Prints B's scheduling lag (due → start) p50/p99 per phase and the ratio to B alone (target:
 * p99 within 2× of alone). BENCH_SECONDS (40) per phase.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { HttpClient } from '../src/engine/fetch/http.js';
import { createMonitor } from '../src/app/monitors.js';
import { accounts, openStore } from '../src/store/index.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 40);
const A_MONITORS = Number(process.env.BENCH_A_MONITORS ?? 500);
const B_MONITORS = 20;

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
const fast = createServer(
  (_req, res) =>
    void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<html><head><title>Fast</title></head><body><main><h1>Fast</h1><p class="price">$1.00</p></main></body></html>',
      ),
);
const hanging = createServer(() => undefined); // accepts, never answers
for (const s of [fast, hanging, receiver]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
const FAST = `http://127.0.0.1:${(fast.address() as AddressInfo).port}/p`;
const HOOK = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
const HANG = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/p`;

const pct = (xs: number[], p: number) =>
  xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;

function launch(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), '--json', 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (process.env.DBG) child.stdout!.on('data', (d) => process.stderr.write(d));
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`trawl serve exited with ${code}`)));
  });
}

async function phase(name: string, withA: boolean, cap: number): Promise<number[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-fairness-'));
  let store = await openStore({ dataDir });
  const http = new HttpClient({ allowPrivateNetwork: true });
  const env = {
    PORT: '0',
    TRAWL_DATA_DIR: dataDir,
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    TRAWL_MIN_INTERVAL_SECONDS: '1',
    LOG_LEVEL: process.env.DBG ? 'info' : 'error',
    DATABASE_URL: '',
    REDIS_URL: '',
    TRAWL_ACCOUNT_CONCURRENCY: String(cap),
  };
  // Held to the limits of the service launched below (its environment, its defaults).
  const ctx = { store, engine: { http }, config: loadConfig({ ...process.env, ...env }) };
  const b = await accounts.createAccount(store.db, { email: 'b@local', credits: 1_000_000 });
  for (let i = 0; i < B_MONITORS; i++)
    await createMonitor(ctx, b.id, {
      url: `${FAST}?m=${i}`,
      interval: '2s',
      watch: ['price'],
      webhook: HOOK,
      schema: { price: 'number' },
    });
  if (withA) {
    const a = await accounts.createAccount(store.db, { email: 'a@local', credits: 1_000_000 });
    for (let i = 0; i < A_MONITORS; i++)
      await createMonitor(ctx, a.id, {
        url: `${HANG}?m=${i}`,
        interval: '2s',
        watch: ['price'],
        webhook: HOOK,
        schema: { price: 'number' },
      });
  }
  await http.close();
  await store.close(); // the service owns the file while it runs
  const child = await launch(env);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  // B's runs due in the window (after a 5 s start-up, before the last 5 s); a run not started counts as lagging to the end.
  const end = t0 + (SECONDS - 5) * 1000;
  store = await openStore({ dataDir });
  const runs = await store.db
    .selectFrom('monitor_runs')
    .select(['due_at', 'started_at'])
    .where('account_id', '=', b.id)
    .where('due_at', '>=', new Date(t0 + 5000).toISOString())
    .where('due_at', '<=', new Date(end).toISOString())
    .execute();
  // Due times not even turned into runs (the scheduler never got to them) are missing here: count B's expected runs too.
  const lags = runs
    .map((r) => (r.started_at ? Date.parse(r.started_at) : t0 + SECONDS * 1000) - Date.parse(r.due_at))
    .sort((x, y) => x - y);
  const expected = Math.floor(((SECONDS - 10) / 2) * B_MONITORS);
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
  console.log(
    `  ${name.padEnd(44)} B lag p50 ${pct(lags, 50)} ms, p99 ${pct(lags, 99)} ms over ${lags.length} runs (≈${expected} due)`,
  );
  return lags;
}

console.log(
  `bench:fairness — account B: ${B_MONITORS} monitors every 2 s on a fast page; account A: ${A_MONITORS} every 2 s on a page that never answers; ${SECONDS} s per phase, embedded`,
);
const alone = await phase('B alone', false, 8);
const capped = await phase('B beside A, TRAWL_ACCOUNT_CONCURRENCY=8', true, 8);
const uncapped = await phase('B beside A, no cap (before issue 26)', true, 10_000);
const ratio = (xs: number[]) => (pct(xs, 99) / Math.max(1, pct(alone, 99))).toFixed(2);
console.log(
  `  B's p99 lag vs alone: capped ${ratio(capped)}× (target ≤ 2×; runs ${capped.length}/${alone.length} of alone), uncapped ${ratio(uncapped)}× (runs ${uncapped.length}/${alone.length})`,
);
fast.close();
receiver.close();
hanging.closeAllConnections();
hanging.close();
