/**
 * The webhook protocol of contract section 5 through the real service, on SQLite and PostgreSQL:
 * every delivery verified by the official `standardwebhooks` library and by recomputing
 * X-Service-Signature; rotation overlap; sequence; Retry-After; 410; attempts to the current URL;
 * replay; large values as a diff; monitor.failing / monitor.recovered; a 404 page observed.
 */
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { accounts } from '../../src/store/index.js';

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Both schemes, each per its own specification; returns the parsed event. */
function verified(got: Received, secret: string): Record<string, any> {
  expect(got.headers['x-service-signature']).toBe(
    `sha256=${createHmac('sha256', secret).update(got.body).digest('hex')}`,
  );
  const event = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as Record<string, any>;
  expect(got.headers['webhook-id']).toBe(event.id);
  expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
  expect(got.headers['content-type']).toBe('application/json');
  expect(got.headers['user-agent']).toBe('Trawl-Webhooks/1');
  return event;
}

const page = (title: string, price: number) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p class="price">$${price}</p><p>A paragraph long enough to be the main content of this small test page.</p></main></body></html>`;

describe.each(DIALECTS)('webhooks on %s', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let hook: WebhookReceiver;
  let price = 10;
  let status = 200;
  let big = '';

  beforeAll(async () => {
    site = await startFixtureServer({
      '/p': (_q, res) => res.writeHead(status, { 'content-type': 'text/html' }).end(page('Widget', price)),
      '/big': (_q, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><head><title>Big</title></head><body><article>${big}</article></body></html>`),
    });
    hook = await startWebhookReceiver();
    svc = await startTestService(dialect, {
      TRAWL_MIN_INTERVAL_SECONDS: '1',
      TRAWL_WEBHOOK_RETRY_BASE_MS: '10',
      TRAWL_WEBHOOK_MAX_ATTEMPTS: '3',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hook?.close();
  });

  const body = (extra: Record<string, unknown> = {}) => ({
    url: `${site.url}/p`,
    interval: '1h',
    watch: ['price'],
    webhook: hook.url,
    schema: { price: 'number' },
    ...extra,
  });
  /** A paused monitor: it runs only when the test says so. */
  async function monitor(key: string, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await call(svc, 'POST', '/v1/monitors', key, body(extra));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const id = r.body.monitor.monitor_id as string;
    await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { state: 'paused' });
    return id;
  }
  const run = async (key: string, id: string) => (await call(svc, 'POST', `/v1/monitors/${id}/run`, key, {})).body.run;
  const receivedFor = (r: WebhookReceiver, id: string) =>
    r.received.filter((g) => JSON.parse(g.body).monitor_id === id);
  const deliveries = async (key: string, id: string) =>
    (await call(svc, 'GET', `/v1/monitors/${id}/deliveries`, key)).body.deliveries as any[];
  const secretOf = async (accountId: string) =>
    (await accounts.findAccountById(svc.store.db, accountId))!.signing_secret;

  it('signs every delivery with both schemes (standardwebhooks verifies it unchanged) and counts events in `sequence`', async () => {
    const { key, accountId } = await svc.newKey(20);
    const secret = await secretOf(accountId);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    price = 10;
    const id = await monitor(key);
    await run(key, id);
    const ids: string[] = [];
    for (const p of [11, 12, 13]) {
      price = p;
      ids.push((await run(key, id)).event_id);
    }
    await until('3 deliveries', async () => receivedFor(hook, id).length >= 3);
    const events = receivedFor(hook, id).map((g) => verified(g, secret));
    expect(events.map((e) => [e.id, e.sequence, e.changes.price.to])).toEqual([
      [ids[0], 1, 11],
      [ids[1], 2, 12],
      [ids[2], 3, 13],
    ]);
    expect(Object.keys(events[0])).toEqual(['id', 'event', 'monitor_id', 'url', 'sequence', 'changes', 'at']);
    // A tampered body or another secret is refused by the library.
    const got = receivedFor(hook, id)[0];
    expect(() =>
      new Webhook(secret).verify(got.body.replace('11', '99'), got.headers as Record<string, string>),
    ).toThrow();
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(
        got.body,
        got.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('keeps the previous secret signing during the rotation overlap, and only the new one after it', async () => {
    const { key, accountId } = await svc.newKey(20);
    const old = await secretOf(accountId);
    const fresh = await accounts.rotateSigningSecret(svc.store.db, accountId, 24 * 3600_000);
    expect(fresh).not.toBe(old);
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    price = 20;
    const id = await monitor(key);
    await run(key, id);
    price = 21;
    await run(key, id);
    const [during] = await until('a delivery', async () => receivedFor(hook, id).length >= 1 && receivedFor(hook, id));
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(during, fresh).changes.price.to).toBe(21); // X-Service-Signature carries the new secret
    expect(new Webhook(old).verify(during.body, during.headers as Record<string, string>)).toMatchObject({
      sequence: 1,
    });

    // The overlap ends (as 24 h later): only the new secret signs.
    await svc.store.db
      .updateTable('accounts')
      .set({ previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', accountId)
      .execute();
    price = 22;
    await run(key, id);
    const after = (
      await until('a second delivery', async () => receivedFor(hook, id).length >= 2 && receivedFor(hook, id))
    )[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verified(after, fresh)).toMatchObject({ sequence: 2 });
    expect(() => new Webhook(old).verify(after.body, after.headers as Record<string, string>)).toThrow();
  });

  it('honours Retry-After on 429 and 503 (the base schedule here would retry after 10 ms)', async () => {
    const { key, accountId } = await svc.newKey(20);
    const r = await startWebhookReceiver();
    try {
      price = 30;
      const id = await monitor(key, { webhook: r.url });
      await run(key, id);
      r.failNext(1, 429, { 'retry-after': '1' });
      price = 31;
      await run(key, id);
      const two = await r.waitFor(2, 10_000);
      expect(two.map((g) => g.answered)).toEqual([429, 204]);
      expect(two[1].at - two[0].at).toBeGreaterThanOrEqual(950);
      r.failNext(1, 503, { 'retry-after': '2' });
      price = 32;
      await run(key, id);
      const four = await r.waitFor(4, 10_000);
      expect(four.slice(2).map((g) => g.answered)).toEqual([503, 204]);
      expect(four[3].at - four[2].at).toBeGreaterThanOrEqual(1950);
      const secret = await secretOf(accountId);
      expect(new Set(four.map((g) => verified(g, secret).id)).size).toBe(2); // a retry keeps its event id
    } finally {
      await r.close();
    }
  });

  it('a Retry-After of 0 or garbage ("-5" reads as a 2001 date) never brings an attempt before the schedule', async () => {
    const { key } = await svc.newKey(20);
    const r = await startWebhookReceiver();
    try {
      price = 35;
      const id = await monitor(key, { webhook: r.url });
      await run(key, id);
      r.failNext(2, 429, { 'retry-after': '0' });
      price = 36;
      await run(key, id);
      const three = await r.waitFor(3, 10_000);
      expect(three.map((g) => g.answered)).toEqual([429, 429, 204]);
      // The schedule here: 10 ms after the first failure, 600 ms after the second.
      expect(three[2].at - three[1].at).toBeGreaterThanOrEqual(590);
    } finally {
      await r.close();
    }
  });

  it('disables the webhook at once on 410 (API and list show it), keeps later events, and a PATCH plus a replay sends them', async () => {
    const { key, accountId } = await svc.newKey(20);
    const r = await startWebhookReceiver();
    try {
      price = 40;
      const id = await monitor(key, { webhook: r.url });
      await run(key, id);
      r.failNext(1, 410);
      price = 41;
      await run(key, id);
      await r.waitFor(1);
      const m = await until('disabled', async () => {
        const got = (await call(svc, 'GET', `/v1/monitors/${id}`, key)).body.monitor;
        return got.webhook_state === 'disabled' && got;
      });
      expect(m.webhook_disabled_reason).toMatch(/410 Gone/);
      expect(
        (await call(svc, 'GET', '/v1/monitors', key)).body.monitors.find((x: any) => x.monitor_id === id).webhook_state,
      ).toBe('disabled');
      const [d1] = await deliveries(key, id);
      expect(d1).toMatchObject({ state: 'failed', attempts: 1, last_status: 410 });
      // While disabled: the event is written, its delivery fails without being sent.
      price = 42;
      const later = await run(key, id);
      expect(later.event_id).toMatch(/^evt_/);
      await until(
        'the second delivery failed',
        async () =>
          (await deliveries(key, id)).every((d) => d.state === 'failed') && (await deliveries(key, id)).length === 2,
      );
      await sleep(200);
      expect(r.received).toHaveLength(1);
      // Replay skips a disabled webhook's deliveries.
      expect(
        (await call(svc, 'POST', '/v1/webhooks/replay', key, { since: '2020-01-01T00:00:00Z', monitor_id: id })).body,
      ).toEqual({ status: 'ok', replayed: 0 });

      // A PATCH of the webhook (the same URL here) re-enables it; the replay sends both events again.
      const p = await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { webhook: r.url });
      expect(p.body.monitor.webhook_state).toBe('active');
      const replay = await call(svc, 'POST', '/v1/webhooks/replay', key, {
        since: new Date(Date.now() - 60_000).toISOString(),
        monitor_id: id,
      });
      expect(replay).toEqual({ status: 200, body: { status: 'ok', replayed: 2 } });
      const got = await r.waitFor(3);
      const secret = await secretOf(accountId);
      expect(new Set(got.slice(1).map((g) => verified(g, secret).sequence))).toEqual(new Set([1, 2]));
      await until('both succeeded', async () => (await deliveries(key, id)).every((d) => d.state === 'succeeded'));
    } finally {
      await r.close();
    }
  });

  it('lets the owner disable and re-enable the webhook with PATCH webhook_state (validated)', async () => {
    const { key } = await svc.newKey(20);
    const r = await startWebhookReceiver();
    try {
      price = 45;
      const id = await monitor(key, { webhook: r.url });
      const off = await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { webhook_state: 'disabled' });
      expect(off.body.monitor).toMatchObject({
        webhook_state: 'disabled',
        webhook_disabled_reason: 'disabled by its owner',
      });
      await run(key, id);
      price = 46;
      await run(key, id);
      await until('not sent', async () => (await deliveries(key, id))[0]?.state === 'failed');
      expect(r.received).toHaveLength(0);
      const bad = await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { webhook_state: 'off' });
      expect(bad.status).toBe(400);
      expect(bad.body.detail).toMatch(/^webhook_state: must be one of active, disabled/);
      const on = await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { webhook_state: 'active' });
      expect(on.body.monitor.webhook_state).toBe('active');
      expect(on.body.monitor).not.toHaveProperty('webhook_disabled_reason');
      expect(
        (await call(svc, 'POST', '/v1/webhooks/replay', key, { since: '2020-01-01T00:00:00+00:00' })).body.replayed,
      ).toBe(1);
      expect(JSON.parse((await r.waitFor(1))[0].body)).toMatchObject({ monitor_id: id, sequence: 1 });
    } finally {
      await r.close();
    }
  });

  it('sends each attempt to the current webhook URL and logs where each went', async () => {
    const { key, accountId } = await svc.newKey(20);
    const a = await startWebhookReceiver('/a');
    const b = await startWebhookReceiver('/b');
    try {
      price = 50;
      const id = await monitor(key, { webhook: a.url });
      await run(key, id);
      // The first attempt fails and asks for 2 s: time to move the webhook.
      a.failNext(1, 503, { 'retry-after': '2' });
      price = 51;
      const changed = await run(key, id);
      await a.waitFor(1);
      expect((await call(svc, 'PATCH', `/v1/monitors/${id}`, key, { webhook: b.url })).status).toBe(200);
      const [got] = await b.waitFor(1, 10_000);
      expect(verified(got, await secretOf(accountId)).id).toBe(changed.event_id);
      const d = await until('succeeded', async () => {
        const [x] = await deliveries(key, id);
        return x?.state === 'succeeded' && x;
      });
      expect(d.url).toBe(b.url);
      expect(d.attempt_log.map((x: any) => [x.attempt, x.url, x.status_code])).toEqual([
        [1, a.url, 503],
        [2, b.url, 204],
      ]);
      expect(a.received).toHaveLength(1);
      // Redeliver: same id, fresh timestamp and signatures, to the current URL.
      await sleep(1100);
      const re = await call(svc, 'POST', `/v1/monitors/${id}/deliveries/${d.delivery_id}/redeliver`, key, {});
      expect(re.body.delivery.attempt_log.at(-1)).toMatchObject({
        attempt: 3,
        manual: true,
        url: b.url,
        status_code: 204,
      });
      const again = b.received[1];
      expect(again.body).toBe(got.body);
      expect(Number(again.headers['webhook-timestamp'])).toBeGreaterThan(Number(got.headers['webhook-timestamp']));
      expect(again.headers['webhook-signature']).not.toBe(got.headers['webhook-signature']);
      verified(again, await secretOf(accountId));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('replays failed deliveries since a time: account-scoped, validated, scheduled (not sent in the request)', async () => {
    const { key } = await svc.newKey(20);
    const other = await svc.newKey(5);
    const r = await startWebhookReceiver();
    try {
      price = 60;
      const id = await monitor(key, { webhook: r.url });
      await run(key, id);
      r.failNext(3, 500); // MAX_ATTEMPTS is 3 here: the delivery fails for good
      price = 61;
      await run(key, id);
      await until('failed', async () => (await deliveries(key, id))[0]?.state === 'failed');
      const since = new Date(Date.now() - 60_000).toISOString();
      const bad: [unknown, RegExp][] = [
        [{}, /^since: is required/],
        [{ since: 'yesterday' }, /^since: must be an ISO-8601/],
        [{ since: '2026-02-30T00:00:00Z' }, /^since: must be an ISO-8601/],
        [{ since: '2026-11-26' }, /^since: must be an ISO-8601/],
        [{ since, monitor_id: 5 }, /^monitor_id: /],
        [{ since, extra: 1 }, /^extra: unknown field/],
      ];
      for (const [b, detail] of bad) {
        const res = await call(svc, 'POST', '/v1/webhooks/replay', key, b);
        expect({ b, status: res.status, error: res.body.error }).toEqual({ b, status: 400, error: 'invalid_request' });
        expect(res.body.detail).toMatch(detail);
      }
      // Another account: its replay of this monitor is 404, and its own replay touches nothing here.
      expect((await call(svc, 'POST', '/v1/webhooks/replay', other.key, { since, monitor_id: id })).status).toBe(404);
      expect((await call(svc, 'POST', '/v1/webhooks/replay', other.key, { since })).body).toEqual({
        status: 'ok',
        replayed: 0,
      });
      expect(
        (await call(svc, 'POST', '/v1/webhooks/replay', key, { since: new Date(Date.now() + 60_000).toISOString() }))
          .body.replayed,
      ).toBe(0);
      expect((await deliveries(key, id))[0].state).toBe('failed');

      const res = await call(svc, 'POST', '/v1/webhooks/replay', key, { since });
      expect(res.body).toEqual({ status: 'ok', replayed: 1 });
      const d = await until('replayed', async () => {
        const [x] = await deliveries(key, id);
        return x?.state === 'succeeded' && x;
      });
      // A new schedule, attempts numbered on.
      expect(d.attempt_log.map((a: any) => [a.attempt, a.status_code])).toEqual([
        [1, 500],
        [2, 500],
        [3, 500],
        [4, 204],
      ]);
    } finally {
      await r.close();
    }
  });

  it('sends a large string value as a capped unified diff with SHA-256 of both sides, under 256 KiB', async () => {
    const { key, accountId } = await svc.newKey(20);
    const para = (i: number, word = 'steady') =>
      `<p>Paragraph ${i} says the ${word} things it always says, at some length so the page grows large.</p>`;
    big = Array.from({ length: 4000 }, (_, i) => para(i)).join('');
    const id = await monitor(key, { url: `${site.url}/big`, watch: ['markdown'], schema: undefined });
    const first = await run(key, id);
    expect(first.status).toBe('succeeded');
    expect(Buffer.byteLength(first.values.markdown)).toBeGreaterThan(300 * 1024);
    big = Array.from({ length: 4000 }, (_, i) => para(i, i === 2000 ? 'surprising' : 'steady')).join('');
    const second = await run(key, id);
    expect(second.event_id).toMatch(/^evt_/);
    const [got] = await until('a delivery', async () => receivedFor(hook, id).length >= 1 && receivedFor(hook, id));
    expect(Buffer.byteLength(got.body)).toBeLessThan(256 * 1024);
    const event = verified(got, await secretOf(accountId));
    const c = event.changes.markdown;
    expect(c.from).toBeUndefined();
    expect(c.to).toBeUndefined();
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(c.from_sha256).toBe(sha(first.values.markdown));
    expect(c.to_sha256).toBe(sha(second.values.markdown));
    expect(c.diff).toMatch(/^--- from\n\+\+\+ to\n@@ -\d+,\d+ \+\d+,\d+ @@\n/);
    expect(c.diff).toContain('-Paragraph 2000 says the steady things');
    expect(c.diff).toContain('+Paragraph 2000 says the surprising things');
    expect(c.diff.length).toBeLessThan(4000); // only the hunk around the change
    expect(c.diff_truncated).toBeUndefined();

    // Everything different: the diff is capped, the body still under 256 KiB.
    big = Array.from({ length: 4000 }, (_, i) => para(i, `changed${i}`)).join('');
    const third = await run(key, id);
    expect(third.event_id).toMatch(/^evt_/);
    const all = (
      await until('a second delivery', async () => receivedFor(hook, id).length >= 2 && receivedFor(hook, id))
    )[1];
    expect(Buffer.byteLength(all.body)).toBeLessThan(256 * 1024);
    const capped = verified(all, await secretOf(accountId)).changes.markdown;
    expect(capped).toMatchObject({
      diff_truncated: true,
      from_sha256: sha(second.values.markdown),
      to_sha256: sha(third.values.markdown),
    });
  });

  it('sends monitor.failing after 3 failed runs in a row and monitor.recovered on the next success, only when opted in', async () => {
    const { key, accountId } = await svc.newKey(30);
    const secret = await secretOf(accountId);
    price = 70;
    status = 200;
    const opted = await monitor(key, { events: ['change.detected', 'monitor.failing', 'monitor.recovered'] });
    const plain = await monitor(key);
    expect((await call(svc, 'GET', `/v1/monitors/${opted}`, key)).body.monitor.events).toEqual([
      'change.detected',
      'monitor.failing',
      'monitor.recovered',
    ]);
    expect((await call(svc, 'GET', `/v1/monitors/${plain}`, key)).body.monitor.events).toEqual(['change.detected']);
    for (const id of [opted, plain]) await run(key, id);
    status = 500;
    for (let i = 0; i < 4; i++) for (const id of [opted, plain]) expect((await run(key, id)).status).toBe('failed');
    const [failing] = await until(
      'monitor.failing',
      async () => receivedFor(hook, opted).length >= 1 && receivedFor(hook, opted),
    );
    expect(verified(failing, secret)).toMatchObject({
      event: 'monitor.failing',
      monitor_id: opted,
      sequence: 1,
      consecutive_failures: 3,
    });
    expect(JSON.parse(failing.body).error).toMatch(/^fetch_failed: .*500/);
    status = 200;
    price = 71;
    for (const id of [opted, plain]) await run(key, id);
    const got = await until(
      'recovered and the change',
      async () => receivedFor(hook, opted).length >= 3 && receivedFor(hook, opted),
    );
    // Deliveries run side by side, so arrival order is not event order: `sequence` is.
    const events = got.map((g) => verified(g, secret)).sort((x, y) => x.sequence - y.sequence);
    expect(events.map((e) => [e.event, e.sequence])).toEqual([
      ['monitor.failing', 1],
      ['monitor.recovered', 2],
      ['change.detected', 3],
    ]);
    expect(events[1].consecutive_failures).toBe(4);
    // The monitor that did not opt in got its change event only.
    await until('plain change', async () => receivedFor(hook, plain).length >= 1);
    await sleep(100);
    expect(receivedFor(hook, plain).map((g) => JSON.parse(g.body).event)).toEqual(['change.detected']);
    // Bad values are 400 naming the field.
    for (const events of [[], ['monitor.exploded'], ['change.detected', 'change.detected'], 'change.detected']) {
      const r = await call(svc, 'PATCH', `/v1/monitors/${plain}`, key, { events });
      expect({ events, status: r.status }).toEqual({ events, status: 400 });
      expect(r.body.detail).toMatch(/^events/);
    }
  });

  it('observes a page answering 404 when status_code is watched: a succeeded run, a change to 404, other fields kept out', async () => {
    const { key, accountId } = await svc.newKey(30);
    price = 80;
    status = 200;
    const id = await monitor(key, { watch: ['status_code', 'price'] });
    const unwatched = await monitor(key, { watch: ['price'] });
    await run(key, id);
    await run(key, unwatched);
    status = 404;
    const gone = await run(key, id);
    expect(gone).toMatchObject({
      status: 'succeeded',
      status_code: 404,
      values: { status_code: 404 },
      changes: { status_code: { from: 200, to: 404 } },
    });
    const [got] = await until('the 404 event', async () => receivedFor(hook, id).length >= 1 && receivedFor(hook, id));
    expect(verified(got, await secretOf(accountId)).changes).toEqual({ status_code: { from: 200, to: 404 } });
    // The other watched fields keep their baseline.
    expect((await call(svc, 'GET', `/v1/monitors/${id}`, key)).body.monitor.last_values).toEqual({
      status_code: 404,
      price: 80,
    });
    // Not watching status_code: the run fails, with the status recorded.
    const failed = await run(key, unwatched);
    expect(failed).toMatchObject({ status: 'failed', status_code: 404, credits: 0 });
    expect(failed.error).toMatch(/^fetch_failed: .*404/);
    // Back: 404 → 200 is the change; the price did not change, so it is not in the event.
    status = 200;
    const back = await run(key, id);
    expect(back.changes).toEqual({ status_code: { from: 404, to: 200 } });
  });
});
