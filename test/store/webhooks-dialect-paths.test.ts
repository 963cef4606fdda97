/**
 * PostgreSQL's one-statement paths of a delivery attempt (store/repos/webhooks/attempt-postgres.ts)
 * against the portable ones (attempt-claim.ts, attempt-finish.ts) on one fixture: the same claims
 * and ends leave the same rows. On SQLite both calls take the portable path (the fixture's
 * expectations still hold); on PostgreSQL `claimAttempt`/`finishAttempt` take the fast path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/store/ids.js';
import { accounts, openStore, type Store } from '../../src/store/index.js';
import { claimAttempt, claimAttemptPortable } from '../../src/store/repos/webhooks/attempt-claim.js';
import { finishAttempt, finishAttemptPortable } from '../../src/store/repos/webhooks/attempt-finish.js';
import type { Claim } from '../../src/store/repos/webhooks/types.js';
import { createTestDatabase, DIALECTS } from '../helpers/service.js';

const T0 = '2026-01-01T00:00:00.000Z';
const NOW = new Date('2026-01-01T00:01:00.000Z');
const LEASE_MS = 20_000;
const HOOK = 'http://127.0.0.1:9/now';

const paths = {
  portable: { claim: claimAttemptPortable, finish: finishAttemptPortable },
  dispatching: { claim: claimAttempt, finish: finishAttempt },
};

describe.each(DIALECTS)('a delivery attempt, both dialect paths on %s', (dialect) => {
  let store: Store;
  let dir: string;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-paths-'));
    const pg = dialect === 'postgres' ? await createTestDatabase() : undefined;
    drop = pg?.drop;
    store = await openStore({ dataDir: dir, databaseUrl: pg?.url });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A monitor whose webhook moved (its deliveries were written for an older URL), failing since T0, with three due deliveries. */
  async function fixture(tag: string) {
    const acc = await accounts.createAccount(store.db, { email: `${tag}-${dialect}@test.local` });
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
        webhook: HOOK,
        webhook_failing_since: T0,
        marketplace: null,
        schema: null,
        conditions: null,
        state: 'paused',
        health: 'ok',
        consecutive_failures: 0,
        last_values: null,
        last_success_at: null,
        last_run_at: null,
        next_run_at: T0,
        created_at: T0,
        updated_at: T0,
      })
      .execute();
    const deliveries: string[] = [];
    for (let i = 0; i < 3; i++) {
      const evt = `evt_${tag}${i}${randomBase62(12)}`;
      await store.db
        .insertInto('webhook_events')
        .values({
          id: evt,
          monitor_id: monitorId,
          account_id: acc.id,
          run_id: 'run_x',
          body: `{"n":${i}}`,
          created_at: T0,
        })
        .execute();
      const id = `dlv_${tag}${i}${randomBase62(12)}`;
      await store.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          event_id: evt,
          monitor_id: monitorId,
          account_id: acc.id,
          url: 'http://127.0.0.1:9/before',
          state: 'pending',
          attempts: 0,
          next_attempt_at: T0,
          created_at: T0,
          updated_at: T0,
        })
        .execute();
      deliveries.push(id);
    }
    return { monitorId, deliveries };
  }

  /** What the claims and ends left, with ids replaced by the delivery's place in the fixture. */
  async function snapshot(monitorId: string, deliveries: string[]) {
    const place = (id: string) => deliveries.indexOf(id);
    const rows = await store.db
      .selectFrom('webhook_deliveries')
      .select([
        'id',
        'url',
        'state',
        'attempts',
        'next_attempt_at',
        'lease_until',
        'handed_until',
        'last_status',
        'last_error',
        'updated_at',
      ])
      .where('id', 'in', deliveries)
      .execute();
    const attempts = await store.db
      .selectFrom('delivery_attempts')
      .select([
        'delivery_id',
        'attempt',
        'manual',
        'outcome',
        'started_at',
        'finished_at',
        'status_code',
        'error',
        'duration_ms',
        'url',
      ])
      .where('delivery_id', 'in', deliveries)
      .execute();
    const monitor = await store.db
      .selectFrom('monitors')
      .select(['webhook_failing_since', 'webhook_state'])
      .where('id', '=', monitorId)
      .executeTakeFirstOrThrow();
    return {
      deliveries: rows
        .map(({ id, ...r }) => ({ ...r, attempts: Number(r.attempts), at: place(id) }))
        .sort((a, b) => a.at - b.at),
      attempts: attempts
        .map(({ delivery_id, ...a }) => ({
          ...a,
          attempt: Number(a.attempt),
          manual: Number(a.manual),
          at: place(delivery_id),
        }))
        .sort((a, b) => a.at - b.at || a.attempt - b.attempt),
      monitor,
    };
  }

  const claimed = (c: Claim | undefined) =>
    c?.kind === 'attempt'
      ? { kind: c.kind, url: c.delivery.url, attempts: Number(c.delivery.attempts), body: c.target.body }
      : c;

  async function run(path: keyof typeof paths) {
    const { claim, finish } = paths[path];
    const { monitorId, deliveries } = await fixture(path.slice(0, 4));
    const [d1, d2, d3] = deliveries;
    const first = await claim(store.db, d1, 0, NOW, LEASE_MS, 2);
    const again = await claim(store.db, d1, 0, NOW, LEASE_MS, 2);
    const second = await claim(store.db, d2, 0, NOW, LEASE_MS, 2);
    // The account's cap (2 being sent) is reached: handed back to the relay.
    const third = await claim(store.db, d3, 0, NOW, LEASE_MS, 2);
    const at = new Date(NOW.getTime() + 500).toISOString();
    if (first?.kind !== 'attempt' || second?.kind !== 'attempt') throw new Error(`not claimed on ${path}`);
    const health = { monitorId, attemptAt: NOW.toISOString(), gone: false, disableIfFailingSince: T0 };
    const ok = { ok: true, status: 204, error: null, durationMs: 12 };
    await finish(
      store.db,
      {
        deliveryId: d1,
        attempts: 0,
        attemptId: first.attemptId,
        sent: ok,
        finishedAt: at,
        state: 'succeeded',
        nextAttemptAt: null,
      },
      health,
    );
    const fail = { ok: false, status: 500, error: 'the receiver answered 500', durationMs: 7 };
    await finish(
      store.db,
      {
        deliveryId: d2,
        attempts: 0,
        attemptId: second.attemptId,
        sent: fail,
        finishedAt: at,
        state: 'pending',
        nextAttemptAt: new Date(NOW.getTime() + 5_000).toISOString(),
      },
      { ...health, disableIfFailingSince: '2025-01-01T00:00:00.000Z' },
    );
    return {
      claims: [first, again, second, third].map(claimed),
      rows: await snapshot(monitorId, deliveries),
    };
  }

  it('claims, a busy claim, a success and a failure leave the same rows on either path', async () => {
    const portable = await run('portable');
    const dispatching = await run('dispatching');
    expect(portable.claims).toEqual([
      { kind: 'attempt', url: HOOK, attempts: 0, body: '{"n":0}' },
      undefined,
      { kind: 'attempt', url: HOOK, attempts: 0, body: '{"n":1}' },
      { kind: 'busy' },
    ]);
    expect(portable.rows.deliveries.map((d) => [d.state, d.attempts, d.url])).toEqual([
      ['succeeded', 1, HOOK],
      ['pending', 1, HOOK],
      ['pending', 0, 'http://127.0.0.1:9/before'],
    ]);
    // The success cleared the streak; the failure after it started a new one at its attempt.
    expect(portable.rows.monitor).toEqual({ webhook_failing_since: NOW.toISOString(), webhook_state: 'active' });
    expect(dispatching).toEqual(portable);
  });
});
