/**
 * Delivery attempts at the module level: the network guard applies on every attempt (a webhook
 * host that now resolves to a private address is refused and logged, nothing is sent), and a
 * redirect is a failed attempt, not followed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/engine/fetch/http.js';
import { attemptDelivery } from '../../src/monitors/deliver.js';
import { createRedactor } from '../../src/redact.js';
import { accounts, openStore, type Store } from '../../src/store/index.js';

describe('delivery attempts', () => {
  let store: Store;
  let dir: string;
  let hits = 0;
  let hookUrl = '';
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end();
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-deliver-'));
    store = await openStore({ dataDir: dir });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await store.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function pendingDelivery(id: string, url = hookUrl): Promise<void> {
    const acc = await accounts.createAccount(store.db, { email: `${id}@test.local` });
    const now = new Date().toISOString();
    await store.db
      .insertInto('monitors')
      .values({
        id: `mon_${id}`,
        account_id: acc.id,
        url: 'http://example.com/',
        interval: '1h',
        interval_seconds: 3600,
        watch: '["title"]',
        webhook: url,
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
    await store.db
      .insertInto('webhook_events')
      .values({
        id: `evt_${id}`,
        monitor_id: `mon_${id}`,
        account_id: acc.id,
        run_id: 'run_x',
        body: '{"id":"evt"}',
        created_at: now,
      })
      .execute();
    await store.db
      .insertInto('webhook_deliveries')
      .values({
        id: `dlv_${id}`,
        event_id: `evt_${id}`,
        monitor_id: `mon_${id}`,
        account_id: acc.id,
        url,
        state: 'pending',
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  const attemptsOf = (id: string) =>
    store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', `dlv_${id}`).execute();

  it('refuses a private address at attempt time and sends nothing', async () => {
    await pendingDelivery('guard');
    const http = new HttpClient({ allowPrivateNetwork: false });
    expect(
      await attemptDelivery(
        { store, engine: { http }, retryBaseMs: 1000, maxAttempts: 3, redact: (s: string) => s },
        'dlv_guard',
        0,
      ),
    ).toBe(true);
    await http.close();
    expect(hits).toBe(0);
    const [a] = await attemptsOf('guard');
    expect(a).toMatchObject({ attempt: 1, outcome: 'failed', status_code: null });
    expect(a.error).toMatch(/^forbidden_target: /);
    const d = await store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', 'dlv_guard')
      .executeTakeFirstOrThrow();
    expect(d).toMatchObject({ state: 'pending', attempts: 1 });
    // The same attempt is never made twice: a second claim of attempt 1 does nothing.
    expect(
      await attemptDelivery(
        { store, engine: { http }, retryBaseMs: 1000, maxAttempts: 3, redact: (s: string) => s },
        'dlv_guard',
        0,
      ),
    ).toBe(false);
  });

  it('counts a redirect as a failed attempt without following it', async () => {
    await pendingDelivery('redirect');
    const http = new HttpClient({ allowPrivateNetwork: true });
    await attemptDelivery(
      { store, engine: { http }, retryBaseMs: 1000, maxAttempts: 3, redact: (s: string) => s },
      'dlv_redirect',
      0,
    );
    await http.close();
    expect(hits).toBe(1);
    const [a] = await attemptsOf('redirect');
    expect(a).toMatchObject({ outcome: 'failed', status_code: 302 });
    expect(a.error).toMatch(/redirect/);
  });

  it('stores the attempt error without configured secrets (issue 26)', async () => {
    await pendingDelivery('secret', 'http://127.0.0.1:9/hook?k=pa55word-xyz&e=pa55word%252Dxyz');
    const http = new HttpClient({ allowPrivateNetwork: true });
    await attemptDelivery(
      { store, engine: { http }, retryBaseMs: 1000, maxAttempts: 3, redact: createRedactor(['pa55word-xyz']) },
      'dlv_secret',
      0,
    );
    await http.close();
    const [a] = await attemptsOf('secret');
    expect(a.error).toBe(
      'fetch_failed: could not fetch http://127.0.0.1:9/hook?k=[redacted]&e=[redacted]: connection refused',
    );
    const d = await store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', 'dlv_secret')
      .executeTakeFirstOrThrow();
    expect(d.last_error).toBe(a.error);
  });
});
