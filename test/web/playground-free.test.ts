/**
 * The playground follows /v1/scrape's free-answer rule (issue 41): an answer with nothing at all in
 * it (a JavaScript-only page on a server without Chromium) costs no credit, says so, and its usage
 * row records 0 credits; a page with text costs one, as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SHELL =
  '<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/bundle.js"></script></body></html>';
const ARTICLE =
  '<!doctype html><html><head><title>Lamp</title></head><body><article><h1>Lamp</h1><p>A brass lamp for the desk, with warm light for reading late at night, and a long cord.</p><p>It comes with a warm bulb and a cloth shade in three colours.</p></article></body></html>';

describe('playground free answer', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({ '/app': SHELL, '/lamp': ARTICLE });
    svc = await startTestService('sqlite', { CHROMIUM_PATH: '/nonexistent/chromium' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('charges nothing for an empty answer and one credit for a page with text', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const email = 'free@example.com';
    const creds = `email=${encodeURIComponent(email)}&password=longenough1`;
    await fetch(`${svc.url}/signup`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const login = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const account = await svc.store.db
      .selectFrom('accounts')
      .select(['id'])
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    const csrf = /name="csrf" value="([^"]+)"/.exec(
      await (await fetch(`${svc.url}/playground`, { headers: { cookie } })).text(),
    )![1];
    const scrape = async (path: string) => {
      const body = new URLSearchParams([
        ['csrf', csrf],
        ['url', `${site.url}${path}`],
        ['formats', 'markdown'],
      ]).toString();
      const res = await fetch(`${svc.url}/playground`, {
        method: 'POST',
        headers: { ...form, cookie, origin: svc.url },
        body,
      });
      return { status: res.status, page: await res.text() };
    };
    const before = await svc.credits(account.id);

    const empty = await scrape('/app');
    expect(empty.status, empty.page.slice(0, 2000)).toBe(200);
    expect(empty.page).toContain('Cost: 0 credits');
    expect(empty.page).toContain('no credit was charged');
    expect(await svc.credits(account.id)).toBe(before);

    const full = await scrape('/lamp');
    expect(full.status).toBe(200);
    expect(full.page).toContain('Cost: 1 credit');
    expect(full.page).toContain('brass lamp');
    expect(await svc.credits(account.id)).toBe(before - 1);

    const rows = await svc.store.db
      .selectFrom('usage')
      .select(['endpoint', 'status', 'credits'])
      .where('account_id', '=', account.id)
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => [r.endpoint, Number(r.status), Number(r.credits)])).toEqual([
      ['dashboard playground', 200, 0],
      ['dashboard playground', 200, 1],
    ]);
  }, 60_000);
});
