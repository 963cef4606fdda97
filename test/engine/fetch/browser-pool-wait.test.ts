/**
 * Chromium's render slots are shared by every account: a render waiting for one waits within
 * its own time budget and leaves the line when its caller goes away, instead of waiting for
 * whatever holds the slots (up to their own budgets) and rendering late for nobody.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChromiumPool, findChromium } from '../../../src/engine/fetch/browser.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

describe.skipIf(!findChromium())('waiting for a Chromium render slot', () => {
  let site: FixtureServer;
  let pool: ChromiumPool;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/hang': () => undefined, // never answers
      '/fine': articlePage('Fine', '<p>A page that loads at once, with text enough to be an article.</p>'),
    });
    pool = new ChromiumPool({ http: new HttpClient({ allowPrivateNetwork: true }), maxConcurrent: 1 });
  });
  afterAll(async () => {
    await pool.close();
    await site.close();
  });

  it('ends at the waiting render’s own deadline (504), or when its caller aborts, and leaks no slot', async () => {
    // Order, not ms: each waiter must settle while the hog still holds the only slot.
    let hogDone = false;
    const hog = pool
      .render(`${site.url}/hang`, { timeoutMs: 8000 })
      .catch((e: unknown) => e)
      .finally(() => (hogDone = true));
    await new Promise((r) => setTimeout(r, 300));

    const late = await pool.render(`${site.url}/fine`, { timeoutMs: 1500 }).catch((e: unknown) => e);
    expect(hogDone).toBe(false);
    expect(late).toMatchObject({ code: 'timeout', status: 504 });
    expect(String((late as Error).message ?? '')).toMatch(/Chromium render slots/);

    const gone = new AbortController();
    const waiting = pool
      .render(`${site.url}/fine`, { timeoutMs: 20_000, signal: gone.signal })
      .catch((e: unknown) => e);
    setTimeout(() => gone.abort(new Error('client went away')), 300);
    expect(await waiting).toMatchObject({ message: 'client went away' });
    expect(hogDone).toBe(false);

    // Neither left the line holding a slot: once the hog is done, a render gets the slot.
    await hog;
    const ok = await pool.render(`${site.url}/fine`, { timeoutMs: 15_000 });
    expect(ok.html).toContain('Fine');
    expect(site.hits('/fine')).toBe(1);
  }, 40_000);
});
