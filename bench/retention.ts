/**
 * npm run bench:retention — bytes a monitor costs the store per month, before and after retention
 * (issue 27, point 6), on SQLite and PostgreSQL. Rows are written straight into the store with a
 * fake clock (no scraping, no real time): BENCH_MONITORS monitors, each run once a minute,
 * watching a page's markdown (BENCH_PAGE_KB) and a price that change every BENCH_CHANGE_HOURS;
 * every run writes its run row and its usage row, every change an event, a delivery and an attempt
 * (as the runner and the deliverer do).
 *  - before: values inline, nothing pruned. Growth is linear, so BENCH_BASE_DAYS are simulated and
 *    scaled to 30 days; the pruner's catch-up throughput is then measured on that backlog.
 *  - after: large values as snapshots, the pruner run every simulated hour (VACUUM daily on
 *    PostgreSQL, as autovacuum would), for BENCH_DAYS (30) simulated days.
 * Size: SQLite pages in use ((page_count − freelist_count) × page_size, after a WAL checkpoint);
 * PostgreSQL sum of pg_total_relation_size over the tables (after VACUUM).
 * BENCH_DAYS over 30 shows the plateau (day 30 → 50: 19.7 → 19.9 MB for 5 monitors on SQLite; only the hourly usage sums, kept 400 days, still grow).
 * BENCH_MONITORS (5), BENCH_DAYS (30), BENCH_BASE_DAYS (2), BENCH_PAGE_KB (8), BENCH_CHANGE_HOURS (6), BENCH_DIALECTS (sqlite,postgres).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Insertable } from 'kysely';
import pg from 'pg';
import { prune, type PruneStats } from '../src/monitors/retention.js';
import {
  accounts,
  monitors,
  newId,
  openStore,
  retention,
  sha256Hex,
  snapshots,
  type Store,
} from '../src/store/index.js';
import type { MonitorRunsTable } from '../src/store/tables.js';

const MONITORS = Number(process.env.BENCH_MONITORS ?? 5);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const BASE_DAYS = Number(process.env.BENCH_BASE_DAYS ?? 2);
const PAGE_KB = Number(process.env.BENCH_PAGE_KB ?? 8);
const CHANGE_HOURS = Number(process.env.BENCH_CHANGE_HOURS ?? 6);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
const PG_ADMIN = process.env.TRAWL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RETENTION_DAYS = 30;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const MB = 1024 * 1024;

// Words drawn at random (seeded by the version): compresses about as well as real markdown does (PostgreSQL's TOAST compresses repeated text to nothing).
const WORDS =
  'widget pressure rated deep sea steel titanium seal valve depth gauge shipping returns warranty review stars customer size colour blue black orange kit pack model series version spec sheet manual battery hours charge case strap mount lens sensor display water resistant tested certified ocean diving marine grade bolt thread o-ring service interval price stock delivery days express standard free over order cart details features description about brand maker made in europe usa japan'.split(
    ' ',
  );
const pageCache = new Map<number, string>();
/** The page's markdown at a version, as the runner stores it (whitespace folded, one line). */
const page = (v: number) => {
  let p = pageCache.get(v);
  if (!p) {
    let seed = (v + 1) * 2654435761;
    const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    const words: string[] = [`# Deep Sea Widget v${v} $${10 + (v % 5)}.00`];
    let len = words[0].length;
    while (len < PAGE_KB * 1024) {
      const w = WORDS[Math.floor(rand() * WORDS.length)] + (rand() < 0.08 ? '.' : '');
      words.push(w);
      len += w.length + 1;
    }
    p = words
      .join(' ')
      .slice(0, PAGE_KB * 1024)
      .trim();
    pageCache.set(v, p);
  }
  return p;
};
const versionAt = (m: number, minute: number) => Math.floor((minute + m * 37) / (CHANGE_HOURS * 60));

async function chunks<T>(rows: T[], size: number, insert: (part: T[]) => Promise<unknown>) {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size));
}

interface Sim {
  store: Store;
  dialect: string;
  accountId: string;
  monitorIds: string[];
  previous: (number | undefined)[];
}

/** One simulated hour of runs for every monitor, in one transaction. */
async function simulateHour(sim: Sim, hour: number, withSnapshots: boolean): Promise<void> {
  const { store, accountId, monitorIds } = sim;
  await store.db.transaction().execute(async (trx) => {
    const runs: Insertable<MonitorRunsTable>[] = [];
    const usageRows: {
      account_id: string;
      key_id: null;
      endpoint: string;
      status: number;
      credits: number;
      duration_ms: number;
      request_id: string;
      created_at: string;
    }[] = [];
    const events: {
      id: string;
      monitor_id: string;
      account_id: string;
      run_id: string;
      body: string;
      created_at: string;
    }[] = [];
    const firstOfVersion: {
      runId: string;
      values: Record<string, unknown>;
      changes: Record<string, { from: unknown; to: unknown }> | null;
      at: Date;
    }[] = [];
    const refs: { run_id: string; hash: string }[] = [];
    const lastValues = new Map<string, string>();
    for (let m = 0; m < monitorIds.length; m++) {
      const seenThisHour = new Set<number>();
      for (let k = 0; k < 60; k++) {
        const minute = hour * 60 + k;
        const due = T0 + minute * 60_000 + m * 1000;
        const at = new Date(due + 1500).toISOString();
        const v = versionAt(m, minute);
        const pv = sim.previous[m];
        const id = newId('run');
        const full = { markdown: page(v), price: 10 + (v % 5) };
        const changed = pv !== undefined && pv !== v;
        const changes = changed
          ? { markdown: { from: page(pv), to: page(v) }, price: { from: 10 + (pv % 5), to: full.price } }
          : null;
        const eventId = changed ? newId('evt') : null;
        let values = JSON.stringify(full);
        let rowValues: string | null = values;
        let storedChanges = changes && JSON.stringify(changes);
        if (withSnapshots) {
          const hash = sha256Hex(JSON.stringify(full.markdown));
          values = rowValues = JSON.stringify({ markdown: { $snapshot: hash }, price: full.price });
          if (!seenThisHour.has(v)) {
            // The first run of a version in this hour goes through the runner's own call (a change always does).
            firstOfVersion.push({ runId: id, values: full, changes, at: new Date(at) });
            rowValues = null;
            storedChanges = null;
          } else refs.push({ run_id: id, hash });
          seenThisHour.add(v);
        }
        runs.push({
          id,
          monitor_id: monitorIds[m],
          account_id: accountId,
          trigger: 'schedule',
          status: 'succeeded',
          due_at: new Date(due).toISOString(),
          started_at: new Date(due).toISOString(),
          finished_at: at,
          lease_until: null,
          credits: 1,
          status_code: 200,
          values: rowValues,
          changes: storedChanges,
          event_id: eventId,
          error: null,
        });
        usageRows.push({
          account_id: accountId,
          key_id: null,
          endpoint: 'monitor run',
          status: 200,
          credits: 1,
          duration_ms: 1500,
          request_id: id,
          created_at: at,
        });
        if (eventId)
          events.push({
            id: eventId,
            monitor_id: monitorIds[m],
            account_id: accountId,
            run_id: id,
            body: JSON.stringify({
              id: eventId,
              event: 'change.detected',
              monitor_id: monitorIds[m],
              url: 'https://shop.example/widget',
              changes,
              at,
            }),
            created_at: at,
          });
        lastValues.set(monitorIds[m], values);
        sim.previous[m] = v;
      }
    }
    await chunks(runs, 400, (part) => trx.insertInto('monitor_runs').values(part).execute());
    // As the runner's snapshots.store: the snapshot once, a reference from every run.
    for (const f of firstOfVersion) {
      const stored = await snapshots.storeRun(trx, f.runId, f.values, f.changes, f.at);
      await trx
        .updateTable('monitor_runs')
        .set({ values: stored.values, changes: stored.changes })
        .where('id', '=', f.runId)
        .execute();
    }
    await chunks(refs, 1000, (part) =>
      trx
        .insertInto('snapshot_refs')
        .values(part)
        .onConflict((oc) => oc.doNothing())
        .execute(),
    );
    await chunks(usageRows, 1000, (part) => trx.insertInto('usage').values(part).execute());
    for (const e of events) {
      await trx.insertInto('webhook_events').values(e).execute();
      const d = newId('dlv');
      await trx
        .insertInto('webhook_deliveries')
        .values({
          id: d,
          event_id: e.id,
          monitor_id: e.monitor_id,
          account_id: accountId,
          url: 'https://hooks.example/in',
          state: 'succeeded',
          attempts: 1,
          next_attempt_at: null,
          lease_until: null,
          last_status: 200,
          last_error: null,
          created_at: e.created_at,
          updated_at: e.created_at,
        })
        .execute();
      await trx
        .insertInto('delivery_attempts')
        .values({
          delivery_id: d,
          attempt: 1,
          manual: 0,
          outcome: 'succeeded',
          started_at: e.created_at,
          finished_at: e.created_at,
          status_code: 200,
          error: null,
          duration_ms: 40,
        })
        .execute();
    }
    for (const [id, v] of lastValues)
      await trx
        .updateTable('monitors')
        .set({ last_values: v, last_run_at: new Date(T0 + (hour + 1) * 3_600_000).toISOString() })
        .where('id', '=', id)
        .execute();
  });
}

async function bytesUsed(store: Store, dialect: string, file?: string): Promise<number> {
  if (dialect === 'sqlite') {
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
    const one = async (p: string) =>
      Number(Object.values((await sql.raw(`PRAGMA ${p}`).execute(store.db)).rows[0] as object)[0]);
    void file;
    return ((await one('page_count')) - (await one('freelist_count'))) * (await one('page_size'));
  }
  await sql`VACUUM`.execute(store.db);
  const r = await sql<{
    n: number;
  }>`select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as n from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = 'public' and c.relkind = 'r'`.execute(
    store.db,
  );
  return Number(r.rows[0].n);
}

/** Bytes per table, indexes included (SQLite's dbstat; PostgreSQL's pg_total_relation_size), largest first. */
async function bytesByTable(store: Store, dialect: string): Promise<[string, number][]> {
  const r =
    dialect === 'sqlite'
      ? await sql<{
          t: string;
          n: number;
        }>`select coalesce(m.tbl_name, d.name) as t, sum(d.pgsize) as n from dbstat d left join sqlite_master m on m.name = d.name group by t`.execute(
          store.db,
        )
      : await sql<{
          t: string;
          n: number;
        }>`select c.relname as t, pg_total_relation_size(c.oid)::bigint as n from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = 'public' and c.relkind = 'r'`.execute(
          store.db,
        );
  return r.rows.map((x) => [x.t, Number(x.n)] as [string, number]).sort((a, b) => b[1] - a[1]);
}

async function freshStore(dialect: string): Promise<{ store: Store; file?: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-retention-'));
    const store = await openStore({ dataDir: dir });
    return {
      store,
      file: join(dir, 'trawl.db'),
      drop: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })),
    };
  }
  const name = `trawl_bench_retention_${process.pid}_${Math.random().toString(36).slice(2, 6)}`;
  const admin = async (q: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    try {
      await c.query(q);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(PG_ADMIN);
  u.pathname = `/${name}`;
  const store = await openStore({ databaseUrl: u.href, dataDir: '' });
  return {
    store,
    drop: async () => (await store.close(), await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function setUp(store: Store, dialect: string): Promise<Sim> {
  const acc = await accounts.createAccount(store.db, { email: 'bench@local', credits: 1_000_000_000 });
  const monitorIds: string[] = [];
  for (let m = 0; m < MONITORS; m++) {
    const id = newId('mon');
    const t = new Date(T0).toISOString();
    await monitors.insertMonitor(store.db, {
      id,
      account_id: acc.id,
      url: `https://shop.example/widget/${m}`,
      interval: '1m',
      interval_seconds: 60,
      watch: '["markdown","price"]',
      webhook: 'https://hooks.example/in',
      marketplace: null,
      schema: null,
      conditions: null,
      state: 'active',
      health: 'ok',
      consecutive_failures: 0,
      last_values: null,
      last_success_at: null,
      last_run_at: null,
      next_run_at: t,
      created_at: t,
      updated_at: t,
    });
    monitorIds.push(id);
  }
  return { store, dialect, accountId: acc.id, monitorIds, previous: [] };
}

const fmt = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;
const rowsOf = (s: PruneStats) =>
  s.collapsed +
  s.runs +
  s.runCounts +
  s.deliveries +
  s.attempts +
  s.events +
  s.usage +
  s.usageHourly +
  s.sessions +
  s.snapshots;

async function runDialect(dialect: string): Promise<void> {
  console.log(
    `\n${dialect}: ${MONITORS} monitors × 1 run/min, ${PAGE_KB} KB markdown + price watched, a change every ${CHANGE_HOURS} h, retention ${RETENTION_DAYS} days`,
  );

  // Before: values inline, nothing pruned.
  {
    const { store, file, drop } = await freshStore(dialect);
    const sim = await setUp(store, dialect);
    const empty = await bytesUsed(store, dialect, file);
    const t = Date.now();
    for (let h = 0; h < BASE_DAYS * 24; h++) await simulateHour(sim, h, false);
    const used = await bytesUsed(store, dialect, file);
    const perMonth = ((used - empty) * (30 / BASE_DAYS)) / MONITORS;
    console.log(
      `  before (inline values, no pruning): ${fmt(perMonth)} per monitor per month  (${fmt(used - empty)} for ${BASE_DAYS} simulated days, ×${30 / BASE_DAYS}; written in ${((Date.now() - t) / 1000).toFixed(1)} s)`,
    );
    // The pruner catching up on that backlog, a day after its last run (all of it is then older than a day).
    const end = new Date(T0 + (BASE_DAYS + 1) * 86_400_000);
    const counts = await retention.tableCounts(store.db);
    let total = 0;
    let ms = 0;
    for (;;) {
      const s = await prune(store, { retentionDays: RETENTION_DAYS, now: end, budgetMs: 60_000 });
      total += rowsOf(s);
      ms += s.ms;
      if (!s.partial) break;
    }
    console.log(
      `  pruner catch-up on that backlog: ${total} rows (of ${counts.monitor_runs} runs, ${counts.usage} usage rows) in ${(ms / 1000).toFixed(1)} s = ${Math.round((total * 1000) / Math.max(ms, 1))} rows/s, batches of 1,000`,
    );
    await drop();
  }

  // After: snapshots and the pruner every simulated hour.
  {
    const { store, file, drop } = await freshStore(dialect);
    const sim = await setUp(store, dialect);
    const empty = await bytesUsed(store, dialect, file);
    const t = Date.now();
    let passes = 0;
    let pruneMs = 0;
    let pruned = 0;
    let slowest = 0;
    const sizes: string[] = [];
    for (let h = 0; h < DAYS * 24; h++) {
      await simulateHour(sim, h, true);
      const s = await prune(store, { retentionDays: RETENTION_DAYS, now: new Date(T0 + (h + 1) * 3_600_000) });
      passes++;
      pruneMs += s.ms;
      pruned += rowsOf(s);
      slowest = Math.max(slowest, s.ms);
      if (dialect === 'postgres' && h % 24 === 23) await sql`VACUUM`.execute(store.db);
      // Bounded, not growing: the size every 10 simulated days.
      if (h % 240 === 239) sizes.push(`day ${(h + 1) / 24}: ${fmt((await bytesUsed(store, dialect, file)) - empty)}`);
    }
    const used = await bytesUsed(store, dialect, file);
    const perMonth = (used - empty) / MONITORS;
    const counts = await retention.tableCounts(store.db);
    console.log(
      `  after (snapshots + pruner):          ${fmt(perMonth)} per monitor per month  (${DAYS} simulated days in ${((Date.now() - t) / 1000).toFixed(1)} s${dialect === 'sqlite' ? `; file ${fmt(statSync(file!).size)}` : ''})`,
    );
    console.log(`  store size (all ${MONITORS} monitors) by simulated day: ${sizes.join(', ')}`);
    console.log(
      `  pruner, hourly passes: ${passes} passes, ${pruned} rows, mean ${(pruneMs / passes).toFixed(1)} ms, slowest ${slowest} ms, ${Math.round((pruned * 1000) / Math.max(pruneMs, 1))} rows/s`,
    );
    const top = (await bytesByTable(store, dialect))
      .slice(0, 6)
      .map(([t, n]) => `${t} ${(n / MONITORS / MB).toFixed(2)}`);
    console.log(`  where it goes (MB per monitor, with indexes): ${top.join(', ')}`);
    console.log(
      `  rows kept: ${Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    await drop();
  }
}

for (const d of DIALECTS) await runDialect(d);
