/**
 * Account quotas: monitors per account, a credit balance to create one, and the operator's
 * rate-limit ceiling over every key of the account (API, dashboard), on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { accounts, keys } from '../../src/store/index.js';

describe.each(DIALECTS)('quotas (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;

  beforeAll(async () => {
    site = await startFixtureServer({ '/p': '<html><head><title>P</title></head><body><p>Price $1</p></body></html>' });
    svc = await startTestService(dialect, {
      TRAWL_MAX_MONITORS_PER_ACCOUNT: '2',
      TRAWL_RATE_LIMIT_PER_MINUTE: '50',
      TRAWL_SIGNUP_CREDITS: '5',
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const monitor = () => ({
    url: `${site.url}/p`,
    interval: '1d',
    watch: ['title'],
    webhook: 'http://127.0.0.1:9/hook',
  });
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };

  it('an account has at most TRAWL_MAX_MONITORS_PER_ACCOUNT monitors: one more is 400 invalid_request saying so', async () => {
    const { key } = await svc.newKey(10);
    const first = await call('POST', '/v1/monitors', key, monitor());
    expect(first.status).toBe(201);
    expect((await call('POST', '/v1/monitors', key, monitor())).status).toBe(201);
    const over = await call('POST', '/v1/monitors', key, monitor());
    expect(over).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        detail:
          'monitors: this account already has 2 monitors, the most it may have; delete one it no longer needs first',
      },
    });
    // Another account is not affected; deleting one makes room again.
    expect((await call('POST', '/v1/monitors', (await svc.newKey(10)).key, monitor())).status).toBe(201);
    expect((await call('DELETE', `/v1/monitors/${first.body.monitor.monitor_id}`, key)).status).toBe(200);
    expect((await call('POST', '/v1/monitors', key, monitor())).status).toBe(201);
  });

  it('creating a monitor needs a positive credit balance: 402 insufficient_credits, nothing created', async () => {
    const { key } = await svc.newKey(0);
    expect(await call('POST', '/v1/monitors', key, monitor())).toEqual({
      status: 402,
      body: { error: 'insufficient_credits' },
    });
    expect((await call('GET', '/v1/monitors', key)).body.monitors).toEqual([]);
    // A body error is still named first.
    expect((await call('POST', '/v1/monitors', key, { ...monitor(), interval: 'often' })).status).toBe(400);
  });

  it('the ceiling defaults to TRAWL_RATE_LIMIT_PER_MINUTE and caps a key set higher, even one made before', async () => {
    const fresh = await accounts.createAccount(svc.store.db, { email: `fresh-${dialect}@test.local` });
    expect(fresh.rate_limit_ceiling).toBeNull();
    expect((await accounts.findAccountById(svc.store.db, fresh.id))!.rate_limit_ceiling).toBeNull();
    const { key, accountId } = await svc.newKey(10, 10_000);
    await accounts.setRateLimitCeiling(svc.store.db, accountId, 2);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('GET', '/v1/account', key)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('the dashboard refuses a key rate limit above the account ceiling with a message naming it', async () => {
    const email = `ceiling-${dialect}@example.com`;
    const form = {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${encodeURIComponent(email)}&password=longenough1`,
    } as const;
    await fetch(`${svc.url}/signup`, form); // sign-up opens no session (it must not tell a taken email apart): log in
    const res = await fetch(`${svc.url}/login`, form);
    const cookie = res.headers.get('set-cookie')!.split(';')[0];
    const page = await (await fetch(`${svc.url}/keys`, { headers: { cookie } })).text();
    expect(page).toContain('max="50"');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1];
    const post = (rate: string) =>
      fetch(`${svc.url}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ csrf, name: 'k', rate_limit: rate }).toString(),
      });
    const over = await post('51');
    expect(over.status).toBe(400);
    expect(await over.text()).toContain('at most 50 requests per minute; ask the operator to raise the ceiling');
    expect((await post('50')).status).toBe(201);
    const acc = (await accounts.findAccountByEmail(svc.store.db, email))!;
    await accounts.setRateLimitCeiling(svc.store.db, acc.id, 500);
    expect((await post('500')).status).toBe(201);
    expect((await keys.listKeys(svc.store.db, acc.id)).map((k) => k.rate_limit_per_minute).sort()).toEqual([50, 500]);
  });
});
