/**
 * Webhook rules below the API, on both stores with an injected clock instead of waiting days:
 * an endpoint failing for 3 days without a 2xx is disabled (and its pending deliveries fail,
 * kept for a replay); a 2xx in between starts the count again; the migration rotates secrets of
 * the first form (`whsec_` + base62) to `whsec_` + base64 of 32 bytes, the old one valid 24 h.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/engine/fetch/http.js';
import { attemptDelivery, type DeliveryDeps } from '../../src/monitors/deliver.js';
import { webhookHeaders } from '../../src/webhooks/signing.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { randomBase62 } from '../../src/store/ids.js';
import { accounts, openStore, type Store } from '../../src/store/index.js';
import { createTestDatabase, DIALECTS } from '../helpers/service.js';

const DAY = 24 * 3600_000;

describe.each(DIALECTS)('webhook store rules on %s', (dialect) => {
  let store: Store;
  let dir: string;
  let drop: (() => Promise<void>) | undefined;
  let answer = 500;
  let hits = 0;
  let hookUrl = '';
  const http = new HttpClient({ allowPrivateNetwork: true });
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(answer).end();
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-hooks-'));
    const pg = dialect === 'postgres' ? await createTestDatabase() : undefined;
    drop = pg?.drop;
    store = await openStore({ dataDir: dir, databaseUrl: pg?.url });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
    await http.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function monitorWithDeliveries(tag: string, n: number): Promise<{ monitorId: string; deliveries: string[] }> {
    const acc = await accounts.createAccount(store.db, { email: `${tag}-${dialect}@test.local` });
    const now = new Date().toISOString();
    const monitorId = `mon_${randomBase62(20)}`;
    await store.db
      .insertInto('monitors')
      .values({
        id: monitorId,
        account_id: acc.id,
        url: 'http://example.com/',
        interval: '1h',
        interval_seconds: 3600,
        watch: '["title"]',
        webhook: hookUrl,
        marketplace: null,
        schema: null,
        conditions: null,
        state: 'paused',
        health: 'ok',
        consecutive_failures: 0,
        last_values: null,
        last_success_at: null,
        last_run_at: null,
        next_run_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const deliveries: string[] = [];
    for (let i = 0; i < n; i++) {
      const evt = `evt_${randomBase62(20)}`;
      await store.db
        .insertInto('webhook_events')
        .values({
          id: evt,
          monitor_id: monitorId,
          account_id: acc.id,
          run_id: 'run_x',
          body: `{"id":"${evt}"}`,
          created_at: now,
        })
        .execute();
      const id = `dlv_${randomBase62(20)}`;
      await store.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          event_id: evt,
          monitor_id: monitorId,
          account_id: acc.id,
          url: hookUrl,
          state: 'pending',
          attempts: 0,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute();
      deliveries.push(id);
    }
    return { monitorId, deliveries };
  }
  const monitorRow = (id: string) =>
    store.db.selectFrom('monitors').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const deliveryRow = (id: string) =>
    store.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const deps = (offsetMs: number): DeliveryDeps => ({
    store,
    engine: { http },
    retryBaseMs: 10,
    maxAttempts: 50,
    redact: (s) => s,
    now: () => Date.now() + offsetMs,
  });

  it('disables a webhook that has failed for 3 days without a 2xx, and fails its pending deliveries', async () => {
    answer = 500;
    const {
      monitorId,
      deliveries: [a, b],
    } = await monitorWithDeliveries('three-days', 2);
    expect(await attemptDelivery(deps(0), a, 0)).toBe(true);
    const first = await monitorRow(monitorId);
    expect(first.webhook_state).toBe('active');
    expect(first.webhook_failing_since).not.toBeNull();
    // 71 h later: still failing, not yet 3 days.
    expect(await attemptDelivery(deps(71 * 3600_000), a, 1)).toBe(true);
    expect((await monitorRow(monitorId)).webhook_state).toBe('active');
    expect((await deliveryRow(b)).state).toBe('pending');
    // 3 days and a minute after the first failure: disabled, with the reason.
    expect(await attemptDelivery(deps(3 * DAY + 60_000), a, 2)).toBe(true);
    const m = await monitorRow(monitorId);
    expect(m).toMatchObject({ webhook_state: 'disabled', webhook_failing_since: first.webhook_failing_since });
    expect(m.webhook_disabled_reason).toBe(`no 2xx answer since ${first.webhook_failing_since}`);
    // Nothing more is sent: both deliveries failed (kept for a replay once the webhook is re-enabled).
    expect(await deliveryRow(a)).toMatchObject({ state: 'failed', attempts: 3, next_attempt_at: null });
    expect(await deliveryRow(b)).toMatchObject({ state: 'failed', attempts: 1 });
    expect((await deliveryRow(b)).last_error).toMatch(/webhook was disabled/);
    const before = hits;
    expect(await attemptDelivery(deps(4 * DAY), a, 3)).toBe(false);
    expect(await attemptDelivery(deps(4 * DAY), b, 1)).toBe(false);
    expect(hits).toBe(before);
  });

  it('starts the 3 days again after a 2xx', async () => {
    const {
      monitorId,
      deliveries: [a, b],
    } = await monitorWithDeliveries('reset', 2);
    answer = 500;
    await attemptDelivery(deps(0), a, 0);
    answer = 204;
    await attemptDelivery(deps(2 * DAY), b, 0);
    expect((await monitorRow(monitorId)).webhook_failing_since).toBeNull();
    answer = 500;
    await attemptDelivery(deps(3 * DAY + 60_000), a, 1);
    const m = await monitorRow(monitorId);
    expect(m.webhook_state).toBe('active');
    expect(Date.parse(m.webhook_failing_since!)).toBeGreaterThan(Date.now() + 2 * DAY);
  });

  it('rotates first-form secrets in the migration, keeping the old one valid for 24 h', async () => {
    const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => MIGRATIONS } });
    const down = await migrator.migrateTo('2026-11-26T0100-account-limits');
    expect(down.error).toBeUndefined();
    const old = `whsec_${randomBase62(40)}`;
    const now = new Date().toISOString();
    const raw = store.db as any;
    await raw
      .insertInto('accounts')
      .values({
        id: `acc_old_${dialect}`,
        email: `old-${dialect}@test.local`,
        password_hash: null,
        credits: 0,
        signing_secret: old,
        created_at: now,
      })
      .execute();
    const current = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    await raw
      .insertInto('accounts')
      .values({
        id: `acc_new_${dialect}`,
        email: `new-${dialect}@test.local`,
        password_hash: null,
        credits: 0,
        signing_secret: current,
        created_at: now,
      })
      .execute();
    const up = await migrator.migrateToLatest();
    expect(up.error).toBeUndefined();

    const rotated = (await accounts.findAccountById(store.db, `acc_old_${dialect}`))!;
    expect(rotated.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(rotated.signing_secret.slice(6), 'base64')).toHaveLength(32);
    expect(rotated.previous_signing_secret).toBe(old);
    expect(Math.abs(Date.parse(rotated.previous_secret_expires_at!) - (Date.now() + DAY))).toBeLessThan(60_000);
    expect((await accounts.findAccountById(store.db, `acc_new_${dialect}`))!).toMatchObject({
      signing_secret: current,
      previous_signing_secret: null,
    });

    // During the overlap both the new and the old (first-form) secret verify with the library.
    const body = '{"id":"evt_x","event":"change.detected"}';
    const headers = webhookHeaders(
      'evt_x',
      body,
      {
        current: rotated.signing_secret,
        previous: rotated.previous_signing_secret,
        previousExpiresAt: rotated.previous_secret_expires_at,
      },
      Date.now(),
    );
    expect(new Webhook(rotated.signing_secret).verify(body, headers)).toMatchObject({ id: 'evt_x' });
    expect(new Webhook(old).verify(body, headers)).toMatchObject({ id: 'evt_x' });
  });
});
