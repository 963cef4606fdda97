/**
 * The playground's tabs (scrape with its options, crawl, map, search, extract), the Jobs page's
 * forms, the deliveries' event types and a one-point monitor chart, in headless Chromium under the
 * pages' own CSP. Each tab's screenshot goes to a temporary directory (printed), and what the
 * page shows is asserted: results, the request as curl / TypeScript / Python, the credit charged
 * and the usage rows, as /v1 would write them.
 */
import { ARGS } from '../../src/engine/fetch/chromium-launch.js';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

describe.skipIf(!chromiumPath)('playground tabs and job forms in Chromium', () => {
  let svc: TestService;
  let site: FixtureServer;
  let browser: Browser;
  let price = 10;
  const shots = mkdtempSync(join(tmpdir(), 'trawl-playground-'));

  beforeAll(async () => {
    site = await startFixtureServer({
      '/shop/': (_q, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<html><head><title>Shop</title></head><body><main><h1>Shop</h1><p>Lamps and chairs for every room of the house, sold here.</p><a href="/shop/lamp">Lamp</a> <a href="/shop/chair">Chair</a></main></body></html>',
          ),
      '/shop/lamp': articlePage('Brass lamp', '<p>A brass lamp for the desk, with warm light for reading late.</p>'),
      '/shop/chair': articlePage('Oak chair', '<p>An oak chair with a woven seat, sturdy and light to carry.</p>'),
      '/product': (_q, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>Lamp</title></head><body><main><h1>Lamp</h1><p class="price">$${(price += 1).toFixed(2)}</p></main></body></html>`,
          ),
    });
    // A search provider named but not set up (no SEARXNG_URL): the search tab says so.
    svc = await startTestService('sqlite', { TRAWL_SIGNUP_CREDITS: '40', SEARCH_PROVIDER: 'searxng', SEARXNG_URL: '' });
    browser = await chromium.launch({
      executablePath: chromiumPath!,
      headless: true,
      // The service's own flags: no background networking, and no name resolved but 127.0.0.1's
      // (the pages here are all on loopback; nothing may reach the internet).
      args: ARGS,
    });
    console.log(`playground screenshots: ${shots}`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    await site?.close();
  });

  const shot = (p: Page, name: string) => p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const errors: string[] = [];

  it('each tab runs its endpoint, shows the result and the request to copy; Jobs starts jobs; a one-point chart spans a day', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const p = await context.newPage();
    // A CSP violation (an inline script or handler) shows as a console error.
    p.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    p.on('dialog', (d) => void d.accept());
    await p.goto(`${svc.url}/signup`);
    await p.fill('#email', 'tabs@example.com');
    await p.fill('#password', 'correct horse battery');
    await p.click('button[type=submit]');
    await p.waitForURL(/\/login/);
    await p.fill('#email', 'tabs@example.com');
    await p.fill('#password', 'correct horse battery');
    await p.click('button[type=submit]');
    await p.waitForURL(`${svc.url}/`);
    const account = await svc.store.db
      .selectFrom('accounts')
      .select(['id'])
      .where('email', '=', 'tabs@example.com')
      .executeTakeFirstOrThrow();
    const credits = () => svc.credits(account.id);
    expect(await credits()).toBe(40);

    // Scrape, with options: JSON Schema, not only the main content, actions (in the browser).
    await p.click('nav >> text=Playground');
    expect(await p.textContent('nav.tabs [aria-current=page]')).toBe('Scrape');
    await p.fill('#p-url', `${site.url}/product`);
    await p.check('input[name=formats][value=json]');
    await p.uncheck('input[name=only_main_content]');
    await p.fill(
      '#p-schema',
      '{"type":"object","properties":{"price":{"type":"number","description":"the price"}},"required":["price"]}',
    );
    await p.fill('#p-actions', '[{"type":"wait","milliseconds":50}]');
    await p.click('form[action="/playground"] button[type=submit]');
    await p.waitForSelector('[data-testid=json]');
    expect(JSON.parse((await p.textContent('[data-testid=json]'))!)).toEqual({ price: expect.any(Number) });
    const curl = (await p.textContent('#curl'))!;
    expect(curl).toContain(`${svc.url}/v1/scrape`);
    expect(curl).toContain('"only_main_content":false');
    expect(curl).toContain('"actions":[{"type":"wait","milliseconds":50}]');
    expect(await p.textContent('#ts')).toContain(`await fetch("${svc.url}/v1/scrape"`);
    const py = (await p.textContent('#python'))!;
    expect(py).toContain('requests.post(');
    expect(py).toContain('"only_main_content": False');
    expect(await p.isChecked('input[name=only_main_content]')).toBe(false);
    await shot(p, '01-scrape');
    expect(await credits()).toBe(39);

    // Crawl: a job, linked to the Jobs page.
    await p.click('nav.tabs >> text=Crawl');
    await p.fill('#c-url', `${site.url}/shop/`);
    await p.fill('#c-limit', '3');
    await p.fill('#c-depth', '1');
    await p.click('form[action="/playground/crawl"] button[type=submit]');
    await p.waitForSelector('[data-testid=job-started]');
    const started = (await p.textContent('[data-testid=job-started]'))!;
    const crawlId = /job_[0-9A-Za-z]{20}/.exec(started)![0];
    expect(await p.textContent('#curl')).toContain('"async":true');
    expect(await p.textContent('#curl')).toContain('/v1/crawl');
    await shot(p, '02-crawl');
    await p.click('[data-testid=job-started] >> text=Jobs page');
    await p.waitForURL(`${svc.url}/jobs`);
    expect(await p.textContent('table[aria-label=Jobs]')).toContain(crawlId);
    expect(await credits()).toBe(38);

    // Map.
    await p.goto(`${svc.url}/playground/map`);
    await p.fill('#m-url', `${site.url}/shop/`);
    await p.click('form[action="/playground/map"] button[type=submit]');
    await p.waitForSelector('table[aria-label=URLs]');
    expect(await p.textContent('table[aria-label=URLs]')).toContain(`${site.url}/shop/lamp`);
    expect(await p.textContent('#python')).toContain('/v1/map');
    await shot(p, '03-map');
    expect(await credits()).toBe(37);

    // Search: no provider on this server, said plainly, no form to spend a credit on.
    await p.click('nav.tabs >> text=Search');
    expect(await p.textContent('[data-testid=search-unavailable]')).toContain(
      'Search is not configured on this server',
    );
    expect(await p.textContent('[data-testid=search-unavailable]')).toContain('SEARXNG_URL');
    expect(await p.$('form[action="/playground/search"]')).toBeNull();
    await shot(p, '04-search-unconfigured');

    // Extract: two URLs and a JSON Schema.
    await p.click('nav.tabs >> text=Extract');
    await p.fill('#e-urls', `${site.url}/shop/lamp\n${site.url}/shop/chair`);
    await p.fill('#e-schema', '{"type":"object","properties":{"title":{"type":"string"}}}');
    await p.click('form[action="/playground/extract"] button[type=submit]');
    await p.waitForSelector('[data-testid=json]');
    expect((await p.textContent('[data-testid=json]'))!).toMatch(/Brass lamp|Oak chair/);
    expect(await p.textContent('#curl')).toContain('"urls":[');
    await shot(p, '05-extract');
    expect(await credits()).toBe(36);

    // An error shows the API's own message, and costs nothing.
    await p.fill('#e-schema', '{"type":');
    await p.click('form[action="/playground/extract"] button[type=submit]');
    expect(await p.textContent('[role=alert]')).toMatch(/^invalid_request: schema: is not valid JSON/);
    expect(await credits()).toBe(36);
    // … and so does a failure after the credit was reserved (a page that cannot be fetched).
    await p.fill('#e-urls', 'http://127.0.0.1:9/gone');
    await p.fill('#e-schema', '{"type":"object","properties":{"title":{"type":"string"}}}');
    await p.click('form[action="/playground/extract"] button[type=submit]');
    expect(await p.textContent('[role=alert]')).toMatch(/^fetch_failed/);
    expect(await credits()).toBe(36);

    // Jobs: a batch scrape from the form.
    await p.click('nav >> text=Jobs');
    await p.click('summary:has-text("Start a batch scrape")');
    await p.fill('#b-urls', `${site.url}/shop/lamp\n${site.url}/shop/chair`);
    await p.click('form[action="/jobs/batch"] button[type=submit]');
    await p.waitForSelector('[data-testid=job-started]');
    const batchId = /job_[0-9A-Za-z]{20}/.exec((await p.textContent('[data-testid=job-started]'))!)![0];
    expect(await p.textContent('table[aria-label=Jobs]')).toContain(batchId);
    await shot(p, '06-jobs-batch');
    await p.click('summary:has-text("Start a crawl")');
    await p.fill('#c-url', `${site.url}/shop/`);
    await p.click('form[action="/jobs/crawl"] button[type=submit]');
    await p.waitForSelector('[data-testid=job-started]');
    expect(await p.textContent('[data-testid=job-started]')).toContain('Crawl');
    expect(await credits()).toBe(34);

    const rows = await svc.store.db
      .selectFrom('usage')
      .select(['endpoint', 'status', 'credits'])
      .where('account_id', '=', account.id)
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => [r.endpoint, Number(r.status), Number(r.credits)])).toEqual([
      ['dashboard playground', 200, 1],
      ['dashboard crawl', 200, 1],
      ['dashboard playground map', 200, 1],
      ['dashboard playground extract', 200, 1],
      ['dashboard playground extract', 400, 0],
      ['dashboard playground extract', 502, 0],
      ['dashboard batch scrape', 200, 1],
      ['dashboard crawl', 200, 1],
    ]);

    // A monitor with one run: its chart spans a day around the run, not years.
    await p.click('nav >> text=Monitors');
    await p.fill('#m-url', `${site.url}/product`);
    await p.fill('#m-interval', '1d');
    await p.fill('#m-watch', 'price');
    await p.fill('#m-webhook', 'http://127.0.0.1:9/hook');
    await p.fill('#m-schema', '{"price":"number"}');
    await p.click('form[action="/monitors"] button[type=submit]');
    await p.waitForURL(/\/monitors\/mon_/);
    await p.click('button:has-text("Pause")');
    await p.waitForSelector('text=paused');
    await p.click('button:has-text("Run now")');
    await p.waitForSelector('text=Run finished');
    await p.waitForSelector('#chart-price[data-x-range]');
    const [min, max] = (await p.getAttribute('#chart-price', 'data-x-range'))!.split(',').map(Number);
    const now = Date.now() / 1000;
    // (An hour either side of a run: a day's padding or uPlot's years would both fail here.)
    expect(max - min).toBeLessThanOrEqual(2 * 3600);
    expect(min).toBeGreaterThan(now - 3600 - 300);
    expect(max).toBeLessThan(now + 3600 + 300);
    await shot(p, '07-monitor-one-point');

    // A second run finds the price changed: its delivery says which event it carried.
    await p.click('button:has-text("Run now")');
    await p.waitForSelector('text=a change was found');
    await p.waitForSelector('[data-testid=event-type]');
    expect(await p.textContent('table[aria-label=Deliveries] [data-testid=event-type]')).toBe('change.detected');
    await shot(p, '08-monitor-deliveries');

    expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    await context.close();
  }, 180_000);

  it('the job forms are CSRF-protected like every dashboard form', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const creds = `email=${encodeURIComponent('tabs@example.com')}&password=${encodeURIComponent('correct horse battery')}`;
    const login = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    for (const path of ['/jobs/crawl', '/jobs/batch', '/playground/crawl', '/playground/map', '/playground/extract']) {
      const res = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { ...form, cookie, origin: svc.url },
        body: `url=${encodeURIComponent(`${site.url}/shop/`)}&urls=${encodeURIComponent(`${site.url}/shop/lamp`)}`,
      });
      expect(res.status, path).toBe(403);
    }
  });

  it('the new pages pass an accessibility audit (axe-core, WCAG 2 A/AA: no serious or critical violation)', async () => {
    // bypassCSP: only so the audit script can be injected.
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, bypassCSP: true });
    const p = await context.newPage();
    await p.goto(`${svc.url}/login`);
    await p.fill('#email', 'tabs@example.com');
    await p.fill('#password', 'correct horse battery');
    await p.click('button[type=submit]');
    await p.waitForURL(`${svc.url}/`);
    for (const path of [
      '/playground',
      '/playground/crawl',
      '/playground/map',
      '/playground/search',
      '/playground/extract',
      '/jobs',
    ]) {
      await p.goto(`${svc.url}${path}`);
      await p.addScriptTag({ path: AXE });
      const found = await p.evaluate(async () => {
        const r = await (
          window as unknown as {
            axe: {
              run(
                ctx: Document,
                o: object,
              ): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }>;
            };
          }
        ).axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] });
        return r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.nodes.length})`);
      });
      expect({ path, violations: found }).toEqual({ path, violations: [] });
    }
    await context.close();
  }, 60_000);
});
