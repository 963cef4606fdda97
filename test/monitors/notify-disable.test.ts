/**
 * A channel that keeps failing past the disable window (TRAWL_WEBHOOK_DISABLE_AFTER_HOURS, as a
 * webhook) is disabled: its GET says why, its pending messages fail, a `channel.disabled` event
 * goes to the monitor's webhook, later changes skip it, and PATCH state "active" re-enables it.
 * The clock is moved on by calling the outbox's attempt with a later `now`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelivery } from '../../src/monitors/deliver.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(DIALECTS)('a failing channel on %s', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let hook: WebhookReceiver;
  let chat: WebhookReceiver;
  let n = 1;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/p': (_q, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><head><title>Lamp ${n}</title></head><body><p>A lamp.</p></body></html>`),
    });
    hook = await startWebhookReceiver();
    chat = await startWebhookReceiver('/chat');
    svc = await startTestService(dialect, {
      // The scheduler's next try is 10 minutes away: the test makes the later attempts itself.
      TRAWL_WEBHOOK_RETRY_BASE_MS: '600000',
      TRAWL_SECRET_KEY: 'd'.repeat(40),
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hook?.close();
    await chat?.close();
  });

  it('is disabled with a channel.disabled event after failing past the window, and re-enabled by PATCH', async () => {
    const { key } = await svc.newKey(20);
    const ch = (await call(svc, 'POST', '/v1/channels', key, { name: 'chat', kind: 'json', webhook_url: chat.url }))
      .body.channel;
    const mon = await call(svc, 'POST', '/v1/monitors', key, {
      url: `${site.url}/p`,
      interval: '1h',
      watch: ['title'],
      webhook: hook.url,
      notify: ['chat'],
    });
    const id = mon.body.monitor.monitor_id as string;
    await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { state: 'paused' });
    await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    chat.failNext(100, 503);
    n = 2;
    await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    await chat.waitFor(1);
    const db = svc.store.db;
    const d = await until('the first attempt recorded', () =>
      db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('channel_id', '=', ch.channel_id)
        .where('state', '=', 'pending')
        .where('attempts', '=', 1)
        .executeTakeFirst(),
    );
    let got = (await call(svc, 'GET', `/v1/channels/${ch.channel_id}`, key)).body.channel;
    expect(got.state).toBe('active');
    expect(got.health).toMatchObject({ consecutive_failures: 1, last_error: 'the json receiver answered 503' });

    // Four days on, the next attempt fails too: past the 3-day window.
    const later = Date.now() + 4 * 24 * 3600_000;
    expect(await attemptDelivery({ ...svc.scheduler!.deliveryDeps, now: () => later }, d.id, 1)).toBe(true);
    got = (await call(svc, 'GET', `/v1/channels/${ch.channel_id}`, key)).body.channel;
    expect(got.state).toBe('disabled');
    expect(got.disabled_reason).toMatch(/^no successful send since /);
    expect(got.health.consecutive_failures).toBe(2);
    const ended = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', d.id)
      .executeTakeFirstOrThrow();
    expect(ended.state).toBe('failed');
    // The owner hears of it where monitor.failing goes: an event to the monitor's webhook.
    const events = await db.selectFrom('webhook_events').select('body').where('monitor_id', '=', id).execute();
    const disabled = events.map((e) => JSON.parse(e.body)).find((e) => e.event === 'channel.disabled');
    expect(disabled).toMatchObject({ monitor_id: id, channel_id: ch.channel_id, channel_name: 'chat' });
    expect(JSON.stringify(disabled)).not.toContain('/chat');

    // Later changes skip the disabled channel; PATCH state "active" brings it back with a clean slate.
    n = 3;
    const run3 = (await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {})).body.run;
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select('channel_id')
      .where('event_id', '=', run3.event_id)
      .execute();
    expect(rows.map((r) => r.channel_id)).toEqual([null]);
    const back = (await call(svc, 'PATCH', `/v1/channels/${ch.channel_id}`, key, { state: 'active' })).body.channel;
    expect(back).toMatchObject({ state: 'active', health: { consecutive_failures: 0, failing_since: null } });
    chat.failNext(0);
    const before = chat.received.length;
    n = 4;
    await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {});
    await chat.waitFor(before + 1);
  });
});
