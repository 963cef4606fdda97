/**
 * A monitor behind a login (issue 44): its runs read the page with a saved session, across two
 * expiries of the site's own session (one automatic login each), and a monitor whose session
 * expired without a recipe fails with the reason, which monitor.failing carries. Runs are made
 * with "run now" while the site's clock is moved: no real hour passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startLoginSite, type LoginSite } from '../helpers/login-site.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();
const PASSWORD = 'hunter2-PW-7a0c44';
const SITE = 'www.shop.test';

async function call(svc: TestService, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any> };
}

describe.skipIf(!chromium)('a monitor behind a login (real Chromium, sqlite)', () => {
  let svc: TestService;
  let site: LoginSite;

  beforeAll(async () => {
    site = await startLoginSite({ user: 'alice', password: PASSWORD, ttl: 1800, host: SITE, other: 'other.test' });
    const pins = [SITE, 'other.test', 'hooks.test'].map((h) => `${h}=127.0.0.1:${site.server.port}`).join(',');
    svc = await startTestService('sqlite', {
      TRAWL_SECRET_KEY: 's'.repeat(40),
      TRAWL_ALLOW_PRIVATE_NETWORK: '0',
      TRAWL_RESOLVE: pins,
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const monitor = (session: string) => ({
    url: `http://${SITE}:${site.server.port}/account`,
    interval: '10m',
    watch: ['markdown'],
    webhook: `http://hooks.test:${site.server.port}/hook`,
    events: ['change.detected', 'monitor.failing'],
    session,
  });

  it('keeps reading the page for an hour of the site clock across two expiries, logging in once each', async () => {
    const a = await svc.newKey();
    const made = await call(svc, 'POST', '/v1/sessions', a.key, {
      name: 'shop',
      login: {
        url: `http://${SITE}:${site.server.port}/login`,
        actions: [
          { type: 'write', selector: '#user', text: 'alice' },
          { type: 'write', selector: '#password', text: '{{secret.PW}}' },
          { type: 'click', selector: 'button[type=submit]' },
          { type: 'wait', selector: '#orders' },
        ],
        secrets: { PW: PASSWORD },
      },
    });
    expect(made.status, made.text).toBe(201);
    const m = await call(svc, 'POST', '/v1/monitors', a.key, monitor('shop'));
    expect(m.status, m.text).toBe(201);
    // Every 10 minutes of the site's clock for an hour: the site's session lasts 30 minutes.
    for (let i = 0; i <= 6; i++) {
      const run = await call(svc, 'POST', `/v1/monitors/${m.body.monitor.monitor_id}/run`, a.key);
      expect(run.status, run.text).toBe(200);
      expect(run.body.run.status, run.text).toBe('succeeded');
      expect(run.text).not.toContain(PASSWORD);
      site.clock.now += 600;
    }
    // The first login, then one at each of the two expiries (30 and 60 minutes).
    expect(site.logins).toBe(3);
    // Another account can neither use the session for a monitor nor learn it exists.
    const b = await svc.newKey();
    const other = await call(svc, 'POST', '/v1/monitors', b.key, monitor('shop'));
    expect(other.status).toBe(404);
  }, 180_000);

  it('a monitor whose session expired and cannot log in fails with session_expired, and monitor.failing says so', async () => {
    const a = await svc.newKey();
    expect(
      (
        await call(svc, 'POST', '/v1/sessions', a.key, {
          name: 'stale',
          cookies: [{ name: 'sid', value: 'sid-NEVER-ISSUED', domain: SITE }],
        })
      ).status,
    ).toBe(201);
    const m = await call(svc, 'POST', '/v1/monitors', a.key, monitor('stale'));
    expect(m.status, m.text).toBe(201);
    const before = await svc.credits(a.accountId);
    for (let i = 0; i < 3; i++) {
      const run = await call(svc, 'POST', `/v1/monitors/${m.body.monitor.monitor_id}/run`, a.key);
      expect(run.body.run.status).toBe('failed');
      expect(run.body.run.error).toMatch(/^blocked \(session_expired\): session "stale" has expired/);
      expect(run.text).not.toContain('sid-NEVER-ISSUED');
    }
    expect(await svc.credits(a.accountId)).toBe(before);
    const events = await svc.store.db
      .selectFrom('webhook_events')
      .select('body')
      .where('monitor_id', '=', m.body.monitor.monitor_id)
      .execute();
    const failing = events.map((e) => JSON.parse(e.body)).filter((e) => e.event === 'monitor.failing');
    expect(failing).toHaveLength(1);
    expect(JSON.stringify(failing[0])).toContain('session_expired');
    expect(JSON.stringify(failing[0])).not.toContain('sid-NEVER-ISSUED');
  }, 120_000);
});
