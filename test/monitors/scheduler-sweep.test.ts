/**
 * The embedded scheduler's first pass: its start-up sweep (taking back everything a previous
 * process left in hand) runs before it hands out new runs, so a run handed out by that same pass
 * is never taken back — it was queued twice, or left `queued` while it ran and counted against
 * its account's cap for good. Work a dead process left behind is still taken back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/index.js';
import { MonitorScheduler } from '../../src/monitors/scheduler.js';
import type { WorkQueue } from '../../src/queue/index.js';
import { accounts, monitors, openStore, type Store } from '../../src/store/index.js';

describe('scheduler start-up sweep', () => {
  let store: Store | undefined;
  afterEach(async () => void (await store?.close()));

  it('hands a due monitor out once and keeps it queued; a run orphaned before start is handed out again', async () => {
    store = await openStore({ dataDir: '/tmp', sqliteFile: ':memory:' });
    const acc = await accounts.createAccount(store.db, { email: 'sweep@test.local', credits: 10 });
    const now = new Date();
    const iso = now.toISOString();
    const row = (id: string) => ({
      id,
      account_id: acc.id,
      url: 'http://example.test/',
      interval: '1h',
      interval_seconds: 3600,
      watch: '["title"]',
      webhook: 'http://example.test/hook',
      marketplace: null,
      schema: null,
      conditions: null,
      state: 'active' as const,
      health: 'ok' as const,
      consecutive_failures: 0,
      last_values: null,
      last_success_at: null,
      last_run_at: null,
      created_at: iso,
      updated_at: iso,
    });
    await monitors.insertMonitor(store.db, {
      ...row('mon_due'),
      next_run_at: new Date(now.getTime() - 1000).toISOString(),
    });
    await monitors.insertMonitor(store.db, {
      ...row('mon_orphan'),
      next_run_at: new Date(now.getTime() + 3_600_000).toISOString(),
    });
    // A previous process had this run in hand (running, lease not yet expired) when it died.
    await store.db
      .insertInto('monitor_runs')
      .values({
        id: 'run_orphan',
        monitor_id: 'mon_orphan',
        account_id: acc.id,
        trigger: 'schedule',
        status: 'running',
        credits: 1,
        due_at: iso,
        started_at: iso,
        finished_at: null,
        lease_until: new Date(now.getTime() + 600_000).toISOString(),
        status_code: null,
        values: null,
        changes: null,
        event_id: null,
        error: null,
      })
      .execute();

    const added: string[] = [];
    const queue: WorkQueue = {
      kind: 'embedded',
      addRuns: async (ids) => void added.push(...ids),
      addDeliveries: async () => undefined,
      runCapacity: async () => 64,
      depth: async () => [],
      consume: () => undefined,
      close: async () => undefined,
    };
    const engine = createEngine({ allowPrivateNetwork: false, resolve: [], proxyUrls: [] });
    const scheduler = new MonitorScheduler({
      store,
      engine,
      queue,
      retryBaseMs: 1000,
      maxAttempts: 3,
      soleProcess: true,
      accountCap: 8,
      redact: (s) => s,
    });
    try {
      await scheduler.tick();
      await scheduler.tick();
    } finally {
      await engine.close();
    }
    const runs = await store.db
      .selectFrom('monitor_runs')
      .select(['id', 'monitor_id', 'status'])
      .orderBy('monitor_id')
      .execute();
    const fresh = runs.find((r) => r.monitor_id === 'mon_due')!;
    expect(fresh.status).toBe('queued');
    expect(added.filter((id) => id === fresh.id)).toHaveLength(1);
    expect(added.filter((id) => id === 'run_orphan')).toHaveLength(1);
  });
});
