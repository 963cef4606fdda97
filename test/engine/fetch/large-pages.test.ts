/** Admission for large pages: small pages never wait; large ones take turns, within their deadline. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LargePageGate } from '../../../src/engine/fetch/large-pages.js';
import { fetchPage, releasePage } from '../../../src/engine/fetch/page.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

let site: FixtureServer;
let http: HttpClient;
const big = `<html><body>${'<p>large page text</p>'.repeat(20_000)}</body></html>`;
beforeAll(async () => {
  site = await startFixtureServer({ '/big': big, '/small': '<html><body><p>small</p></body></html>' });
  http = new HttpClient({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await http?.close();
  await site?.close();
});

describe('large page admission', () => {
  it('lets small pages through while every slot is taken, and makes a large page wait for a slot', async () => {
    const gate = new LargePageGate(64 * 1024, 1);
    const fetchers = { http, largePages: gate };
    const first = await fetchPage(fetchers, `${site.url}/big`);
    expect(first.text).toBe(big);
    expect(gate.active).toBe(1);
    // A small page does not wait.
    expect((await fetchPage(fetchers, `${site.url}/small`)).text).toContain('small');
    // A second large page waits until the first is released.
    let done = false;
    const second = fetchPage(fetchers, `${site.url}/big`).then((p) => ((done = true), p));
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    releasePage(first);
    const page = await second;
    expect(page.text).toBe(big);
    releasePage(page);
    expect(gate.active).toBe(0);
  });

  it('gives up waiting when the request times out, and leaves no slot taken', async () => {
    const gate = new LargePageGate(64 * 1024, 1);
    const fetchers = { http, largePages: gate };
    const first = await fetchPage(fetchers, `${site.url}/big`);
    // The site answered at once: the error names what the page waited for, not the site.
    const late = await fetchPage(fetchers, `${site.url}/big`, { timeoutMs: 300 }).catch(
      (e: Error & { detail?: string }) => e,
    );
    expect(late).toMatchObject({ code: 'timeout' });
    expect((late as { detail?: string }).detail).toMatch(
      /large-page slots of this server \(TRAWL_LARGE_PAGES\) stayed busy/,
    );
    expect((late as { detail?: string }).detail).not.toMatch(/did not answer/);
    releasePage(first);
    expect(gate.active).toBe(0);
    const again = await fetchPage(fetchers, `${site.url}/big`);
    releasePage(again);
    expect(gate.active).toBe(0);
  });

  it("counts every page's bytes: over the budget, a new page waits before it is fetched, within its time budget", async () => {
    const gate = new LargePageGate(10 * 1024 * 1024, 4, 64 * 1024);
    const fetchers = { http, largePages: gate };
    const held = await fetchPage(fetchers, `${site.url}/big`);
    expect(gate.bytes).toBe(big.length);
    const before = site.hits('/small');
    await expect(fetchPage(fetchers, `${site.url}/small`, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'timeout',
      detail: expect.stringMatching(/waited/),
    });
    // It was never sent.
    expect(site.hits('/small')).toBe(before);
    let done = false;
    const next = fetchPage(fetchers, `${site.url}/small`).then((p) => ((done = true), p));
    await new Promise((r) => setTimeout(r, 200));
    expect(done).toBe(false);
    releasePage(held);
    const page = await next;
    expect(page.text).toContain('small');
    releasePage(page);
    expect(gate.bytes).toBe(0);
  });

  it('stops waiting when the caller goes away', async () => {
    const gate = new LargePageGate(10, 1);
    expect(gate.tryTake()).toBe(true);
    const ctl = new AbortController();
    const waiting = gate.take(ctl.signal);
    ctl.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    gate.give();
    expect(gate.active).toBe(0);
  });
});
