/**
 * `trawl mcp` without TRAWL_API_URL: the service runs inside the MCP server (SQLite in
 * TRAWL_DATA_DIR) and the tools call it over HTTP with a local account's key, kept in the data
 * dir and reused on the next start. stdout carries MCP messages only. When `trawl serve` already
 * holds the store, the MCP server shares it and that process runs the crawl jobs.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOCAL_EMAIL, defaultDataDir } from '../../src/mcp/local.js';
import { startService } from '../../src/runtime.js';
import { accounts, keys, openStore } from '../../src/store/index.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { connectStdio, type ToolAnswer } from './mcp-client.js';

let site: FixtureServer;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'trawl-mcp-'));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  site = await startFixtureServer({
    '/': articlePage('Local page', '<p>A page served on 127.0.0.1 for the in-process service to read.</p>'),
    '/site/': articlePage(
      'Site',
      `<p>Index.</p>${Array.from({ length: 24 }, (_, i) => `<a href="/site/${i}">S${i}</a>`).join(' ')}`,
    ),
  });
  for (let i = 0; i < 24; i++)
    site.route(`/site/${i}`, articlePage(`S${i}`, `<p>Site page ${i}, with a sentence of its own.</p>`));
});
afterAll(async () => {
  await site?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('trawl mcp in process (no TRAWL_API_URL)', () => {
  it('scrapes through its own service, keeps stdout for MCP, and reuses its key on the next start', async () => {
    const dataDir = tempDir();
    const env = { TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1' };
    const first = await connectStdio(env);
    const r = (await first.client.callTool({ name: 'scrape', arguments: { url: `${site.url}/` } })) as ToolAnswer;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ title: 'Local page', metadata: { status_code: 200 } });
    expect(r.structuredContent.markdown).toContain('for the in-process service to read');
    expect(first.stderr()).toMatch(/in-process Trawl service on http:\/\/127\.0\.0\.1:\d+/);
    expect(first.clientErrors).toEqual([]);
    await first.close();

    const keyFile = join(dataDir, 'mcp-key');
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(key).toMatch(/^trawl_/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(first.stderr()).not.toContain(key);

    const second = await connectStdio(env);
    const again = (await second.client.callTool({ name: 'scrape', arguments: { url: `${site.url}/` } })) as ToolAnswer;
    expect(again.isError).toBeFalsy();
    await second.close();
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(key);

    // Once both have stopped: one local account, one key, two scrapes charged to it.
    const store = await openStore({ dataDir });
    try {
      const acc = (await accounts.findAccountByEmail(store.db, LOCAL_EMAIL))!;
      expect(await keys.listKeys(store.db, acc.id)).toHaveLength(1);
      expect(Number(acc.credits)).toBe(1_000_000_000 - 2);
    } finally {
      await store.close();
    }
  });

  it('makes its data dir readable by its owner only (the store holds the signing secret)', async () => {
    const dataDir = join(tempDir(), 'new', 'trawl');
    const s = await connectStdio({ TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1' });
    const r = (await s.client.callTool({ name: 'scrape', arguments: { url: `${site.url}/` } })) as ToolAnswer;
    expect(r.isError).toBeFalsy();
    await s.close();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'mcp-key')).mode & 0o777).toBe(0o600);
  });

  it('a private address is refused unless TRAWL_ALLOW_PRIVATE_NETWORK is set', async () => {
    const s = await connectStdio({ TRAWL_DATA_DIR: tempDir() });
    try {
      const r = (await s.client.callTool({ name: 'scrape', arguments: { url: `${site.url}/` } })) as ToolAnswer;
      expect(r.isError).toBe(true);
      expect(JSON.parse((r.content as { text: string }[])[0].text)).toMatchObject({ error: 'forbidden_target' });
    } finally {
      await s.close();
    }
  });

  it('shares a store that `trawl serve` holds: that process runs the crawl job', async () => {
    const dataDir = tempDir();
    const serve = await startService(
      loadConfig({ PORT: '0', HOST: '127.0.0.1', TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1' }),
      { logger: false },
    );
    try {
      const s = await connectStdio({ TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1' });
      try {
        const r = (await s.client.callTool({
          name: 'crawl',
          arguments: { url: `${site.url}/site/`, limit: 25, max_depth: 1, use_sitemap: false },
        })) as ToolAnswer;
        expect(r.structuredContent.job).toMatchObject({ state: 'completed', progress: { done: 25, failed: 0 } });
        expect(s.stderr()).toMatch(/another trawl process \(pid \d+\) is serving .*: sharing its store/);
        expect(s.clientErrors).toEqual([]);
      } finally {
        await s.close();
      }
    } finally {
      await serve.close();
    }
  });

  it('keeps its data in the user data dir by default', () => {
    expect(defaultDataDir({ XDG_DATA_HOME: '/x/share' }, 'linux')).toBe('/x/share/trawl');
    expect(defaultDataDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toMatch(/AppData.Local.trawl$/);
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/trawl$/);
  });
});
