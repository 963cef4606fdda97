/**
 * POST /v1/scrape on modern pages (issue 32): `metadata.content_source` and `metadata.page_type`
 * in the answer, a warning when the page gives no text after every fallback, no credit when
 * nothing at all came back, and `render: "auto"` rendering a page whose HTML had no text of
 * its own. Pages from test/fixtures/modern (each says which real structure it follows).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { usage } from '../../src/store/index.js';

const modern = (name: string) => readFileSync(join(resolve(__dirname, '../fixtures/modern'), name), 'utf8');

/** A menu of many links, then an empty app root that an inline script fills with the article. */
const MENU = `<nav>${Array.from({ length: 60 }, (_, i) => `<a href="/c/${i}">Category number ${i} of the shop</a>`).join(' ')}</nav>`;
const LATE_ARTICLE = `<!doctype html><html><head><title>Night trains</title></head><body>${MENU}<main id="app"></main>
<script>document.getElementById('app').innerHTML = '<article><h1>Night trains</h1>' +
'<p>Night trains are back on several European routes, and the sleeper cars are booked out weeks ahead in summer.</p>' +
'<p>Operators say the demand comes from travellers who want to skip a hotel night, and from people who avoid short flights.</p>' +
'<p>The new cars have small private cabins with a shower, a change from the old six-bed couchettes.</p></article>';</script></body></html>`;

describe('scrape: where the content came from, and the page kind', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/thread': modern('forum-thread.html'),
      '/json-ld': modern('json-ld-only.html'),
      '/nothing': modern('no-text.html'),
      '/empty': '<!doctype html><html><head><title>Loading…</title></head><body><div id="root"></div></body></html>',
      '/product': modern('product.html'),
    });
    svc = await startTestService('sqlite', { CHROMIUM_PATH: '/nonexistent/chromium' });
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('says which step found the content and what kind of page it is', async () => {
    const { key } = await svc.newKey(10);
    const thread = await (await svc.post('/v1/scrape', { url: `${site.url}/thread` }, key)).json();
    expect(thread.metadata).toMatchObject({ content_source: 'main', page_type: 'forum' });
    expect(thread.markdown).toContain('**fernwood** · May 2, 2024');
    expect(thread.warnings).toBeUndefined();
    const product = await (await svc.post('/v1/scrape', { url: `${site.url}/product` }, key)).json();
    expect(product.metadata.page_type).toBe('product');
    // A script shell whose JSON-LD carries the text: the text, and no browser needed for it.
    const res = await svc.post('/v1/scrape', { url: `${site.url}/json-ld`, render: 'http' }, key);
    const body = await res.json();
    expect(body.metadata).toMatchObject({ content_source: 'json_ld', page_type: 'article' });
    expect(body.markdown).toContain('The harbour ferry will run every twenty minutes');
    expect(body.warnings).toBeUndefined();
  });

  it('warns when the page has no text, and charges nothing when nothing came back', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post('/v1/scrape', { url: `${site.url}/empty` }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.markdown).toBe('');
    expect(body.warnings).toEqual([
      expect.stringMatching(/almost no text/),
      expect.stringMatching(/no credit was charged/),
    ]);
    expect(await svc.credits(accountId)).toBe(5);
    const rows = await usage.listUsage(svc.store.db, accountId);
    expect(rows[0]).toMatchObject({ status: 200, credits: 0 });
    // A picture and no words: the warning, but the picture came back, and that is charged.
    const md = await (await svc.post('/v1/scrape', { url: `${site.url}/nothing`, render: 'http' }, key)).json();
    expect(md.markdown).toContain('IMG_2041.jpg');
    expect(md.warnings).toEqual([expect.stringMatching(/almost no text/), expect.stringMatching(/render "browser"/)]);
    expect(await svc.credits(accountId)).toBe(4);
  });
});

describe('scrape: render auto and a page whose HTML has no text of its own', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({ '/late': LATE_ARTICLE });
    svc = await startTestService('sqlite');
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('renders it in the browser when the HTML copy has nothing to read', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post('/v1/scrape', { url: `${site.url}/late` }, key);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.metadata.content_source).toBe('browser');
    expect(body.markdown).toContain('Night trains are back on several European routes');
    expect(body.warnings).toBeUndefined();
    expect(await svc.credits(accountId)).toBe(4);
    // Over HTTP only, the menu (page chrome) is all there is: nothing came back, a warning says
    // so and names the fix, and it is not charged.
    const http = await (await svc.post('/v1/scrape', { url: `${site.url}/late`, render: 'http' }, key)).json();
    expect(http.markdown).toBe('');
    expect(http.warnings).toEqual([
      expect.stringMatching(/almost no text/),
      expect.stringMatching(/render "browser"/),
      expect.stringMatching(/no credit was charged/),
    ]);
    expect(await svc.credits(accountId)).toBe(4);
  }, 60_000);
});
