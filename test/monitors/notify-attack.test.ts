/**
 * Notification channels attacked through the real service: a test send is no free spam relay
 * (1 credit when delivered, 402 without one, nothing sent), and one account never reaches
 * another's channels by id or by name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any> };
}

describe.each(DIALECTS)('notification channels under attack on %s', (dialect) => {
  let svc: TestService;
  let stand: WebhookReceiver;

  beforeAll(async () => {
    stand = await startWebhookReceiver('/in/SecretPath0123');
    svc = await startTestService(dialect, { TRAWL_SECRET_KEY: 's'.repeat(40) });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await stand?.close();
  });

  it('a delivered test send costs 1 credit; without a credit it is 402 and nothing is sent; a failed one is free', async () => {
    const { key, accountId } = await svc.newKey(2);
    const c = await call(svc, 'POST', '/v1/channels', key, { name: 'j', kind: 'json', webhook_url: stand.url });
    expect(c.status, c.text).toBe(201);
    const test = () => call(svc, 'POST', `/v1/channels/${c.body.channel.channel_id}/test`, key);

    stand.failNext(1, 500);
    expect((await test()).body).toMatchObject({ delivered: false, response_status: 500 });
    expect(await svc.credits(accountId)).toBe(2);

    for (const left of [1, 0]) {
      expect((await test()).body).toMatchObject({ delivered: true });
      expect(await svc.credits(accountId)).toBe(left);
    }
    const before = stand.received.length;
    const broke = await test();
    expect(broke.status).toBe(402);
    expect(stand.received.length).toBe(before);
  });

  it('an unreachable or refusing receiver says why without the secret parts of its URL', async () => {
    const { key } = await svc.newKey(5);
    const closed = await startWebhookReceiver('/x');
    const port = new URL(closed.url).port;
    await closed.close();
    for (const [i, url] of [
      `http://127.0.0.1:${port}/hook/PathSecret4242?token=QuerySecret4242&sig=SigSecret4242`,
      `${stand.url}?token=QuerySecret4242`,
    ].entries()) {
      const c = await call(svc, 'POST', '/v1/channels', key, { name: `leak${i}`, kind: 'json', webhook_url: url });
      expect(c.status, c.text).toBe(201);
      if (i === 1) stand.failNext(1, 500);
      const t = await call(svc, 'POST', `/v1/channels/${c.body.channel.channel_id}/test`, key);
      expect(t.body.delivered).toBe(false);
      const all = `${c.text} ${t.text} ${(await call(svc, 'GET', '/v1/channels', key)).text}`;
      for (const secret of ['PathSecret4242', 'QuerySecret4242', 'SigSecret4242']) expect(all).not.toContain(secret);
    }
  });

  it("an account's email channels name at most 50 addresses: one event cannot mail thousands", async () => {
    const { key } = await svc.newKey(5);
    const to = (from: number) => Array.from({ length: 20 }, (_, i) => `p${from + i}@example.com`);
    for (const n of [0, 20])
      expect((await call(svc, 'POST', '/v1/channels', key, { name: `m${n}`, kind: 'email', to: to(n) })).status).toBe(
        201,
      );
    // The same addresses again add nobody.
    expect((await call(svc, 'POST', '/v1/channels', key, { name: 'again', kind: 'email', to: to(0) })).status).toBe(
      201,
    );
    const over = await call(svc, 'POST', '/v1/channels', key, { name: 'm40', kind: 'email', to: to(40) });
    expect(over.status).toBe(400);
    expect(over.body.detail).toMatch(/^to: this account's email channels would name 60 addresses; at most 50/);
  });

  it("one account never reaches another's channel by id or by name", async () => {
    const a = await svc.newKey(5);
    const b = await svc.newKey(5);
    const c = await call(svc, 'POST', '/v1/channels', a.key, { name: 'ops', kind: 'json', webhook_url: stand.url });
    const id = c.body.channel.channel_id as string;
    const before = stand.received.length;
    for (const [m, p, body] of [
      ['GET', `/v1/channels/${id}`],
      ['PATCH', `/v1/channels/${id}`, { state: 'disabled' }],
      ['POST', `/v1/channels/${id}/test`],
      ['DELETE', `/v1/channels/${id}`],
    ] as const) {
      const r = await call(svc, m, p, b.key, body);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
    expect((await call(svc, 'GET', '/v1/channels', b.key)).body.channels).toEqual([]);
    const mon = await call(svc, 'POST', '/v1/monitors', b.key, {
      url: 'https://example.com/',
      interval: '1h',
      watch: ['title'],
      webhook: 'https://example.com/hook',
      notify: ['ops'],
    });
    expect(mon.status).toBe(400);
    expect(mon.body.detail).toMatch(/^notify\[0\]: this account has no channel named "ops"/);
    expect(stand.received.length).toBe(before);
    expect((await call(svc, 'GET', `/v1/channels/${id}`, a.key)).body.channel.state).toBe('active');
  });
});

describe('a channel never reaches our network', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite', { TRAWL_SECRET_KEY: 's'.repeat(40), TRAWL_ALLOW_PRIVATE_NETWORK: '0' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('refuses loopback, metadata, IPv6 and odd IPv4 forms, by url and by webhook_url', async () => {
    const { key } = await svc.newKey(5);
    const hosts = [
      '127.0.0.1:8080',
      'localhost',
      '169.254.169.254',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:a9fe:a9fe]',
      '0x7f.1',
      '2130706433',
      '0',
      '10.0.0.1',
      '[fd00::1]',
    ];
    let i = 0;
    for (const h of hosts) {
      for (const body of [
        { url: `json://${h}/x` },
        { url: `jsons://user:pw@${h}/x` },
        { kind: 'slack', webhook_url: `http://${h}/services/a` },
      ]) {
        const r = await call(svc, 'POST', '/v1/channels', key, { name: `c${i++}`, ...body });
        expect(r.status, `${JSON.stringify(body)} → ${r.text}`).toBe(403);
        expect(r.body.error).toBe('forbidden_target');
        expect(r.text).not.toContain('pw');
      }
    }
  });
});
