/**
 * The scrape result cache (`max_age`, contract section 9) and the files store, on SQLite and on
 * PostgreSQL: hit and miss, what changes the key, isolation between accounts (results made with
 * headers, cookies or actions are the asking account's own), a hit still costs its credit, and in
 * a scale-out a second API process on the same database serves the first one's files and cache.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { prune } from '../../src/monitors/retention.js';
import { startService, type Service } from '../../src/runtime.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();

describe.each(DIALECTS)('scrape cache and files (%s)', (dialect) => {
  let site: FixtureServer;
  let svc: TestService;

  beforeAll(async () => {
    site = await startFixtureServer();
    for (const p of ['/a', '/b', '/c', '/d', '/e', '/f', '/shot', '/shot-host'])
      site.route(
        p,
        articlePage(`Page ${p}`, `<p>The words of page ${p}, enough of them to be the article's content.</p>`),
      );
    svc = await startTestService(dialect);
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const scrape = async (key: string, body: Record<string, unknown>, on: { url: string } = svc) => {
    const res = await fetch(`${on.url}/v1/scrape`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('a miss fetches and stores, a hit within max_age fetches nothing and still costs one credit', async () => {
    const { key, accountId } = await svc.newKey(10);
    const url = `${site.url}/a`;
    const miss = await scrape(key, { url, max_age: 60_000 });
    expect(miss.status).toBe(200);
    expect(miss.body.metadata.cache).toBe('miss');
    expect(miss.body.metadata.cached_at).toBeUndefined();
    expect(site.hits('/a')).toBe(1);
    const hit = await scrape(key, { url, max_age: 60_000 });
    expect(hit.body.metadata).toMatchObject({ cache: 'hit', cached_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(hit.body.markdown).toBe(miss.body.markdown);
    expect(site.hits('/a')).toBe(1);
    expect(await svc.credits(accountId)).toBe(8);
    // Too old for this caller: fetched again (and stored anew).
    await new Promise((r) => setTimeout(r, 30));
    const stale = await scrape(key, { url, max_age: 20 });
    expect(stale.body.metadata.cache).toBe('miss');
    expect(site.hits('/a')).toBe(2);
  });

  it('without max_age nothing is read or stored; options that change the result change the key', async () => {
    const { key } = await svc.newKey(10);
    const url = `${site.url}/b`;
    const plain = await scrape(key, { url });
    expect(plain.body.metadata.cache).toBeUndefined();
    expect((await scrape(key, { url, max_age: 60_000 })).body.metadata.cache).toBe('miss');
    expect(site.hits('/b')).toBe(2);
    expect((await scrape(key, { url, max_age: 60_000, formats: ['links'] })).body.metadata.cache).toBe('miss');
    expect((await scrape(key, { url, max_age: 60_000, only_main_content: false })).body.metadata.cache).toBe('miss');
    expect((await scrape(key, { url, max_age: 60_000, mobile: true })).body.metadata.cache).toBe('miss');
    expect(site.hits('/b')).toBe(5);
    // The same options in another order and header names in another case are the same key.
    expect((await scrape(key, { max_age: 60_000, formats: ['links'], url })).body.metadata.cache).toBe('hit');
    await scrape(key, { url, max_age: 60_000, headers: { 'X-A': '1' } });
    expect((await scrape(key, { url, max_age: 60_000, headers: { 'x-a': '1' } })).body.metadata.cache).toBe('hit');
    expect(site.hits('/b')).toBe(6);
  });

  it("shares plain results between accounts, never one made with an account's headers or cookies", async () => {
    const a = await svc.newKey(10);
    const b = await svc.newKey(10);
    const url = `${site.url}/c`;
    expect((await scrape(a.key, { url, max_age: 60_000 })).body.metadata.cache).toBe('miss');
    expect((await scrape(b.key, { url, max_age: 60_000 })).body.metadata.cache).toBe('hit');
    expect(site.hits('/c')).toBe(1);
    const withCookie = { url, max_age: 60_000, cookies: [{ name: 'session', value: 'a-secret' }] };
    expect((await scrape(a.key, withCookie)).body.metadata.cache).toBe('miss');
    expect((await scrape(a.key, withCookie)).body.metadata.cache).toBe('hit');
    // The same cookie from another account: its own fetch.
    expect((await scrape(b.key, withCookie)).body.metadata.cache).toBe('miss');
    const withHeader = { url, max_age: 60_000, headers: { Authorization: 'Bearer a' } };
    expect((await scrape(a.key, withHeader)).body.metadata.cache).toBe('miss');
    expect((await scrape(b.key, withHeader)).body.metadata.cache).toBe('miss');
    expect(site.hits('/c')).toBe(5);
  });

  it('prunes the oldest entries over TRAWL_CACHE_MAX_MB and expired files', async () => {
    const { key } = await svc.newKey(10);
    for (const p of ['/d', '/e', '/f']) {
      await scrape(key, { url: `${site.url}${p}`, max_age: 60_000 });
      await new Promise((r) => setTimeout(r, 5));
    }
    const rows = async () =>
      (await svc.store.db.selectFrom('result_cache').select(['key', 'bytes']).orderBy('created_at').execute()).length;
    const before = await rows();
    const newest = await svc.store.db
      .selectFrom('result_cache')
      .select('bytes')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    const s = await prune(svc.store, { retentionDays: 30, cacheMaxBytes: Number(newest.bytes) });
    expect(s.cacheEntries).toBe(before - 1);
    expect(await rows()).toBe(1);
    expect((await scrape(key, { url: `${site.url}/f`, max_age: 60_000 })).body.metadata.cache).toBe('hit');
    expect((await scrape(key, { url: `${site.url}/d`, max_age: 60_000 })).body.metadata.cache).toBe('miss');
  });

  it.skipIf(!chromium)(
    'a screenshot is served from the store by any process until it expires; a cached result keeps its URL',
    async () => {
      const { key } = await svc.newKey(10);
      const url = `${site.url}/shot`;
      const first = await scrape(key, { url, formats: ['screenshot'], max_age: 60_000 });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const again = await scrape(key, { url, formats: ['screenshot'], max_age: 60_000 });
      expect(again.body.metadata.cache).toBe('hit');
      expect(again.body.screenshot).toBe(first.body.screenshot);
      const png = await fetch(first.body.screenshot);
      expect(png.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await png.arrayBuffer());
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      // Its bytes are in the file store, under the data folder.
      const id = new URL(first.body.screenshot).pathname.split('/').pop()!.split('.')[0];
      const onDisk = join(svc.config.filesDir, id.slice(0, 2), id);
      expect(existsSync(onDisk)).toBe(true);
      // Another API process on the same database (scale-out) serves the same file and the same cache.
      let other: Service | undefined;
      const dataDir = mkdtempSync(join(tmpdir(), 'trawl-other-'));
      try {
        if (dialect === 'postgres') {
          other = await startService(
            loadConfig({
              PORT: '0',
              HOST: '127.0.0.1',
              TRAWL_DATA_DIR: dataDir,
              TRAWL_ALLOW_PRIVATE_NETWORK: '1',
              DATABASE_URL: svc.config.databaseUrl!,
              // The processes of a scale-out share the file store's folder.
              TRAWL_FILES_DIR: svc.config.filesDir,
            }),
            { logger: false, scheduler: false },
          );
          const path = new URL(first.body.screenshot).pathname;
          const served = await fetch(`${other.url}${path}`);
          expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
          expect(
            (await scrape(key, { url, formats: ['screenshot'], max_age: 60_000 }, other)).body.metadata.cache,
          ).toBe('hit');
        }
        // Past its retention the file is gone, for every process, and the cached result with it.
        const later = new Date(Date.now() + (svc.config.fileRetentionHours + 1) * 3600_000);
        expect((await fetch(first.body.screenshot)).status).toBe(200);
        const s = await prune(svc.store, { retentionDays: 30, now: later });
        expect(s.files).toBeGreaterThanOrEqual(1);
        expect(s.cacheEntries).toBeGreaterThanOrEqual(1);
        expect((await fetch(first.body.screenshot)).status).toBe(404);
        expect(existsSync(onDisk)).toBe(false);
      } finally {
        await other?.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it.skipIf(!chromium)(
    "a cached screenshot's URL is on the address of the request that reads it, not of the one that made it",
    async () => {
      const a = await svc.newKey(10);
      const b = await svc.newKey(10);
      const url = `${site.url}/shot-host`;
      // A request with a forged Host header (no TRAWL_PUBLIC_URL): its answer names that host…
      const forged = await new Promise<Record<string, any>>((resolve, reject) => {
        const req = httpRequest(
          `${svc.url}/v1/scrape`,
          {
            method: 'POST',
            headers: { host: 'evil.example', 'content-type': 'application/json', authorization: `Bearer ${a.key}` },
          },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve(JSON.parse(text)));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ url, formats: ['screenshot'], max_age: 60_000 }));
      });
      expect(forged.screenshot).toMatch(/^http:\/\/evil\.example\/v1\/files\//);
      // …but another account's hit on the shared entry gets the file on the address it asked.
      const hit = await scrape(b.key, { url, formats: ['screenshot'], max_age: 60_000 });
      expect(hit.body.metadata.cache).toBe('hit');
      expect(hit.body.screenshot).toBe(`${svc.url}${new URL(forged.screenshot).pathname}`);
      expect((await fetch(hit.body.screenshot)).status).toBe(200);
    },
    60_000,
  );
});
