/**
 * A job's clearance cookie (issue 42): the JS interstitial (the eval:walls replica, Cloudflare's
 * "Just a moment…") is cleared once in Chromium; the job's next pages on that host carry the
 * cookie it set and are plain HTTP requests — one challenge, not one per page. Another job's jar
 * is its own: it is challenged again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { ClearanceJar } from '../../../src/engine/fetch/clearance.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { fetchPage, type Fetchers } from '../../../src/engine/fetch/page.js';
import { ARTICLE_TEXT, startWall, type WallServer } from '../../helpers/walls.js';

const chromium = findChromium();
const noDns = async (): Promise<{ address: string }[]> => {
  throw Object.assign(new Error('no DNS in tests'), { code: 'ENOTFOUND' });
};

describe.skipIf(!chromium)("a job's clearance cookie goes to its next pages on the host", () => {
  let wall: WallServer;
  let http: HttpClient;
  let fetchers: Fetchers;
  beforeAll(async () => {
    wall = await startWall('js-challenge');
    http = new HttpClient({ allowPrivateNetwork: true, lookup: noDns });
    fetchers = { http, browser: new ChromiumPool({ http }) };
  });
  afterAll(async () => {
    await fetchers?.browser?.close();
    await http?.close();
    await wall?.close();
  });

  it('one challenge for a job of three pages; another job is challenged on its own', async () => {
    const jar = new ClearanceJar();
    const tiers: string[][] = [];
    for (const path of ['/', '/a', '/b']) {
      const page = await fetchPage(fetchers, `${wall.url}${path}`, { timeoutMs: 20_000, jar });
      expect(page.text).toContain(ARTICLE_TEXT);
      tiers.push(page.tiersTried ?? []);
    }
    // The first page climbed to the browser; the next two were plain HTTP with the cookie.
    expect(tiers).toEqual([['basic', 'browser'], ['basic'], ['basic']]);
    expect(jar.hosts).toBe(1);
    // Another job (its own jar) and a request with none: both meet the challenge again.
    const other = await fetchPage(fetchers, `${wall.url}/a`, { timeoutMs: 20_000, jar: new ClearanceJar() });
    expect(other.tiersTried).toEqual(['basic', 'browser']);
    const none = await fetchPage(fetchers, `${wall.url}/b`, { timeoutMs: 20_000 });
    expect(none.tiersTried).toEqual(['basic', 'browser']);
  }, 90_000);
});
