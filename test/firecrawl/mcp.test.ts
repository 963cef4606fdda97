/**
 * Firecrawl's official MCP server (firecrawl-mcp, with its own @mendable/firecrawl-js), started
 * over stdio with FIRECRAWL_API_URL = {trawl}/firecrawl and a Trawl key, driven by the official
 * MCP SDK client: it lists its tools, and scrape, map, search, crawl and extract answer with the
 * local fixture site's content, charged to the Trawl account.
 */
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startTestSite, type TestSite } from './site.js';

const MCP_BIN = createRequire(import.meta.url).resolve('firecrawl-mcp/dist/index.js');

let svc: TestService;
let t: TestSite;
let accountId: string;
let client: Client;
let stderr = '';

beforeAll(async () => {
  t = await startTestSite();
  svc = await startTestService('sqlite', { SEARXNG_URL: t.searx.url });
  const k = await svc.newKey(50);
  accountId = k.accountId;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_BIN],
    env: { FIRECRAWL_API_URL: `${svc.url}/firecrawl`, FIRECRAWL_API_KEY: k.key },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  client = new Client({ name: 'trawl-firecrawl-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await svc?.stop();
  await t?.close();
});

const text = (r: CallToolResult) =>
  (r.content as { type: string; text: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
async function call(name: string, args: Record<string, unknown>) {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  if (r.isError) throw new Error(`${name} failed: ${text(r)}\n${stderr}`);
  return JSON.parse(text(r));
}

describe('firecrawl-mcp over stdio against Trawl', () => {
  it('lists its tools', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    for (const n of ['firecrawl_scrape', 'firecrawl_map', 'firecrawl_search', 'firecrawl_crawl', 'firecrawl_extract'])
      expect(names).toContain(n);
  });

  it('scrapes a page to markdown', async () => {
    const before = await svc.credits(accountId);
    const doc = await call('firecrawl_scrape', {
      url: `${t.site.url}/blog/tides`,
      formats: ['markdown'],
      onlyMainContent: true,
    });
    expect(doc.markdown).toContain('gravitational pull of the Moon');
    expect(doc.metadata).toMatchObject({
      sourceURL: `${t.site.url}/blog/tides`,
      statusCode: 200,
      title: 'Why tides turn',
    });
    expect(await svc.credits(accountId)).toBe(before - 1);
  });

  it('scrapes json with jsonOptions', async () => {
    const doc = await call('firecrawl_scrape', {
      url: `${t.site.url}/product/anchor`,
      formats: ['json'],
      jsonOptions: { schema: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } } } },
    });
    expect(doc.json).toEqual({ name: 'Galvanised Anchor', price: 129.5 });
  });

  it('maps the site', async () => {
    const r = await call('firecrawl_map', { url: t.site.url, search: 'docs' });
    const urls = r.links.map((l: { url: string }) => l.url);
    expect(urls.slice(0, 2).sort()).toEqual([`${t.site.url}/docs/intro`, `${t.site.url}/docs/setup`]);
    expect(urls).toContain(`${t.site.url}/blog/tides`);
  });

  it('searches, scraping the results when asked', async () => {
    const r = await call('firecrawl_search', {
      query: 'tides moon',
      limit: 2,
      sources: [{ type: 'web' }],
      scrapeOptions: { formats: ['markdown'] },
    });
    expect(r.success).toBe(true);
    expect(r.data.web[0]).toMatchObject({ url: `${t.site.url}/blog/tides`, title: 'Why tides turn' });
    expect(r.data.web[0].markdown).toContain('gravitational pull of the Moon');
  });

  it('crawls (the tool waits for the job) and extracts', async () => {
    const c = await call('firecrawl_crawl', { url: `${t.site.url}/docs/intro`, limit: 5, sitemap: 'skip' });
    expect(c.status).toBe('completed');
    const urls = c.data.map((d: { metadata: { sourceURL: string } }) => d.metadata.sourceURL).sort();
    expect(urls).toEqual([`${t.site.url}/docs/intro`]);
    expect(c.data[0].markdown).toContain('how the harbour tools fit together');
    const e = await call('firecrawl_extract', {
      urls: [`${t.site.url}/product/anchor`],
      schema: { type: 'object', properties: { sku: { type: 'string' } } },
    });
    expect(e).toMatchObject({ success: true, data: { sku: 'ANC-12' } });
  });

  it("passes Trawl's named refusal back to the agent", async () => {
    const r = (await client.callTool({
      name: 'firecrawl_scrape',
      arguments: { url: `${t.site.url}/`, formats: ['markdown'], includeTags: ['main'] },
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('includeTags: not supported');
  });
});
