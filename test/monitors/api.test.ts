/**
 * /v1/monitors through the real service: validation of every field, account isolation, runs
 * (baseline, no change, change, failure, no credits), conditions, history, health, and the
 * change.detected webhook (body, signature recomputed here, retries with a stable id, redeliver).
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { Webhook } from 'standardwebhooks';
import { accounts } from '../../src/store/index.js';

/** A product page in the JSON-LD + visible price shape most shops use. */
const productPage = (
  price: number,
  name = 'Deep Sea Widget',
  inStock = true,
) => `<!doctype html><html><head><title>${name} | Shop</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"${name}","offers":{"@type":"Offer","price":"${price}","priceCurrency":"USD","availability":"https://schema.org/${inStock ? 'InStock' : 'OutOfStock'}"}}</script>
</head><body><main><h1>${name}</h1><p class="price">$${price}</p><p>A widget for the deep sea, pressure-rated, with a long description paragraph.</p></main></body></html>`;

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('monitors API', () => {
  let svc: TestService;
  let site: FixtureServer;
  let hook: WebhookReceiver;
  let price = 19.99;
  let down = false;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/product': (_q, res) =>
        down
          ? res.writeHead(503).end('down')
          : res.writeHead(200, { 'content-type': 'text/html' }).end(productPage(price)),
      '/article':
        '<html><head><title>Notes</title></head><body><article><h1>Notes</h1><p>Some words in a paragraph that is long enough to be the content of this page.</p></article></body></html>',
    });
    hook = await startWebhookReceiver();
    // Marketplace hosts are pinned to a closed local port: checks and any scheduled run stay on this machine.
    svc = await startTestService('sqlite', {
      TRAWL_MIN_INTERVAL_SECONDS: '1',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
      TRAWL_WEBHOOK_MAX_ATTEMPTS: '4',
      TRAWL_RESOLVE: 'www.amazon.de=127.0.0.1:9,www.etsy.com=127.0.0.1:9',
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hook?.close();
  });

  const base = () => ({
    url: `${site.url}/product`,
    interval: '1h',
    watch: ['price', 'title'],
    webhook: hook.url,
    schema: { price: 'number', name: 'string' },
  });
  /** A monitor that runs only when the test says so (paused; "run now" still runs it). */
  const pausedMonitor = async (key: string, body: Record<string, unknown>) => {
    const id = (await call(svc, 'POST', '/v1/monitors', key, body)).body.monitor.monitor_id as string;
    await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { state: 'paused' });
    return id;
  };
  const runNow = async (key: string, id: string) =>
    (await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {})).body.run;

  it('creates a monitor in the contract shape', async () => {
    const { key } = await svc.newKey(10);
    const r = await call(svc, 'POST', '/v1/monitors', key, base());
    expect(r.status).toBe(201);
    const m = r.body.monitor;
    expect(r.body.status).toBe('ok');
    expect(m.monitor_id).toMatch(/^mon_[0-9A-Za-z]{20}$/);
    expect(m).toMatchObject({
      url: `${site.url}/product`,
      interval: '1h',
      interval_seconds: 3600,
      watch: ['price', 'title'],
      webhook: hook.url,
      state: 'active',
      last_run_at: null,
      health: 'ok',
    });
    expect(m.marketplace).toBeUndefined();
    expect(Date.parse(m.created_at)).toBeGreaterThan(0);
    // The first run is somewhere in the first interval (monitors created together stay apart).
    expect(Date.parse(m.next_run_at) - Date.parse(m.created_at)).toBeLessThanOrEqual(3_600_000);
    expect(Date.parse(m.next_run_at)).toBeGreaterThanOrEqual(Date.parse(m.created_at));
  });

  it('validates every field and names it', async () => {
    const { key } = await svc.newKey(10);
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ ...base(), url: 'ftp://x/y' }, 400, /^url: /],
      [{ ...base(), url: undefined }, 400, /^url: is required/],
      [{ ...base(), interval: undefined }, 400, /^interval: is required/],
      [{ ...base(), interval: '10' }, 400, /^interval: "10" is not an interval/],
      [{ ...base(), interval: '5x' }, 400, /^interval: /],
      [{ ...base(), interval: 30 }, 400, /^interval: must be a string/],
      [{ ...base(), interval: '31d' }, 400, /^interval: "31d" is out of bounds/],
      [{ ...base(), interval: '0s' }, 400, /^interval: /],
      [{ ...base(), watch: [] }, 400, /^watch: must be an array of 1 to 20/],
      [{ ...base(), watch: Array.from({ length: 21 }, (_, i) => `f${i}`) }, 400, /^watch: must be an array of 1 to 20/],
      [{ ...base(), watch: ['price', 'colour'] }, 400, /^watch\[1\]: "colour" cannot be produced/],
      [{ ...base(), watch: ['price', 'price'] }, 400, /^watch\[1\]: "price" is listed twice/],
      [{ ...base(), webhook: 'mailto:a@b.c' }, 400, /^webhook: /],
      [{ ...base(), marketplace: 'amazon_xx' }, 400, /^marketplace: .*amazon_us.*bestbuy_ca/],
      [{ ...base(), marketplace: 'amazon_de' }, 400, /^url: 127\.0\.0\.1 is not a page of marketplace amazon_de/],
      [{ ...base(), schema: { price: 'money' } }, 422, /^schema\.price: /],
      [
        { ...base(), conditions: [{ field: 'price', op: 'below', value: 3 }] },
        400,
        /^conditions\[0\]\.op: must be one of/,
      ],
      [
        { ...base(), conditions: [{ field: 'name', op: 'changed' }] },
        400,
        /^conditions\[0\]\.field: must be one of the watched fields/,
      ],
      [
        { ...base(), conditions: [{ field: 'price', op: 'lt', value: 'cheap' }] },
        400,
        /^conditions\[0\]\.value: "lt" needs a number/,
      ],
      [
        { ...base(), conditions: [{ field: 'price', op: 'changed', value: 1 }] },
        400,
        /^conditions\[0\]\.value: "changed" takes no value/,
      ],
      [{ ...base(), colour: 'red' }, 400, /^colour: unknown field/],
    ];
    for (const [body, status, detail] of cases) {
      const r = await call(svc, 'POST', '/v1/monitors', key, body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({
        body,
        status,
        error: status === 422 ? 'invalid_schema' : 'invalid_request',
      });
      expect(r.body.detail).toMatch(detail);
    }
    // The minimum is TRAWL_MIN_INTERVAL_SECONDS (1 s here); built-ins are watchable without a schema.
    const ok = await call(svc, 'POST', '/v1/monitors', key, {
      url: `${site.url}/article`,
      interval: '2s',
      watch: ['title', 'markdown', 'status_code'],
      webhook: hook.url,
    });
    expect(ok.status).toBe(201);
    // Nothing half-written: only the one good monitor exists.
    expect((await call(svc, 'GET', '/v1/monitors', key)).body.monitors).toHaveLength(1);
  });

  it('infers the marketplace from the host and accepts product fields', async () => {
    const { key } = await svc.newKey(10);
    const r = await call(svc, 'POST', '/v1/monitors', key, {
      url: 'https://www.amazon.de/dp/B000000001',
      interval: '1d',
      watch: ['price', 'in_stock'],
      webhook: hook.url,
    });
    expect(r.status).toBe(201);
    expect(r.body.monitor.marketplace).toBe('amazon_de');
    const etsy = await call(svc, 'POST', '/v1/monitors', key, {
      url: 'https://www.etsy.com/fr/listing/123/x',
      interval: '1d',
      watch: ['price'],
      webhook: hook.url,
    });
    expect(etsy.body.monitor.marketplace).toBe('etsy_fr');
  });

  it('refuses a private webhook or URL when the network guard is on', async () => {
    // example.invalid is pinned (no DNS query leaves the machine); literal private addresses are refused.
    const guarded = await startTestService('sqlite', {
      TRAWL_ALLOW_PRIVATE_NETWORK: '',
      TRAWL_RESOLVE: 'example.invalid=127.0.0.1:9',
    });
    try {
      const { key } = await guarded.newKey(10);
      const r = await call(guarded, 'POST', '/v1/monitors', key, {
        ...base(),
        url: 'http://example.invalid/x',
        webhook: 'http://127.0.0.1:9/hook',
      });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: 'forbidden_target' });
      expect(r.body.detail).toMatch(/^webhook: /);
      const meta = await call(guarded, 'POST', '/v1/monitors', key, {
        ...base(),
        url: 'http://169.254.169.254/latest',
        webhook: 'http://example.invalid/hook',
      });
      expect(meta.status).toBe(403);
      expect(meta.body.detail).toMatch(/^url: /);
      // A monitor made with an allowed webhook cannot be moved to a private one afterwards.
      const ok = await call(guarded, 'POST', '/v1/monitors', key, {
        ...base(),
        url: 'http://example.invalid/x',
        webhook: 'http://example.invalid/hook',
      });
      expect(ok.status).toBe(201);
      for (const webhook of [
        'http://10.0.0.1/x',
        'http://[::1]:9/x',
        'http://169.254.169.254/latest',
        'http://0x7f000001/x',
        'http://127.1/x',
        'http://[::ffff:127.0.0.1]/x',
      ]) {
        const p = await call(guarded, 'PATCH', `/v1/monitors/${ok.body.monitor.monitor_id}`, key, { webhook });
        expect(p.status, webhook).toBe(403);
        expect(p.body.detail, webhook).toMatch(/^webhook: /);
      }
    } finally {
      await guarded.stop();
    }
  });

  it("is scoped to the account: another account's monitor is 404 for every verb", async () => {
    const a = await svc.newKey(10);
    const b = await svc.newKey(10);
    const id = (await call(svc, 'POST', '/v1/monitors', a.key, base())).body.monitor.monitor_id;
    const verbs: [string, string, unknown?][] = [
      ['GET', `/v1/monitors/${id}`],
      ['PATCH', `/v1/monitors/${id}`, { state: 'paused' }],
      ['DELETE', `/v1/monitors/${id}`],
      ['POST', `/v1/monitors/${id}/run`, {}],
      ['GET', `/v1/monitors/${id}/deliveries`],
      ['GET', `/v1/monitors/${id}/runs`],
      ['GET', `/v1/monitors/${id}/history?field=price`],
      ['POST', `/v1/monitors/${id}/deliveries/dlv_x/redeliver`, {}],
    ];
    for (const [method, path, body] of verbs) {
      const r = await call(svc, method, path, b.key, body);
      expect({ method, path, status: r.status, error: r.body.error }).toEqual({
        method,
        path,
        status: 404,
        error: 'not_found',
      });
    }
    expect((await call(svc, 'GET', '/v1/monitors', b.key)).body.monitors).toEqual([]);
    // Still there, untouched, for its owner; b was charged nothing.
    expect((await call(svc, 'GET', `/v1/monitors/${id}`, a.key)).body.monitor.state).toBe('active');
    expect(await svc.credits(b.accountId)).toBe(10);
    expect((await call(svc, 'GET', '/v1/monitors/mon_nope', a.key)).status).toBe(404);
  });

  it('updates, pauses and deletes', async () => {
    const { key } = await svc.newKey(10);
    const id = (await call(svc, 'POST', '/v1/monitors', key, base())).body.monitor.monitor_id;
    const p = await call(svc, 'PATCH', `/v1/monitors/${id}`, key, {
      interval: '30m',
      state: 'paused',
      watch: ['price'],
      conditions: [{ field: 'price', op: 'decreased' }],
    });
    expect(p.status).toBe(200);
    expect(p.body.monitor).toMatchObject({
      interval: '30m',
      interval_seconds: 1800,
      state: 'paused',
      watch: ['price'],
      next_run_at: null,
      conditions: [{ field: 'price', op: 'decreased' }],
    });
    expect((await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { interval: '1w' })).body.detail).toMatch(
      /^interval: /,
    );
    expect((await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { state: 'stopped' })).body.detail).toMatch(
      /^state: must be one of active, paused/,
    );
    expect((await call(svc, 'PATCH', `/v1/monitors/${id}`, key, {})).body.detail).toMatch(/^body: give at least one/);
    expect((await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { url: 'http://x/' })).body.detail).toMatch(
      /^url: unknown field/,
    );
    // Watching fewer fields than the conditions name is refused.
    expect((await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { watch: ['title'] })).body.detail).toMatch(
      /^conditions\[0\]\.field: /,
    );
    const resumed = await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { state: 'active' });
    expect(Date.parse(resumed.body.monitor.next_run_at)).toBeGreaterThanOrEqual(Date.now() - 1000);
    const d = await call(svc, 'DELETE', `/v1/monitors/${id}`, key);
    expect(d).toEqual({ status: 200, body: { status: 'ok', monitor_id: id, deleted: true } });
    expect((await call(svc, 'GET', `/v1/monitors/${id}`, key)).status).toBe(404);
    expect((await call(svc, 'DELETE', `/v1/monitors/${id}`, key)).status).toBe(404);
  });

  it('runs: baseline, no change, change (one signed event), failure, no credits; history and health', async () => {
    const { key, accountId } = await svc.newKey(5);
    const secret = (await accounts.findAccountById(svc.store.db, accountId))!.signing_secret;
    price = 19.99;
    down = false;
    const id = await pausedMonitor(key, base());
    const before = hook.received.length;

    const baseline = await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect(baseline.status).toBe(200);
    expect(baseline.body.run).toMatchObject({
      status: 'succeeded',
      trigger: 'manual',
      credits: 1,
      status_code: 200,
      values: { price: 19.99, title: 'Deep Sea Widget | Shop' },
      changes: null,
      event_id: null,
    });
    expect(await svc.credits(accountId)).toBe(4);

    const same = await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect(same.body.run).toMatchObject({ status: 'succeeded', changes: null, event_id: null });

    price = 17.99;
    const changed = await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect(changed.body.run.changes).toEqual({ price: { from: 19.99, to: 17.99 } });
    expect(changed.body.run.event_id).toMatch(/^evt_/);
    const [got] = (await hook.waitFor(before + 1)).slice(before);
    const event = JSON.parse(got.body);
    expect(event).toEqual({
      id: changed.body.run.event_id,
      event: 'change.detected',
      monitor_id: id,
      url: `${site.url}/product`,
      sequence: 1,
      changes: { price: { from: 19.99, to: 17.99 } },
      at: changed.body.run.finished_at,
    });
    expect(Object.keys(event)).toEqual(['id', 'event', 'monitor_id', 'url', 'sequence', 'changes', 'at']);
    expect(got.headers['x-service-signature']).toBe(
      `sha256=${createHmac('sha256', secret).update(got.body).digest('hex')}`,
    );
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(event);
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Trawl-Webhooks/1');

    down = true;
    const failed = await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect(failed.body.run).toMatchObject({ status: 'failed', credits: 0, event_id: null });
    expect(failed.body.run.error).toMatch(/^fetch_failed: .*503/);
    expect(await svc.credits(accountId)).toBe(2); // failures cost nothing
    await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect((await call(svc, 'GET', `/v1/monitors/${id}`, key)).body.monitor.health).toBe('ok');
    await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    const failing = (await call(svc, 'GET', `/v1/monitors/${id}`, key)).body.monitor;
    expect(failing).toMatchObject({
      health: 'failing',
      consecutive_failures: 3,
      last_values: { price: 17.99, title: 'Deep Sea Widget | Shop' },
    });
    expect((await call(svc, 'GET', '/v1/monitors', key)).body.monitors[0].health).toBe('failing');

    // Back up with the baseline kept from before the failures: the change is against 17.99.
    down = false;
    price = 15;
    const back = await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect(back.body.run.changes).toEqual({ price: { from: 17.99, to: 15 } });
    expect((await call(svc, 'GET', `/v1/monitors/${id}`, key)).body.monitor.health).toBe('ok');
    expect(await svc.credits(accountId)).toBe(1);

    price = 14;
    await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect(await svc.credits(accountId)).toBe(0);
    const skipped = await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    expect(skipped.body.run).toMatchObject({ status: 'skipped', credits: 0 });
    expect(skipped.body.run.error).toMatch(/no credits/);

    const history = await call(svc, 'GET', `/v1/monitors/${id}/history?field=price`, key);
    expect(history.body.points.map((p: { value: unknown }) => p.value)).toEqual([19.99, 19.99, 17.99, 15, 14]);
    const page = await call(svc, 'GET', `/v1/monitors/${id}/history?field=price&limit=2`, key);
    expect(page.body.points.map((p: { value: unknown }) => p.value)).toEqual([15, 14]);
    const older = await call(
      svc,
      'GET',
      `/v1/monitors/${id}/history?field=price&limit=2&cursor=${page.body.next_cursor}`,
      key,
    );
    expect(older.body.points.map((p: { value: unknown }) => p.value)).toEqual([19.99, 17.99]);
    expect((await call(svc, 'GET', `/v1/monitors/${id}/history?field=colour`, key)).body.detail).toMatch(
      /^field: must be one of the watched fields/,
    );
    const detail = (await call(svc, 'GET', `/v1/monitors/${id}`, key)).body.monitor;
    expect(detail.last_runs[0]).toMatchObject({ status: 'skipped' });
    expect(detail.last_runs).toHaveLength(9);
  });

  it('conditions: an event only when every rule holds', async () => {
    const { key } = await svc.newKey(20);
    price = 40;
    const id = await pausedMonitor(key, {
      ...base(),
      watch: ['price'],
      conditions: [
        { field: 'price', op: 'lt', value: 30 },
        { field: 'price', op: 'decreased' },
      ],
    });
    const run = () => runNow(key, id);
    await run(); // baseline 40
    price = 35;
    expect(await run()).toMatchObject({ changes: { price: { from: 40, to: 35 } }, event_id: null }); // decreased, not < 30
    price = 45;
    expect((await run()).event_id).toBeNull(); // increased
    price = 25;
    expect((await run()).event_id).toMatch(/^evt_/); // decreased and < 30
    price = 28;
    expect((await run()).event_id).toBeNull(); // < 30 but increased
  });

  it('retries a failing receiver with backoff and the same event id, logs every attempt, and redelivers', async () => {
    const { key } = await svc.newKey(10);
    price = 10;
    const id = await pausedMonitor(key, { ...base(), watch: ['price'] });
    await runNow(key, id);
    const before = hook.received.length;
    hook.failNext(2, 503);
    price = 11;
    const run = await runNow(key, id);
    const got = (await hook.waitFor(before + 3)).slice(before, before + 3);
    expect(got.map((g) => g.answered)).toEqual([503, 503, 204]);
    expect(new Set(got.map((g) => JSON.parse(g.body).id))).toEqual(new Set([run.event_id]));
    expect(new Set(got.map((g) => g.body)).size).toBe(1); // the same bytes every time
    // The schedule scaled by the base (10 ms here): 5 s → 10 ms, then 5 m → 600 ms (+ up to 10 % jitter).
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(8);
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(590);
    let deliveries: any[] = [];
    for (let i = 0; i < 50; i++) {
      deliveries = (await call(svc, 'GET', `/v1/monitors/${id}/deliveries`, key)).body.deliveries;
      if (deliveries[0]?.state === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(deliveries).toHaveLength(1);
    const d = deliveries[0];
    expect(d).toMatchObject({
      event_id: run.event_id,
      state: 'succeeded',
      attempts: 3,
      last_status: 204,
      next_attempt_at: null,
    });
    expect(d.event.id).toBe(run.event_id);
    expect(d.attempt_log.map((a: any) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'succeeded', 204],
    ]);
    expect(d.attempt_log.every((a: any) => typeof a.duration_ms === 'number' && a.finished_at)).toBe(true);

    const n = hook.received.length;
    const re = await call(svc, 'POST', `/v1/monitors/${id}/deliveries/${d.delivery_id}/redeliver`, key, {});
    expect(re.status).toBe(200);
    expect(hook.received).toHaveLength(n + 1);
    expect(hook.received[n].body).toBe(got[0].body);
    expect(re.body.delivery.attempt_log.at(-1)).toMatchObject({
      attempt: 4,
      manual: true,
      outcome: 'succeeded',
      status_code: 204,
    });
    expect((await call(svc, 'POST', `/v1/monitors/${id}/deliveries/dlv_unknown/redeliver`, key, {})).status).toBe(404);
  });

  it('gives up after the configured attempts and records the failure', async () => {
    const { key } = await svc.newKey(10);
    price = 10;
    const id = await pausedMonitor(key, { ...base(), watch: ['price'] });
    await runNow(key, id);
    const before = hook.received.length;
    hook.failNext(10, 500);
    price = 12;
    await runNow(key, id);
    await hook.waitFor(before + 4, 15_000);
    let d: any;
    for (let i = 0; i < 50; i++) {
      d = (await call(svc, 'GET', `/v1/monitors/${id}/deliveries`, key)).body.deliveries[0];
      if (d.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(d).toMatchObject({ state: 'failed', attempts: 4, last_status: 500, next_attempt_at: null });
    await new Promise((r) => setTimeout(r, 1000));
    expect(hook.received.length).toBe(before + 4);
    hook.failNext(0);
  });

  it('runs on its interval by itself (in-process scheduler)', async () => {
    const { key } = await svc.newKey(50);
    price = 1;
    const id = (await call(svc, 'POST', '/v1/monitors', key, { ...base(), watch: ['price'], interval: '1s' })).body
      .monitor.monitor_id;
    const until = Date.now() + 8000;
    let runs: any[] = [];
    while (Date.now() < until) {
      runs = (await call(svc, 'GET', `/v1/monitors/${id}/runs`, key)).body.runs;
      if (runs.filter((r) => r.status === 'succeeded').length >= 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const ok = runs.filter((r) => r.status === 'succeeded' && r.trigger === 'schedule');
    expect(ok.length).toBeGreaterThanOrEqual(3);
    // Due times one interval apart on the monitor's own phase.
    const due = ok.map((r) => Date.parse(r.due_at)).sort();
    expect(due[1] - due[0]).toBe(1000);
    await call(svc, 'DELETE', `/v1/monitors/${id}`, key);
  });
});
