/**
 * The playground's search tab on a service with a search provider (a SearXNG stand-in): the form,
 * the results, one credit as /v1/search charges, its usage row and the request to copy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('playground search', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/lamp': articlePage('Brass lamp', '<p>A brass lamp for the desk, with warm light for reading late.</p>'),
    });
    site.route('/searx/search', (_q, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          results: [{ url: `${site.url}/lamp`, title: 'Brass lamp', content: 'A brass lamp for the desk' }],
        }),
      ),
    );
    svc = await startTestService('sqlite', {
      TRAWL_SIGNUP_CREDITS: '5',
      SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: `${site.url}/searx/`,
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('searches with the account’s credit and shows the results and the request', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const creds = `email=${encodeURIComponent('sam@example.com')}&password=longenough1`;
    await fetch(`${svc.url}/signup`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const login = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const tab = await (await fetch(`${svc.url}/playground/search`, { headers: { cookie } })).text();
    expect(tab).toContain('action="/playground/search"');
    expect(tab).not.toContain('search-unavailable');
    const csrf = /name="csrf" value="([^"]+)"/.exec(tab)![1];
    const account = await svc.store.db
      .selectFrom('accounts')
      .select(['id'])
      .where('email', '=', 'sam@example.com')
      .executeTakeFirstOrThrow();
    const res = await fetch(`${svc.url}/playground/search`, {
      method: 'POST',
      headers: { ...form, cookie, origin: svc.url },
      body: new URLSearchParams({ csrf, shown: '1', query: 'brass lamp', limit: '3' }).toString(),
    });
    const page = await res.text();
    expect(res.status, page.slice(0, 2000)).toBe(200);
    expect(page).toContain(`href="${site.url}/lamp"`);
    expect(page).toContain('Cost: 1 credit');
    expect(page).toContain('/v1/search');
    expect(page).toContain('&quot;query&quot;:&quot;brass lamp&quot;');
    expect(await svc.credits(account.id)).toBe(4);
    const rows = await svc.store.db
      .selectFrom('usage')
      .select(['endpoint', 'credits'])
      .where('account_id', '=', account.id)
      .execute();
    expect(rows.map((r) => [r.endpoint, Number(r.credits)])).toEqual([['dashboard playground search', 1]]);
  }, 60_000);
});
