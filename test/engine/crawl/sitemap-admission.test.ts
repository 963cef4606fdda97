/**
 * A crawl's sitemap files (up to 50 MB each, gzip or not) are fetched like pages: holding one
 * of the owner's fetch slots and admission under the large-page gate, so concurrent crawls
 * cannot hold sitemap bodies past TRAWL_ACCOUNT_CONCURRENCY or the page-bytes budget.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSitemaps } from '../../../src/engine/crawl/index.js';
import { HttpClient } from '../../../src/engine/fetch/http.js';
import { LargePageGate } from '../../../src/engine/fetch/large-pages.js';
import { OwnerSlots } from '../../../src/engine/fetch/owner-slots.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

let site: FixtureServer;
let http: HttpClient;
const urlset = (u: string) =>
  `<urlset>${Array.from({ length: 2000 }, (_, i) => `<url><loc>${u}/p/${i}</loc></url>${' '.repeat(60)}`).join('')}</urlset>`;
beforeAll(async () => {
  site = await startFixtureServer();
  site.route(
    '/sitemap.xml',
    (_q, res) => void res.writeHead(200, { 'content-type': 'application/xml' }).end(urlset(site.url)),
  );
  site.route(
    '/sitemap.xml.gz',
    (_q, res) => void res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(urlset(site.url))),
  );
  http = new HttpClient({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await http?.close();
  await site?.close();
});

describe('sitemap files and the shared limits', () => {
  it('a sitemap past the large-page size (plain or unpacked) waits for a large-page slot, within its time budget', async () => {
    const gate = new LargePageGate(64 * 1024, 1);
    expect(gate.tryTake()).toBe(true); // another page holds the only slot
    // The slot is not given back until after this loop: only the 400 ms budget can end each wait
    // (no ms assert; a wait that ignored it would hang the test past its own timeout).
    for (const path of ['/sitemap.xml', '/sitemap.xml.gz']) {
      expect(
        await readSitemaps(http, [`${site.url}${path}`], { timeoutMs: 400, fetchers: { largePages: gate } }),
      ).toEqual([]);
    }
    gate.give();
    for (const path of ['/sitemap.xml', '/sitemap.xml.gz']) {
      expect(
        await readSitemaps(http, [`${site.url}${path}`], { timeoutMs: 5000, fetchers: { largePages: gate } }),
      ).toHaveLength(2000);
    }
    expect(gate.active).toBe(0);
    expect(gate.bytes).toBe(0);
  });

  it('a sitemap takes one of its owner’s fetch slots, and gives it back', async () => {
    const owners = new OwnerSlots(1);
    const slots = owners.for('acc_a');
    const give = await slots.acquire();
    expect(await readSitemaps(http, [`${site.url}/sitemap.xml`], { timeoutMs: 300, fetchers: { slots } })).toEqual([]);
    give();
    expect(
      await readSitemaps(http, [`${site.url}/sitemap.xml`], { timeoutMs: 5000, fetchers: { slots } }),
    ).toHaveLength(2000);
    expect(owners.active('acc_a')).toBe(0);
    expect(owners.owners).toBe(0);
  });
});
