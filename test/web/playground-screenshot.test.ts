/** The dashboard playground shows the screenshot a scrape took (contract section 9), from the files store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe.skipIf(!findChromium())('playground screenshot', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/lamp': articlePage('Lamp', '<p>A brass lamp for the desk, with warm light for reading late.</p>'),
    });
    svc = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('takes a screenshot with the scrape and shows it', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const creds = `email=${encodeURIComponent('pia@example.com')}&password=longenough1`;
    await fetch(`${svc.url}/signup`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const login = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const csrf = /name="csrf" value="([^"]+)"/.exec(
      await (await fetch(`${svc.url}/playground`, { headers: { cookie } })).text(),
    )![1];
    const body = new URLSearchParams([
      ['csrf', csrf],
      ['url', `${site.url}/lamp`],
      ['formats', 'markdown'],
      ['formats', 'screenshot'],
    ]).toString();
    const page = await (
      await fetch(`${svc.url}/playground`, { method: 'POST', headers: { ...form, cookie, origin: svc.url }, body })
    ).text();
    const src = /<img data-testid="screenshot" alt="Screenshot of the page" src="([^"]+)"/.exec(page)?.[1];
    expect(src, page.slice(0, 2000)).toMatch(/^\/v1\/files\/[0-9A-Za-z]{32}\.png$/);
    const png = await fetch(`${svc.url}${src}`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(page).toContain('brass lamp');
  }, 60_000);
});
