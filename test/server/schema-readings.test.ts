/**
 * A short form whose fields are named `type` and `properties` is read as that short form, and a
 * JSON Schema with fields of those names as JSON Schema, on every surface that takes a schema:
 * /v1 scrape, extract, crawl, batch and monitors, /firecrawl (JSON Schema only), the dashboard's
 * playground, the CLI's --schema and MCP (docs/API.md, "Schemas": which form a schema is).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { jobClient } from '../helpers/job-client.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { BIN, connectStdio, type ToolAnswer } from '../mcp/mcp-client.js';

const FLAT = `<html><head><title>Flat 4B</title></head><body><main><h1>Flat 4B</h1>
<p>A bright flat on the fourth floor, close to the station and the park.</p>
<dl><dt>Type</dt><dd>Apartment</dd><dt>Properties</dt><dd>Balcony and lift</dd><dt>City</dt><dd>Lyon</dd></dl></main></body></html>`;

/** Two fields, named like JSON Schema keywords. */
const SHORT = { type: 'string', properties: 'string' };
/** The same two fields, written as JSON Schema. */
const JSON_SCHEMA = {
  type: 'object',
  properties: { type: { type: 'string' }, properties: { type: 'string' } },
};
/** A short form whose `properties` holds objects: JSON Schema's shape, but its values are no schema nodes. */
const NESTED = { type: 'string', properties: { address: { city: 'string' } } };
const WANTED = { type: 'Apartment', properties: 'Balcony and lift' };
const READINGS = [
  ['short form', SHORT, WANTED],
  ['JSON Schema', JSON_SCHEMA, WANTED],
  [
    'short form with objects under properties',
    NESTED,
    { type: 'Apartment', properties: { address: { city: 'Lyon' } } },
  ],
] as const;

let site: FixtureServer;
let svc: TestService;
let dir: string;

beforeAll(async () => {
  site = await startFixtureServer({ '/flat': FLAT, '/hook': (_q, res) => res.writeHead(200).end('ok') });
  svc = await startTestService('sqlite');
  dir = mkdtempSync(join(tmpdir(), 'trawl-readings-'));
});
afterAll(async () => {
  await svc?.stop();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(READINGS)('a schema with fields named type and properties, as %s', (_name, schema, WANTED) => {
  it('is read so on /v1/scrape and /v1/extract', async () => {
    const { key } = await svc.newKey(5);
    const scrape = await svc.post('/v1/scrape', { url: `${site.url}/flat`, schema }, key);
    const s = await scrape.json();
    expect(scrape.status, JSON.stringify(s)).toBe(200);
    expect(s.json).toEqual(WANTED);
    const extract = await svc.post('/v1/extract', { urls: [`${site.url}/flat`], schema }, key);
    const e = await extract.json();
    expect(extract.status, JSON.stringify(e)).toBe(200);
    expect(e.data).toEqual(WANTED);
  });

  it('is read so by crawl and batch jobs', async () => {
    const { key } = await svc.newKey(5);
    const jobs = jobClient(svc.url, key);
    const crawl = await jobs.call('POST', '/v1/crawl', {
      url: `${site.url}/flat`,
      limit: 1,
      async: true,
      formats: ['json'],
      schema,
    });
    expect(crawl.job?.job_id, JSON.stringify(crawl)).toBeTruthy();
    const batch = await jobs.call('POST', '/v1/batch/scrape', {
      urls: [`${site.url}/flat`],
      formats: ['json'],
      schema,
    });
    expect(batch.job?.job_id, JSON.stringify(batch)).toBeTruthy();
    for (const id of [crawl.job.job_id, batch.job.job_id]) {
      expect((await jobs.finished(id, 60_000)).state).toBe('completed');
      expect((await jobs.pages(id)).map((p) => p.json)).toEqual([WANTED]);
    }
  });

  it('is read so by a monitor, which watches both fields', async () => {
    const { key } = await svc.newKey(5);
    const jobs = jobClient(svc.url, key);
    const made = await jobs.call('POST', '/v1/monitors', {
      url: `${site.url}/flat`,
      interval: '1h',
      watch: ['type', 'properties'],
      webhook: `${site.url}/hook`,
      schema,
    });
    expect(made.monitor?.watch, JSON.stringify(made)).toEqual(['type', 'properties']);
    const run = (await jobs.call('POST', `/v1/monitors/${made.monitor.monitor_id}/run`, {})).run;
    expect(run.values, JSON.stringify(run)).toEqual(WANTED);
  });

  it('is read so by the dashboard playground', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const email = `readings-${Math.random().toString(36).slice(2)}@example.com`;
    const creds = `email=${encodeURIComponent(email)}&password=longenough1`;
    await fetch(`${svc.url}/signup`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const login = await fetch(`${svc.url}/login`, { method: 'POST', redirect: 'manual', headers: form, body: creds });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const page = await (await fetch(`${svc.url}/playground`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1];
    const body = new URLSearchParams([
      ['csrf', csrf],
      ['url', `${site.url}/flat`],
      ['formats', 'json'],
      ['schema', JSON.stringify(schema)],
    ]).toString();
    const res = await fetch(`${svc.url}/playground`, {
      method: 'POST',
      headers: { ...form, cookie, origin: svc.url },
      body,
    });
    const html = await res.text();
    expect(res.status, html.slice(0, 2000)).toBe(200);
    // The answer is shown as indented JSON, HTML-escaped: each leaf as "key": "value".
    const shown = JSON.stringify(WANTED, null, 2).replace(/"/g, '&quot;');
    expect(html).toContain(shown.slice(1, -1).trim());
  });

  it('is read so by the CLI (--schema) and by MCP', async () => {
    const file = join(dir, `schema-${_name.replace(/\W/g, '')}.json`);
    writeFileSync(file, JSON.stringify(schema));
    const cli = await promisify(execFile)(
      process.execPath,
      [BIN, '--json', 'scrape', `${site.url}/flat`, '--schema', file],
      { env: { ...process.env, TRAWL_DATA_DIR: dir, TRAWL_ALLOW_PRIVATE_NETWORK: '1', DATABASE_URL: '' } },
    );
    expect(JSON.parse(cli.stdout).json).toEqual(WANTED);

    const { key } = await svc.newKey(5);
    const mcp = await connectStdio({ TRAWL_API_URL: svc.url, TRAWL_API_KEY: key });
    try {
      const r = (await mcp.client.callTool({
        name: 'extract',
        arguments: { urls: [`${site.url}/flat`], schema },
      })) as ToolAnswer;
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(r.structuredContent.data).toEqual(WANTED);
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

describe('/firecrawl, which takes JSON Schema only', () => {
  it('reads fields named type and properties, and refuses the short form naming JSON Schema', async () => {
    const { key, accountId } = await svc.newKey(5);
    const call = (schema: unknown) =>
      fetch(`${svc.url}/firecrawl/v2/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${site.url}/flat`, formats: [{ type: 'json', schema }] }),
      });
    const ok = await call(JSON_SCHEMA);
    const body = await ok.json();
    expect(ok.status, JSON.stringify(body)).toBe(200);
    expect(body.data.json).toEqual(WANTED);
    const before = await svc.credits(accountId);
    const refused = await call(SHORT);
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('object schema');
    expect(await svc.credits(accountId)).toBe(before);
  });
});
