/**
 * Retention (issue 27, point 6) on SQLite and PostgreSQL: unchanged runs collapsed into counts,
 * changed and failed runs kept until TRAWL_RUN_RETENTION_DAYS then deleted, a monitor's latest
 * run never deleted, pending and sending deliveries never deleted (nor their events and
 * attempts), usage summed per hour with the dashboard's totals unchanged, large values stored
 * once as snapshots (and pruned when nothing refers to them) while the API still shows them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prune } from '../../src/monitors/retention.js';
import { accounts, monitors, newId, openStore, sessions, snapshots, usage, type Store } from '../../src/store/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const DAY = 86_400_000;
const NOW = new Date('2026-06-30T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

async function openTestStore(dialect: (typeof DIALECTS)[number]): Promise<{ store: Store; stop(): Promise<void> }> {
  if (dialect === 'postgres') {
    const pg = await createTestDatabase();
    const store = await openStore({ databaseUrl: pg.url, dataDir: '' });
    return { store, stop: async () => (await store.close(), await pg.drop()) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'trawl-retention-'));
  const store = await openStore({ dataDir: dir });
  return { store, stop: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })) };
}

async function newMonitor(store: Store, accountId: string): Promise<string> {
  const id = newId('mon');
  await monitors.insertMonitor(store.db, {
    id,
    account_id: accountId,
    url: 'http://127.0.0.1:9/p',
    interval: '1m',
    interval_seconds: 60,
    watch: '["price"]',
    webhook: 'http://127.0.0.1:9/hook',
    marketplace: null,
    schema: null,
    conditions: null,
    state: 'paused',
    health: 'ok',
    consecutive_failures: 0,
    last_values: null,
    last_success_at: null,
    last_run_at: null,
    next_run_at: NOW.toISOString(),
    created_at: ago(90 * DAY),
    updated_at: ago(90 * DAY),
  });
  return id;
}

type Kind = 'unchanged' | 'changed' | 'failed';
async function addRun(
  store: Store,
  monitorId: string,
  accountId: string,
  at: string,
  kind: Kind,
  values: Record<string, unknown> = { price: 1 },
): Promise<string> {
  const id = newId('run');
  await store.db
    .insertInto('monitor_runs')
    .values({
      id,
      monitor_id: monitorId,
      account_id: accountId,
      trigger: 'schedule',
      status: kind === 'failed' ? 'failed' : 'succeeded',
      due_at: at,
      started_at: at,
      finished_at: at,
      lease_until: null,
      credits: kind === 'failed' ? 0 : 1,
      status_code: kind === 'failed' ? null : 200,
      values: null,
      changes: kind === 'changed' ? '{"price":{"from":1,"to":2}}' : null,
      event_id: null,
      error: kind === 'failed' ? 'fetch_failed: down' : null,
    })
    .execute();
  // As the runner does: large values stored as snapshots (in its transaction, after the run row exists).
  if (kind !== 'failed')
    await store.db
      .updateTable('monitor_runs')
      .set({ values: JSON.stringify(await snapshots.store(store.db, id, values, new Date(at))) })
      .where('id', '=', id)
      .execute();
  return id;
}

const runIds = async (store: Store, monitorId: string) =>
  (await store.db.selectFrom('monitor_runs').select('id').where('monitor_id', '=', monitorId).execute())
    .map((r) => r.id)
    .sort();
const countRows = async (
  store: Store,
  table:
    | 'snapshots'
    | 'snapshot_refs'
    | 'usage'
    | 'usage_hourly'
    | 'webhook_events'
    | 'webhook_deliveries'
    | 'delivery_attempts'
    | 'sessions',
) =>
  Number(
    (
      await store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(DIALECTS)('retention on %s (the pruner, against a fake clock)', (dialect) => {
  let store: Store;
  let stop: () => Promise<void>;
  let accountId: string;
  beforeAll(async () => {
    ({ store, stop } = await openTestStore(dialect));
    accountId = (await accounts.createAccount(store.db, { email: `r-${dialect}@test.local`, credits: 10 })).id;
  });
  afterAll(async () => stop?.());

  it('collapses old unchanged runs into per-day counts, keeps changed and failed runs for the retention period, never the latest run', async () => {
    const busy = await newMonitor(store, accountId);
    const oldChanged = await addRun(store, busy, accountId, ago(40 * DAY), 'changed');
    const oldFailed = await addRun(store, busy, accountId, ago(40 * DAY - 60_000), 'failed');
    const changed = await addRun(store, busy, accountId, ago(10 * DAY), 'changed');
    const failed = await addRun(store, busy, accountId, ago(10 * DAY - 60_000), 'failed');
    for (let i = 0; i < 5; i++) await addRun(store, busy, accountId, ago(10 * DAY - (i + 2) * 60_000), 'unchanged');
    for (let i = 0; i < 3; i++) await addRun(store, busy, accountId, ago(5 * DAY - i * 60_000), 'unchanged');
    const recent = [
      await addRun(store, busy, accountId, ago(2 * 3600_000), 'unchanged'),
      await addRun(store, busy, accountId, ago(3600_000), 'unchanged'),
    ];
    // A monitor idle for 45 days: its latest run is older than the retention period and stays.
    const idle = await newMonitor(store, accountId);
    await addRun(store, idle, accountId, ago(50 * DAY), 'unchanged');
    const idleLatest = await addRun(store, idle, accountId, ago(45 * DAY), 'unchanged');
    // One whose last run failed long ago: that failed run and its latest success both stay.
    const broken = await newMonitor(store, accountId);
    const brokenSuccess = await addRun(store, broken, accountId, ago(61 * DAY), 'unchanged');
    const brokenFailed = await addRun(store, broken, accountId, ago(60 * DAY), 'failed');

    // Two pruners at once (two workers on one database): each row is counted once.
    const [stats, other] = await Promise.all([
      prune(store, { retentionDays: 30, now: NOW, batch: 2 }),
      prune(store, { retentionDays: 30, now: NOW, batch: 3 }),
    ]);
    expect(stats.partial || other.partial).toBe(false);
    expect(stats.collapsed + other.collapsed).toBe(5 + 3 + 1);
    expect(await runIds(store, busy)).toEqual([changed, failed, ...recent].sort());
    expect(await runIds(store, busy)).not.toContain(oldChanged);
    expect(await runIds(store, busy)).not.toContain(oldFailed);
    expect(await monitors.unchangedRunCounts(store.db, busy)).toEqual([
      { day: ago(5 * DAY).slice(0, 10), unchanged_runs: 3 },
      { day: ago(10 * DAY).slice(0, 10), unchanged_runs: 5 },
    ]);
    expect(await runIds(store, idle)).toEqual([idleLatest]);
    // The idle monitor's older unchanged run was counted on a day past retention: that count is gone too.
    expect(await monitors.unchangedRunCounts(store.db, idle)).toEqual([]);
    expect(await runIds(store, broken)).toEqual([brokenSuccess, brokenFailed].sort());

    // A second pass changes nothing (counts are not added twice).
    const again = await prune(store, { retentionDays: 30, now: NOW });
    expect(again.collapsed + again.runs).toBe(0);
    expect((await monitors.unchangedRunCounts(store.db, busy)).map((c) => c.unchanged_runs)).toEqual([3, 5]);
    // The history still steps: the changed run and the recent ones remain as points.
    expect((await monitors.fieldHistory(store.db, busy, 100)).length).toBe(3);
  });

  it('deletes events, ended deliveries and their attempts after the retention period, never a pending or sending delivery', async () => {
    const m = await newMonitor(store, accountId);
    const outbox = async (at: string, state: 'pending' | 'sending' | 'succeeded' | 'failed', attempts: number) => {
      const eventId = newId('evt');
      const id = newId('dlv');
      await store.db
        .insertInto('webhook_events')
        .values({ id: eventId, monitor_id: m, account_id: accountId, run_id: newId('run'), body: '{}', created_at: at })
        .execute();
      await store.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          event_id: eventId,
          monitor_id: m,
          account_id: accountId,
          url: 'http://127.0.0.1:9/hook',
          state,
          attempts,
          next_attempt_at: state === 'pending' ? NOW.toISOString() : null,
          lease_until: state === 'sending' ? NOW.toISOString() : null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      for (let a = 1; a <= attempts; a++)
        await store.db
          .insertInto('delivery_attempts')
          .values({
            delivery_id: id,
            attempt: a,
            manual: 0,
            outcome: 'failed',
            started_at: at,
            finished_at: at,
            status_code: 500,
            error: null,
            duration_ms: 5,
          })
          .execute();
      return { eventId, id };
    };
    const gone = [await outbox(ago(40 * DAY), 'succeeded', 2), await outbox(ago(31 * DAY), 'failed', 8)];
    const kept = [
      await outbox(ago(40 * DAY), 'pending', 3),
      await outbox(ago(40 * DAY), 'sending', 1),
      await outbox(ago(10 * DAY), 'succeeded', 1),
    ];
    const before = {
      events: await countRows(store, 'webhook_events'),
      deliveries: await countRows(store, 'webhook_deliveries'),
      attempts: await countRows(store, 'delivery_attempts'),
    };

    const stats = await prune(store, { retentionDays: 30, now: NOW, batch: 4 });
    expect(stats).toMatchObject({ deliveries: 2, attempts: 10, events: 2 });
    expect(await countRows(store, 'webhook_events')).toBe(before.events - 2);
    expect(await countRows(store, 'webhook_deliveries')).toBe(before.deliveries - 2);
    expect(await countRows(store, 'delivery_attempts')).toBe(before.attempts - 10);
    const deliveries = (
      await store.db.selectFrom('webhook_deliveries').select('id').where('monitor_id', '=', m).execute()
    )
      .map((r) => r.id)
      .sort();
    expect(deliveries).toEqual(kept.map((k) => k.id).sort());
    const events = (await store.db.selectFrom('webhook_events').select('id').where('monitor_id', '=', m).execute())
      .map((r) => r.id)
      .sort();
    expect(events).toEqual(kept.map((k) => k.eventId).sort());
    expect(events).not.toContain(gone[0].eventId);
    const attemptsLeft = await store.db
      .selectFrom('delivery_attempts')
      .select('delivery_id')
      .where(
        'delivery_id',
        'in',
        kept.map((k) => k.id),
      )
      .execute();
    expect(attemptsLeft.length).toBe(5);
  });

  it('sums usage older than a day per hour with exact totals, and deletes expired sessions', async () => {
    const acc = (await accounts.createAccount(store.db, { email: `u-${dialect}@test.local`, credits: 0 })).id;
    const endpoints = ['POST /v1/scrape', 'POST /v1/crawl', 'monitor run'];
    let expectedCredits = 0;
    for (let i = 0; i < 150; i++) {
      const status = i % 7 === 0 ? 502 : i % 11 === 0 ? 429 : 200;
      const credits = status === 200 ? (i % 3) + 1 : 0;
      expectedCredits += credits;
      // Every 40 minutes back to 100 hours ago: some within the last day (stay raw), most older.
      await usage.recordUsage(store.db, {
        account_id: acc,
        key_id: i % 2 ? 'key_a' : null,
        endpoint: endpoints[i % 3],
        status,
        credits,
        duration_ms: 100 + i,
        request_id: `req_${i}`,
        created_at: ago(i * 40 * 60_000 + 1000),
      });
    }
    const days = async () => usage.dailyUsage(store.db, acc, 14, NOW);
    const errors = async () => usage.errorsByStatus(store.db, acc, 14, NOW);
    const [daysBefore, errorsBefore] = [await days(), await errors()];
    expect(daysBefore.reduce((n, d) => n + d.requests, 0)).toBe(150);
    expect(daysBefore.reduce((n, d) => n + d.credits, 0)).toBe(expectedCredits);

    const old = await createExpiredSession(store, acc);
    const [stats, other] = await Promise.all([
      prune(store, { retentionDays: 30, now: NOW, batch: 16 }),
      prune(store, { retentionDays: 30, now: NOW, batch: 10 }),
    ]);
    expect(stats.usage + other.usage).toBe(150 - 36); // 36 rows are within the last day (i * 40 min < 24 h)
    expect(
      Number(
        (
          await store.db
            .selectFrom('usage')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', acc)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(36);
    const hourly = await store.db.selectFrom('usage_hourly').selectAll().where('account_id', '=', acc).execute();
    expect(hourly.length).toBeGreaterThan(0);
    expect(hourly.reduce((n, h) => n + Number(h.requests), 0)).toBe(114);
    expect(hourly.find((h) => h.key_id === 'key_a')).toBeDefined();
    expect(hourly.every((h) => Number(h.errors) === (h.status >= 400 ? Number(h.requests) : 0))).toBe(true);
    expect(await days()).toEqual(daysBefore);
    expect(await errors()).toEqual(errorsBefore);
    expect(errorsBefore.map((e) => e.status)).toEqual([429, 502]);
    expect(old).toBeTruthy();
    expect(await store.db.selectFrom('sessions').select('id').where('account_id', '=', acc).execute()).toEqual([]);
  });

  it('stores a large value once, however many runs see it, and prunes it when no run or baseline refers to it', async () => {
    const m = await newMonitor(store, accountId);
    const page = (v: number) => `# Version ${v}\n\n${'A long paragraph of page text. '.repeat(80)}`;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        await addRun(store, m, accountId, ago(3 * DAY - i * 60_000), 'unchanged', { markdown: page(1), price: 5 }),
      );
    const v2 = await addRun(store, m, accountId, ago(2 * DAY), 'changed', { markdown: page(2), price: 6 });
    const hashes = async () =>
      (
        await store.db
          .selectFrom('snapshot_refs')
          .select('hash')
          .where('run_id', 'in', [...ids, v2])
          .execute()
      ).map((r) => r.hash);
    expect(new Set(await hashes()).size).toBe(2);
    expect((await hashes()).length).toBe(7);
    const raw = await store.db
      .selectFrom('monitor_runs')
      .select('values')
      .where('id', '=', ids[0])
      .executeTakeFirstOrThrow();
    expect(raw.values!.length).toBeLessThan(120);
    expect(JSON.parse(raw.values!)).toMatchObject({
      price: 5,
      markdown: { $snapshot: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    // Reads see the values themselves.
    const [latest] = await monitors.listRuns(store.db, m, 1);
    expect(JSON.parse(latest.values!)).toEqual({ markdown: page(2), price: 6 });

    // Version 1 is the baseline of another monitor: kept while that baseline refers to it.
    const other = await newMonitor(store, accountId);
    const v1Ref = JSON.parse(raw.values!).markdown;
    await store.db
      .updateTable('monitors')
      .set({ last_values: JSON.stringify({ markdown: v1Ref }) })
      .where('id', '=', other)
      .execute();
    await prune(store, { retentionDays: 30, now: NOW });
    expect(await runIds(store, m)).toEqual([v2]);
    const left = (await store.db.selectFrom('snapshots').select('hash').execute()).map((r) => r.hash);
    expect(left).toContain(v1Ref.$snapshot);
    await store.db.updateTable('monitors').set({ last_values: null }).where('id', '=', other).execute();
    await prune(store, { retentionDays: 30, now: NOW });
    const after = (await store.db.selectFrom('snapshots').select('hash').execute()).map((r) => r.hash);
    expect(after).not.toContain(v1Ref.$snapshot);
    expect(after).toContain(
      JSON.parse(
        (await store.db.selectFrom('monitor_runs').select('values').where('id', '=', v2).executeTakeFirstOrThrow())
          .values!,
      ).markdown.$snapshot,
    );
    // Within the grace period a snapshot no run refers to (yet) is kept: a run may be writing its reference.
    await snapshots.store(store.db, v2, { markdown: page(3) }, NOW);
    await store.db.deleteFrom('snapshot_refs').where('run_id', '=', v2).execute();
    const page3 = (
      await store.db.selectFrom('snapshots').select('hash').where('stored_at', '=', NOW.toISOString()).execute()
    ).map((r) => r.hash);
    expect(page3.length).toBe(1);
    await prune(store, { retentionDays: 30, now: new Date(NOW.getTime() + 60_000) });
    expect((await store.db.selectFrom('snapshots').select('hash').execute()).map((r) => r.hash)).toEqual(page3);
    await prune(store, { retentionDays: 30, now: new Date(NOW.getTime() + 2 * 3600_000) });
    expect(await countRows(store, 'snapshots')).toBe(0);
  });
});

async function createExpiredSession(store: Store, accountId: string): Promise<string> {
  const s = await sessions.createSession(store.db, accountId);
  await store.db
    .updateTable('sessions')
    .set({ expires_at: ago(DAY) })
    .where('account_id', '=', accountId)
    .execute();
  return s.token;
}

/** Through the real service: markdown watched, unchanged runs, the API and dashboard after pruning. */
describe.each(DIALECTS)('retention through the API on %s', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let hook: WebhookReceiver;
  let version = 1;
  const article = (v: number) =>
    `<html><head><title>Notes</title></head><body><article><h1>Notes v${v}</h1>${Array.from({ length: 30 }, (_, i) => `<p>Paragraph ${i} of the notes, long enough to be kept as the content of this page.</p>`).join('')}</article></body></html>`;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/notes': (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(article(version)),
    });
    hook = await startWebhookReceiver();
    svc = await startTestService(dialect, { TRAWL_MIN_INTERVAL_SECONDS: '1' });
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hook?.close();
  });
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('N unchanged markdown runs → one snapshot; history, runs and the diff baseline see the markdown; after pruning the API counts the collapsed runs', async () => {
    const { key, accountId } = await svc.newKey(50);
    const id = (
      await call('POST', '/v1/monitors', key, {
        url: `${site.url}/notes`,
        interval: '1h',
        watch: ['markdown', 'title'],
        webhook: hook.url,
      })
    ).body.monitor.monitor_id as string;
    await call('PATCH', `/v1/monitors/${id}`, key, { state: 'paused' });
    const runs: Record<string, any>[] = [];
    for (let i = 0; i < 5; i++) runs.push((await call('POST', `/v1/monitors/${id}/run`, key, {})).body.run);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    const markdown1 = runs[0].values.markdown as string;
    expect(markdown1).toContain('Notes v1');
    expect(markdown1.length).toBeGreaterThan(1024);
    expect(runs[4].values.markdown).toBe(markdown1);
    const db = svc.store.db;
    const refs = await db
      .selectFrom('snapshot_refs')
      .select('hash')
      .where(
        'run_id',
        'in',
        runs.map((r) => r.run_id),
      )
      .execute();
    expect(refs.length).toBe(5);
    expect(new Set(refs.map((r) => r.hash)).size).toBe(1);
    expect(
      Number(
        (
          await db
            .selectFrom('snapshots')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('hash', '=', refs[0].hash)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(1);
    const stored = await db.selectFrom('monitors').select('last_values').where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored.last_values!.length).toBeLessThan(200);

    // The page changes: the event carries the old markdown (the baseline read back from its snapshot).
    version = 2;
    const changed = (await call('POST', `/v1/monitors/${id}/run`, key, {})).body.run;
    expect(changed.changes.markdown.from).toBe(markdown1);
    expect(changed.changes.markdown.to).toContain('Notes v2');
    expect(changed.event_id).toMatch(/^evt_/);
    // Stored as two references (the old and the new page), both counted as the run's.
    const row = await db
      .selectFrom('monitor_runs')
      .select(['values', 'changes'])
      .where('id', '=', changed.run_id)
      .executeTakeFirstOrThrow();
    expect(row.changes!.length).toBeLessThan(300);
    expect(JSON.parse(row.changes!).markdown.from).toEqual({ $snapshot: refs[0].hash });
    expect(
      (await db.selectFrom('snapshot_refs').select('hash').where('run_id', '=', changed.run_id).execute()).map(
        (r) => r.hash,
      ),
    ).toContain(refs[0].hash);

    const history = (await call('GET', `/v1/monitors/${id}/history?field=markdown`, key)).body;
    expect(history.points.map((p: { value: string }) => p.value.includes('Notes v1'))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    const detail = (await call('GET', `/v1/monitors/${id}`, key)).body.monitor;
    expect(detail.last_values.markdown).toBe(changed.values.markdown);
    expect(detail.last_runs[0].values.markdown).toBe(changed.values.markdown);

    // Two days later (the runs moved back in time): the first run (the baseline) and the four unchanged
    // are collapsed into a count; version 1 stays while the changed run's `changes` refers to it.
    for (const r of runs)
      await db
        .updateTable('monitor_runs')
        .set({
          due_at: new Date(Date.parse(r.due_at) - 2 * DAY).toISOString(),
          finished_at: new Date(Date.parse(r.finished_at) - 2 * DAY).toISOString(),
        })
        .where('id', '=', r.run_id)
        .execute();
    await db
      .updateTable('snapshots')
      .set({ stored_at: new Date(Date.now() - 2 * DAY).toISOString() })
      .where('hash', '=', refs[0].hash)
      .execute();
    const stats = await prune(svc.store, { retentionDays: svc.config.runRetentionDays, now: new Date() });
    expect(stats.collapsed).toBeGreaterThanOrEqual(5);
    expect(await db.selectFrom('snapshot_refs').select('run_id').where('hash', '=', refs[0].hash).execute()).toEqual([
      { run_id: changed.run_id },
    ]);
    expect((await db.selectFrom('snapshots').select('hash').where('hash', '=', refs[0].hash).execute()).length).toBe(1);
    const listed = (await call('GET', `/v1/monitors/${id}/runs`, key)).body;
    expect(listed.runs.map((r: { run_id: string }) => r.run_id)).toEqual([changed.run_id]);
    expect(listed.runs[0].values.markdown).toContain('Notes v2');
    // The change still reads in full although v1 was only kept by this run's reference to it.
    expect(listed.runs[0].changes.markdown.from).toBe(markdown1);
    expect(listed.unchanged_runs_collapsed.total).toBe(5);
    expect((await call('GET', `/v1/monitors/${id}`, key)).body.monitor.unchanged_runs_collapsed).toBe(5);
    const after = (await call('GET', `/v1/monitors/${id}/history?field=markdown`, key)).body;
    expect(after.points.length).toBe(1);
    expect(after.points[0].value).toContain('Notes v2');
    // The next unchanged run compares with the baseline from its snapshot: no change, no event.
    const next = (await call('POST', `/v1/monitors/${id}/run`, key, {})).body.run;
    expect(next.changes).toBeNull();
    expect(next.event_id).toBeNull();

    // The dashboard: the same request totals before and after usage is summed per hour.
    const { token } = await sessions.createSession(db, accountId);
    const overview = async () => {
      const html = await (await fetch(`${svc.url}/`, { headers: { cookie: `trawl_session=${token}` } })).text();
      return [...html.matchAll(/<div class="big">(\d+)<\/div>/g)].map((m) => Number(m[1]));
    };
    await new Promise((r) => setTimeout(r, 300)); // the last API call's usage row is written after its answer
    await db
      .updateTable('usage')
      .set({ created_at: new Date(Date.now() - 3 * DAY).toISOString() })
      .where('account_id', '=', accountId)
      .execute();
    const before = await overview();
    expect(before[0]).toBeGreaterThanOrEqual(7);
    const moved = await prune(svc.store, { retentionDays: 30, now: new Date() });
    expect(moved.usage).toBeGreaterThanOrEqual(7);
    expect(await overview()).toEqual(before);
    const page = await (
      await fetch(`${svc.url}/monitors/${id}`, { headers: { cookie: `trawl_session=${token}` } })
    ).text();
    expect(page).toMatch(/Plus 5 older unchanged runs/);
  });
});
