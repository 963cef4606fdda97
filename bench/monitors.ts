/**
 * npm run bench:monitors — 10,000 monitors against a local site whose price changes on every
 * fetch (every run after the baseline sends a webhook to a local receiver). Twice:
 *  1. embedded: one `trawl serve` process, SQLite, in-process scheduler;
 *  2. scale-out: `trawl serve` + two `trawl worker` processes on PostgreSQL and Redis.
 * Prints scheduling lag (due time → run start, p50/p99; target p99 < 1 s embedded), runs/s,
 * webhook deliveries/s and the processes' peak RSS. The site and the receiver run in this
 * process; monitors are created through the same service function the API uses.
 * BENCH_MONITORS (10000), BENCH_INTERVAL ("60s"), BENCH_SECONDS (150), BENCH_MODES (embedded,scale-out),
 * BENCH_ACCOUNTS (50): the monitors are spread over this many accounts, each held to the default
 * TRAWL_ACCOUNT_CONCURRENCY (8 open runs), as a multi-tenant deployment would be.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { HttpClient } from '../src/engine/fetch/http.js';
import { createMonitor } from '../src/app/monitors.js';
import { accounts, openStore } from '../src/store/index.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const MONITORS = Number(process.env.BENCH_MONITORS ?? 10_000);
const INTERVAL = process.env.BENCH_INTERVAL ?? '60s';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 150);
const MODES = (process.env.BENCH_MODES ?? 'embedded,scale-out').split(',');
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 50);
const PG_ADMIN = process.env.TRAWL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TRAWL_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let n = 0;
const site = createServer((_req, res) => {
  res
    .writeHead(200, { 'content-type': 'text/html' })
    .end(
      `<!doctype html><html><head><title>Widget</title></head><body><main><h1>Widget</h1><p class="price">$${++n}.00</p><p>A product page with one changing price.</p></main></body></html>`,
    );
});
let delivered = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const SITE = `http://127.0.0.1:${(site.address() as AddressInfo).port}/p`;
const HOOK = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const peakRss = (pid: number) => {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** Start `trawl <args>` and resolve once it says it is up (`--json` prints one line then). */
function launch(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), '--json', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`trawl ${args.join(' ')} exited with ${code}`)));
  });
}

const pct = (xs: number[], p: number) =>
  xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN;

async function runMode(mode: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-monitors-'));
  let dbName: string | undefined;
  let databaseUrl: string | undefined;
  const prefix = `trawl-bench-${process.pid}`;
  if (mode === 'scale-out') {
    dbName = `trawl_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(PG_ADMIN);
    u.pathname = `/${dbName}`;
    databaseUrl = u.href;
  }
  const env: Record<string, string> = {
    PORT: '0',
    TRAWL_DATA_DIR: dataDir,
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    TRAWL_MIN_INTERVAL_SECONDS: '1',
    LOG_LEVEL: 'error',
    DATABASE_URL: databaseUrl ?? '',
    REDIS_URL: mode === 'scale-out' ? REDIS_URL : '',
    TRAWL_QUEUE_PREFIX: prefix,
  };
  const store = await openStore({ dataDir, databaseUrl });
  const accs = [];
  for (let a = 0; a < ACCOUNTS; a++)
    accs.push(await accounts.createAccount(store.db, { email: `bench${a}@local`, credits: 100_000_000 }));
  const http = new HttpClient({ allowPrivateNetwork: true });
  const created = Date.now();
  // Held to the limits of the service launched below (its environment, its defaults).
  const ctx = { store, engine: { http }, config: loadConfig({ ...process.env, ...env }) };
  for (let i = 0; i < MONITORS; i++) {
    await createMonitor(ctx, accs[i % accs.length].id, {
      url: `${SITE}?m=${i}`,
      interval: INTERVAL,
      watch: ['price', 'title'],
      webhook: HOOK,
      schema: { price: 'number' },
    });
  }
  await http.close();
  const createSeconds = (Date.now() - created) / 1000;
  // Creating 10,000 takes a while: their first runs are spread again over one interval from when
  // the processes are up, as if they had been created then (the bench measures the steady state).
  const intervalSeconds = Number.parseInt(INTERVAL) * (INTERVAL.endsWith('m') ? 60 : 1);
  const startAt = Date.now() + 5000;
  const ids = await store.db.selectFrom('monitors').select('id').execute();
  await store.db.transaction().execute(async (trx) => {
    for (const { id } of ids) {
      await trx
        .updateTable('monitors')
        .set({ next_run_at: new Date(startAt + Math.floor(Math.random() * intervalSeconds * 1000)).toISOString() })
        .where('id', '=', id)
        .execute();
    }
  });
  const children = await Promise.all([
    launch(['serve'], env),
    ...(mode === 'scale-out' ? [launch(['worker'], env), launch(['worker'], env)] : []),
  ]);
  const t0 = Date.now();
  delivered = 0;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const peaks = children.map((c) => Math.round(peakRss(c.pid!)));
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  const deliveredInRun = delivered;
  // Runs started in the window (whatever their due time: a backlog shows as lag, not as absence);
  // lag = start − due. The first 10 s (processes warming up) and the last 10 s are left out.
  const from = new Date(t0 + 10_000).toISOString();
  const windowEnd = new Date(t0 + (SECONDS - 10) * 1000).toISOString();
  const runs = await store.db
    .selectFrom('monitor_runs')
    .select(['due_at', 'started_at', 'status'])
    .where('trigger', '=', 'schedule')
    .where('started_at', '>=', from)
    .where('started_at', '<=', windowEnd)
    .execute();
  const lagOf = (rs: typeof runs) =>
    rs
      .filter((r) => r.started_at)
      .map((r) => Date.parse(r.started_at!) - Date.parse(r.due_at))
      .sort((a, b) => a - b);
  const lags = lagOf(runs);
  // Steady state: runs due after the first interval (the first includes catching up on monitors due while the processes started).
  const intervalMs = Number.parseInt(INTERVAL) * (INTERVAL.endsWith('m') ? 60_000 : 1000);
  const steady = lagOf(runs.filter((r) => Date.parse(r.due_at) >= t0 + intervalMs));
  const notStarted =
    (
      await store.db
        .selectFrom('monitors')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('next_run_at', '<', windowEnd)
        .executeTakeFirst()
    )?.n ?? 0;
  const succeeded = runs.filter((r) => r.status === 'succeeded').length;
  const attempts = await store.db
    .selectFrom('delivery_attempts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('outcome', '=', 'succeeded')
    .executeTakeFirst();
  const events = await store.db
    .selectFrom('webhook_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  await store.close();
  const windowSeconds = SECONDS - 20;
  console.log(
    `\n${mode === 'embedded' ? 'embedded (SQLite, one process)' : 'scale-out (PostgreSQL + Redis, API + 2 workers)'}: ${MONITORS} monitors of ${ACCOUNTS} accounts every ${INTERVAL}, ${SECONDS} s (created in ${createSeconds.toFixed(1)} s)`,
  );
  console.log(
    `  scheduling lag (due → start): p50 ${pct(lags, 50)} ms, p99 ${pct(lags, 99)} ms, max ${lags.at(-1)} ms over ${lags.length} runs started in the window; ${notStarted} monitors overdue at its end  (target p99 < 200 ms embedded, < 2000 ms scale-out)`,
  );
  if (steady.length)
    console.log(
      `  steady state (due after the first interval): p50 ${pct(steady, 50)} ms, p99 ${pct(steady, 99)} ms, max ${steady.at(-1)} ms over ${steady.length} runs`,
    );
  console.log(
    `  runs: ${(runs.length / windowSeconds).toFixed(1)} started/s, ${(succeeded / windowSeconds).toFixed(1)} succeeded/s (${succeeded}/${runs.length}); steady-state demand ${(MONITORS / Number.parseInt(INTERVAL) / (INTERVAL.endsWith('m') ? 60 : 1)).toFixed(1)}/s`,
  );
  console.log(
    `  webhooks: ${Number(events?.n ?? 0)} events, ${Number(attempts?.n ?? 0)} delivered (${(deliveredInRun / SECONDS).toFixed(1)} deliveries/s received over the run)`,
  );
  console.log(`  peak RSS: ${peaks.map((p, i) => `${i === 0 ? 'serve' : `worker ${i}`} ${p} MB`).join(', ')}`);
  rmSync(dataDir, { recursive: true, force: true });
  if (dbName) {
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await redis.quit();
  }
}

for (const mode of MODES) await runMode(mode);
site.close();
receiver.close();
