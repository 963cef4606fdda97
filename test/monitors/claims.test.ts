/**
 * Claims under contention, on SQLite and PostgreSQL: one open run per monitor (a due time whose
 * run is still open is skipped; run now joins the open run), overlapping "run now" calls yield one
 * event for one change, a paused monitor's queued run is skipped, the relay's claimed deliveries
 * rotate out, and deleting a monitor with 10,000 events is fast.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/index.js';
import { executeRun } from '../../src/monitors/runner.js';
import { accounts, monitors, openStore, webhooks, type Store } from '../../src/store/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

async function bareStore(dialect: (typeof DIALECTS)[number]): Promise<{ store: Store; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const store = await openStore({ dataDir: '/tmp', sqliteFile: ':memory:' });
    return { store, drop: () => store.close() };
  }
  const pg = await createTestDatabase();
  const store = await openStore({ dataDir: '/tmp', databaseUrl: pg.url });
  return { store, drop: async () => (await store.close(), await pg.drop()) };
}

const monitorRow = (id: string, accountId: string, nextRunAt: string, state: 'active' | 'paused' = 'active') => {
  const iso = new Date().toISOString();
  return {
    id,
    account_id: accountId,
    url: 'http://example.test/',
    interval: '1h',
    interval_seconds: 3600,
    watch: '["title"]',
    webhook: 'http://example.test/hook',
    marketplace: null,
    schema: null,
    conditions: null,
    state,
    health: 'ok' as const,
    consecutive_failures: 0,
    last_values: null,
    last_success_at: null,
    last_run_at: null,
    next_run_at: nextRunAt,
    created_at: iso,
    updated_at: iso,
  };
};

/** Foreign keys into `parents` whose column leads no index of its table ("table.column"). */
async function unindexedCascades(store: Store, parents: string[]): Promise<string[]> {
  type Row = { tbl: string; col: string };
  const pg = store.dialect === 'postgres';
  const fks = pg
    ? await sql<Row>`SELECT c.conrelid::regclass::text AS tbl, a.attname AS col FROM pg_constraint c
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        WHERE c.contype = 'f' AND c.confrelid::regclass::text = ANY(${parents})`.execute(store.db)
    : await sql<Row>`SELECT m.name AS tbl, f."from" AS col FROM sqlite_master m, pragma_foreign_key_list(m.name) f
        WHERE m.type = 'table' AND f."table" IN (${sql.join(parents)})`.execute(store.db);
  const leading = pg
    ? await sql<Row>`SELECT c.relname AS tbl, a.attname AS col FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]`.execute(store.db)
    : await sql<Row>`SELECT m.name AS tbl, ii.name AS col FROM sqlite_master m, pragma_index_list(m.name) il,
        pragma_index_info(il.name) ii WHERE m.type = 'table' AND ii.seqno = 0`.execute(store.db);
  const indexed = new Set(leading.rows.map((r) => `${r.tbl}.${r.col}`));
  return fks.rows.map((r) => `${r.tbl}.${r.col}`).filter((k) => !indexed.has(k));
}

describe.each(DIALECTS)('claims (%s)', (dialect) => {
  let store: Store;
  let drop: () => Promise<void>;
  let accountId: string;
  beforeAll(async () => {
    ({ store, drop } = await bareStore(dialect));
    accountId = (await accounts.createAccount(store.db, { email: `claims-${dialect}@test.local`, credits: 100 })).id;
  });
  afterAll(async () => drop?.());

  it('a due time whose run is still open is skipped, not queued beside it; the unique index refuses a second open run', async () => {
    const past = new Date(Date.now() - 1000).toISOString();
    await monitors.insertMonitor(store.db, monitorRow('mon_open', accountId, past));
    const first = await monitors.claimDueMonitors(store.db, store.now(), 10, 60_000);
    expect(first).toHaveLength(1);
    // Due again while the first run is still queued: the due time moves on, no second run.
    await store.db.updateTable('monitors').set({ next_run_at: past }).where('id', '=', 'mon_open').execute();
    expect(await monitors.claimDueMonitors(store.db, store.now(), 10, 60_000)).toEqual([]);
    const m = await monitors.getMonitorById(store.db, 'mon_open');
    expect(Date.parse(m!.next_run_at)).toBeGreaterThan(Date.now());
    const open = await store.db
      .selectFrom('monitor_runs')
      .select('id')
      .where('monitor_id', '=', 'mon_open')
      .where('status', 'in', ['queued', 'running'])
      .execute();
    expect(open.map((r) => r.id)).toEqual(first);
    await expect(
      store.db
        .insertInto('monitor_runs')
        .values({
          id: 'run_second',
          monitor_id: 'mon_open',
          account_id: accountId,
          trigger: 'manual',
          status: 'queued',
          due_at: new Date().toISOString(),
          lease_until: null,
          credits: 0,
        })
        .execute(),
    ).rejects.toThrow();
  });

  it("a paused monitor's queued run is skipped when its turn comes: no fetch, no credit", async () => {
    await monitors.insertMonitor(
      store.db,
      monitorRow('mon_paused', accountId, new Date(Date.now() - 1000).toISOString()),
    );
    const [runId] = await monitors.claimDueMonitors(store.db, store.now(), 10, 60_000);
    expect(runId).toBeDefined();
    await store.db.updateTable('monitors').set({ state: 'paused' }).where('id', '=', 'mon_paused').execute();
    const before = Number((await accounts.findAccountById(store.db, accountId))!.credits);
    const engine = createEngine({ allowPrivateNetwork: false, resolve: [], proxyUrls: [] });
    try {
      const run = await executeRun({ store, engine, redact: (s) => s }, runId);
      expect(run).toMatchObject({ id: runId, status: 'skipped', credits: 0, error: expect.stringContaining('paused') });
    } finally {
      await engine.close();
    }
    expect(Number((await accounts.findAccountById(store.db, accountId))!.credits)).toBe(before);
  });

  it('the relay hands each due delivery once per hand-out window, so ones a queue lost rotate out instead of blocking the rest', async () => {
    await monitors.insertMonitor(
      store.db,
      monitorRow('mon_relay', accountId, new Date(Date.now() + 3_600_000).toISOString()),
    );
    const iso = new Date(Date.now() - 1000).toISOString();
    await store.db
      .insertInto('webhook_events')
      .values({
        id: 'evt_relay',
        monitor_id: 'mon_relay',
        account_id: accountId,
        run_id: 'run_x',
        body: '{}',
        created_at: iso,
      })
      .execute();
    for (const id of ['dlv_a', 'dlv_b', 'dlv_c']) {
      await store.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          event_id: 'evt_relay',
          monitor_id: 'mon_relay',
          account_id: accountId,
          url: 'http://example.test/hook',
          state: 'pending',
          attempts: 0,
          next_attempt_at: iso,
          created_at: iso,
          updated_at: iso,
        })
        .execute();
    }
    const now = store.now();
    const first = await webhooks.handDueDeliveries(store.db, now, 2, 60_000);
    const second = await webhooks.handDueDeliveries(store.db, now, 2, 60_000);
    expect(first).toHaveLength(2);
    expect(second.map((d) => d.id)).toEqual(
      ['dlv_a', 'dlv_b', 'dlv_c'].filter((id) => !first.some((d) => d.id === id)),
    );
    expect(await webhooks.handDueDeliveries(store.db, now, 2, 60_000)).toEqual([]);
    // Nobody took them (the queue lost them): after the window they are handed again.
    expect(await webhooks.handDueDeliveries(store.db, new Date(now.getTime() + 61_000), 5, 60_000)).toHaveLength(3);
  });

  it("one account's backlog does not hold up another's deliveries: at most the account cap in flight per account", async () => {
    const noisy = (await accounts.createAccount(store.db, { email: `claims-noisy-${dialect}@test.local`, credits: 10 }))
      .id;
    const other = (await accounts.createAccount(store.db, { email: `claims-other-${dialect}@test.local`, credits: 10 }))
      .id;
    await monitors.insertMonitor(
      store.db,
      monitorRow('mon_noisy', noisy, new Date(Date.now() + 3_600_000).toISOString()),
    );
    await monitors.insertMonitor(
      store.db,
      monitorRow('mon_quiet', other, new Date(Date.now() + 3_600_000).toISOString()),
    );
    const old = new Date(Date.now() - 60_000).toISOString();
    const recent = new Date(Date.now() - 1000).toISOString();
    const row = (id: string, monitorId: string, account: string, at: string) => ({
      id,
      event_id: `evt_${monitorId}`,
      monitor_id: monitorId,
      account_id: account,
      url: 'http://example.test/hook',
      state: 'pending' as const,
      attempts: 0,
      next_attempt_at: at,
      created_at: at,
      updated_at: at,
    });
    await store.db
      .insertInto('webhook_events')
      .values([
        {
          id: 'evt_mon_noisy',
          monitor_id: 'mon_noisy',
          account_id: noisy,
          run_id: 'run_n',
          body: '{}',
          created_at: old,
        },
        {
          id: 'evt_mon_quiet',
          monitor_id: 'mon_quiet',
          account_id: other,
          run_id: 'run_q',
          body: '{}',
          created_at: recent,
        },
      ])
      .execute();
    // The noisy account: 30 due deliveries, all older than the quiet account's one.
    await store.db
      .insertInto('webhook_deliveries')
      .values(
        Array.from({ length: 30 }, (_, i) => row(`dlv_noisy_${String(i).padStart(2, '0')}`, 'mon_noisy', noisy, old)),
      )
      .execute();
    await store.db
      .insertInto('webhook_deliveries')
      .values(row('dlv_quiet', 'mon_quiet', other, recent))
      .execute();
    const now = store.now();
    const first = await webhooks.handDueDeliveries(store.db, now, 10, 60_000, 4);
    expect(first.filter((d) => d.id.startsWith('dlv_noisy'))).toHaveLength(4);
    expect(first.map((d) => d.id)).toContain('dlv_quiet');
    // The noisy account has its 4 in flight: the next pass hands none of its others.
    expect(await webhooks.handDueDeliveries(store.db, now, 10, 60_000, 4)).toEqual([]);
    // A delivery handed straight from a run (not through the relay) is refused while the account
    // has its cap being sent, and given back to the relay at once.
    await store.db
      .updateTable('webhook_deliveries')
      .set({ state: 'sending', lease_until: new Date(now.getTime() + 20_000).toISOString() })
      .where(
        'id',
        'in',
        first.filter((d) => d.id.startsWith('dlv_noisy')).map((d) => d.id),
      )
      .execute();
    const direct = 'dlv_noisy_29';
    await store.db
      .updateTable('webhook_deliveries')
      .set({ handed_until: new Date(now.getTime() + 60_000).toISOString() })
      .where('id', '=', direct)
      .execute();
    expect(await webhooks.claimAttempt(store.db, direct, 0, now, 20_000, 4)).toEqual({ kind: 'busy' });
    const back = await webhooks.getDelivery(store.db, direct);
    expect(back).toMatchObject({ state: 'pending', attempts: 0, handed_until: null });
    // One finishes: there is room for one more of the noisy account again.
    await store.db
      .updateTable('webhook_deliveries')
      .set({ state: 'succeeded', lease_until: null, handed_until: null })
      .where('id', '=', first.find((d) => d.id.startsWith('dlv_noisy'))!.id)
      .execute();
    expect(await webhooks.handDueDeliveries(store.db, now, 10, 60_000, 4)).toHaveLength(1);
    await store.db.deleteFrom('webhook_deliveries').where('monitor_id', 'in', ['mon_noisy', 'mon_quiet']).execute();
  });

  it("a delivery handed over as it is written is claimed even if this process's clock estimate is a little behind the writer's", async () => {
    await monitors.insertMonitor(
      store.db,
      monitorRow('mon_skew', accountId, new Date(Date.now() + 3_600_000).toISOString()),
    );
    const now = store.now();
    // Written by a process whose estimate of the database clock is 300 ms ahead of this one's.
    const written = new Date(now.getTime() + 300).toISOString();
    await store.db
      .insertInto('webhook_events')
      .values({
        id: 'evt_skew',
        monitor_id: 'mon_skew',
        account_id: accountId,
        run_id: 'run_skew',
        body: '{}',
        created_at: written,
      })
      .execute();
    await store.db
      .insertInto('webhook_deliveries')
      .values({
        id: 'dlv_skew',
        event_id: 'evt_skew',
        monitor_id: 'mon_skew',
        account_id: accountId,
        url: 'http://example.test/hook',
        state: 'pending',
        attempts: 0,
        next_attempt_at: written,
        handed_until: new Date(now.getTime() + 60_000).toISOString(),
        created_at: written,
        updated_at: written,
      })
      .execute();
    expect(await webhooks.claimAttempt(store.db, 'dlv_skew', 0, now, 20_000)).toMatchObject({ kind: 'attempt' });
    // A retry due in a minute is not taken early.
    await store.db
      .updateTable('webhook_deliveries')
      .set({ state: 'pending', attempts: 1, next_attempt_at: new Date(now.getTime() + 60_000).toISOString() })
      .where('id', '=', 'dlv_skew')
      .execute();
    expect(await webhooks.claimAttempt(store.db, 'dlv_skew', 1, now, 20_000)).toBeUndefined();
  });

  it('deletes a monitor with 10,000 events (and their deliveries and attempts), every cascade step indexed', async () => {
    await monitors.insertMonitor(
      store.db,
      monitorRow('mon_big', accountId, new Date(Date.now() + 3_600_000).toISOString()),
    );
    const iso = new Date().toISOString();
    for (let b = 0; b < 10; b++) {
      const ids = Array.from({ length: 1000 }, (_, i) => `${b}_${i}`);
      await store.db
        .insertInto('webhook_events')
        .values(
          ids.map((i) => ({
            id: `evt_${i}`,
            monitor_id: 'mon_big',
            account_id: accountId,
            run_id: `run_${i}`,
            body: '{"x":1}',
            created_at: iso,
          })),
        )
        .execute();
      await store.db
        .insertInto('webhook_deliveries')
        .values(
          ids.map((i) => ({
            id: `dlv_${i}`,
            event_id: `evt_${i}`,
            monitor_id: 'mon_big',
            account_id: accountId,
            url: 'http://example.test/hook',
            state: 'succeeded' as const,
            attempts: 1,
            next_attempt_at: null,
            created_at: iso,
            updated_at: iso,
          })),
        )
        .execute();
      await store.db
        .insertInto('delivery_attempts')
        .values(
          ids.map((i) => ({
            delivery_id: `dlv_${i}`,
            attempt: 1,
            manual: 0,
            outcome: 'succeeded' as const,
            started_at: iso,
          })),
        )
        .execute();
    }
    // Fast because every cascade step finds its rows by an index (an unindexed one scans the child
    // table per parent row): checked in the schema, not by a ms figure a loaded machine breaks.
    expect(await unindexedCascades(store, ['monitors', 'webhook_events', 'webhook_deliveries'])).toEqual([]);
    expect(await monitors.deleteMonitor(store.db, accountId, 'mon_big')).toBe(true);
    expect(
      Number(
        (
          await store.db
            .selectFrom('webhook_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('monitor_id', '=', 'mon_big')
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(0);
    expect(
      Number(
        (
          await store.db
            .selectFrom('delivery_attempts')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('delivery_id', 'like', 'dlv_%\\_%')
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(0);
  }, 60_000);
});

describe.each(DIALECTS)('overlapping runs of one monitor (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let price = 10;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/p': async (_q, res) => {
        // Slow enough that the calls below overlap.
        await new Promise((r) => setTimeout(r, 300));
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>P</title></head><body><main><h1>P</h1><p class="price">$${price}</p></main></body></html>`,
          );
      },
    });
    svc = await startTestService(dialect);
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('six "run now" calls at once after one change: one event, one open run at a time, the baseline moves once', async () => {
    const hook = await startWebhookReceiver();
    try {
      const { key } = await svc.newKey(50);
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${svc.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const id = (
        await call('POST', '/v1/monitors', {
          url: `${site.url}/p`,
          interval: '1d',
          watch: ['price'],
          webhook: hook.url,
          schema: { price: 'number' },
        })
      ).body.monitor.monitor_id as string;
      await call('PATCH', `/v1/monitors/${id}`, { state: 'paused' });
      expect((await call('POST', `/v1/monitors/${id}/run`, {})).body.run.status).toBe('succeeded');
      price = 9;
      const answers = await Promise.all(Array.from({ length: 6 }, () => call('POST', `/v1/monitors/${id}/run`, {})));
      expect(answers.every((a) => a.status === 200 && a.body.run.status === 'succeeded')).toBe(true);
      const events = await svc.store.db
        .selectFrom('webhook_events')
        .select('id')
        .where('monitor_id', '=', id)
        .execute();
      expect(events).toHaveLength(1);
      expect(new Set(answers.map((a) => a.body.run.event_id).filter(Boolean))).toEqual(new Set([events[0].id]));
      expect(JSON.parse((await monitors.getMonitorById(svc.store.db, id))!.last_values!)).toEqual({ price: 9 });
    } finally {
      await hook.close();
    }
  }, 60_000);
});
