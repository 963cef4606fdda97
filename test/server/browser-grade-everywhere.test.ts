/**
 * The browser-grade options where else they make sense (contract section 9): a batch scrape's pages
 * with screenshots and actions, extract with headers and actions, a monitor that opens a tab
 * before reading the price (and never reads the cache), and `trawl scrape --screenshot --action`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const chromium = findChromium();
const BIN = join(import.meta.dirname, '../../bin/trawl.js');
const pngSize = (b: Buffer) => ({ width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

/** A product page whose price is behind a tab: only a click shows it. */
const TABS = `<!doctype html><html><head><title>Kettle</title></head><body><main><h1>Kettle</h1>
<p>A steel kettle that boils water quickly and quietly, for every kitchen.</p>
<button id="tab-price" onclick="document.getElementById('price').hidden = false">Price</button>
<div id="price" hidden><p>Price: <span class="price">PRICE</span> EUR</p></div>
</main></body></html>`;

describe.skipIf(!chromium)('browser-grade options in batch scrape, extract, monitors and the CLI', () => {
  let site: FixtureServer;
  let svc: TestService;
  let price = '19.99';
  const seenHeaders: Record<string, string | undefined>[] = [];

  beforeAll(async () => {
    site = await startFixtureServer({
      '/kettle': (req, res) => {
        seenHeaders.push({ token: req.headers['x-token'] as string | undefined, cookie: req.headers.cookie });
        res.writeHead(200, { 'content-type': 'text/html' }).end(TABS.replace('PRICE', price));
      },
      '/price': (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>Lamp</title></head><body><main><h1>Lamp</h1><p>A brass lamp for the desk, warm light.</p><p>Price: <span class="price">${price}</span> EUR</p></main></body></html>`,
          ),
    });
    svc = await startTestService('sqlite');
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('batch scrape: each page clicked, screenshotted and kept, its screenshot URL readable', async () => {
    const { key } = await svc.newKey(5);
    const created = await call('POST', '/v1/batch/scrape', key, {
      urls: [`${site.url}/kettle`, `${site.url}/kettle?b=2`],
      formats: ['markdown', 'screenshot'],
      viewport: { width: 800, height: 600 },
      actions: [
        { type: 'click', selector: '#tab-price' },
        { type: 'execute_javascript', script: 'return document.querySelector(".price").textContent' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = created.body.job.job_id;
    let job: any;
    for (let i = 0; i < 200 && job?.job?.state !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 150));
      job = (await call('GET', `/v1/jobs/${id}`, key)).body;
    }
    expect(job.job.progress).toEqual({ done: 2, failed: 0, queued: 0 });
    for (const page of job.pages) {
      expect(page.markdown).toContain('Price: 19.99 EUR');
      expect(page.actions.javascript_returns).toEqual(['19.99']);
      expect(page.screenshot).toMatch(new RegExp(`^${svc.url}/v1/files/[0-9A-Za-z]{32}\\.png$`));
      expect(pngSize(Buffer.from(await (await fetch(page.screenshot)).arrayBuffer()))).toEqual({
        width: 800,
        height: 600,
      });
    }
    // Output-only steps and headers are validated as for scrape.
    const bad = await call('POST', '/v1/batch/scrape', key, {
      urls: [`${site.url}/kettle`],
      formats: ['screenshot'],
      render: 'http',
    });
    expect(bad).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        detail: 'render: screenshots and actions need the browser; leave render out or set it to "browser"',
      },
    });
    const badWait = await call('POST', '/v1/batch/scrape', key, {
      urls: [`${site.url}/kettle`],
      wait_for: '#price',
      render: 'http',
    });
    expect(badWait.body).toEqual({
      error: 'invalid_request',
      detail: 'wait_for: only applies when render is "browser" or "auto"',
    });
  }, 60_000);

  it('extract: headers and cookies reach the page, actions prepare it before the fields are read', async () => {
    const { key } = await svc.newKey(5);
    seenHeaders.length = 0;
    const r = await call('POST', '/v1/extract', key, {
      urls: [`${site.url}/kettle`],
      schema: { price: 'number' },
      headers: { 'X-Token': 'extract-token' },
      cookies: [{ name: 'sid', value: 'x1' }],
      actions: [{ type: 'click', selector: '#tab-price' }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual({ price: 19.99 });
    expect(seenHeaders).toEqual([{ token: 'extract-token', cookie: 'sid=x1' }]);
    const screenshotStep = await call('POST', '/v1/extract', key, {
      urls: [`${site.url}/kettle`],
      schema: { price: 'number' },
      actions: [{ type: 'screenshot' }],
    });
    expect(screenshotStep.status).toBe(400);
    expect(screenshotStep.body.detail).toMatch(/^actions\[0\]: a screenshot step gives nothing in extract/);
  }, 60_000);

  it('a monitor opens the tab before reading the price on every run, and never reads the cache', async () => {
    const { key } = await svc.newKey(10);
    price = '21.00';
    // A fresh cached result with the very options a plain monitor's run uses: the monitor must not use it.
    const cached = await call('POST', '/v1/scrape', key, {
      url: `${site.url}/price`,
      formats: ['json'],
      schema: { price: 'number' },
      max_age: 600_000,
    });
    expect(cached.body.json).toEqual({ price: 21 });
    price = '19.99';
    expect(
      (
        await call('POST', '/v1/scrape', key, {
          url: `${site.url}/price`,
          formats: ['json'],
          schema: { price: 'number' },
          max_age: 600_000,
        })
      ).body,
    ).toMatchObject({ json: { price: 21 }, metadata: { cache: 'hit' } });
    const plain = await call('POST', '/v1/monitors', key, {
      url: `${site.url}/price`,
      interval: '1h',
      watch: ['price'],
      schema: { price: 'number' },
      webhook: `${site.url}/hook`,
    });
    await call('POST', `/v1/monitors/${plain.body.monitor.monitor_id}/run`, key, {});
    expect((await call('GET', `/v1/monitors/${plain.body.monitor.monitor_id}`, key)).body.monitor.last_values).toEqual({
      price: 19.99,
    });
    const created = await call('POST', '/v1/monitors', key, {
      url: `${site.url}/kettle`,
      interval: '1h',
      watch: ['price'],
      schema: { price: 'number' },
      webhook: `${site.url}/hook`,
      actions: [{ type: 'click', selector: '#tab-price' }],
      headers: { 'X-Token': 'monitor-token' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.monitor.actions).toEqual([{ type: 'click', selector: '#tab-price' }]);
    expect(created.body.monitor.headers).toEqual({ 'X-Token': '[hidden]' });
    const id = created.body.monitor.monitor_id;
    const first = await call('POST', `/v1/monitors/${id}/run`, key, {});
    expect(first.body.run.status).toBe('succeeded');
    const detail = await call('GET', `/v1/monitors/${id}`, key);
    expect(detail.body.monitor.last_values).toEqual({ price: 19.99 });
    price = '17.49';
    seenHeaders.length = 0;
    const second = await call('POST', `/v1/monitors/${id}/run`, key, {});
    expect(second.body.run.changes).toEqual({ price: { from: 19.99, to: 17.49 } });
    expect(seenHeaders[0]?.token).toBe('monitor-token');
    // A monitor's steps are checked like any others'.
    const bad = await call('POST', '/v1/monitors', key, {
      url: `${site.url}/kettle`,
      interval: '1h',
      watch: ['title'],
      webhook: `${site.url}/hook`,
      actions: [{ type: 'scrape' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^actions\[0\]: a scrape step gives nothing in a monitor/);
    const patched = await call('PATCH', `/v1/monitors/${id}`, key, { actions: null });
    expect(patched.body.monitor.actions).toBeUndefined();
  }, 60_000);

  it('trawl scrape --screenshot FILE --action click:… writes the file and prints the page after the click', async () => {
    price = '19.99';
    const dir = mkdtempSync(join(tmpdir(), 'trawl-cli-shot-'));
    try {
      const file = join(dir, 'page.png');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          BIN,
          '--json',
          'scrape',
          `${site.url}/kettle`,
          '--screenshot',
          file,
          '--action',
          'click:#tab-price',
          '--action',
          'screenshot',
          '--action',
          'js:return document.title',
          '--viewport',
          '640x480',
        ],
        {
          env: { ...process.env, TRAWL_ALLOW_PRIVATE_NETWORK: '1', TRAWL_DATA_DIR: dir },
          timeout: 60_000,
        },
      );
      const out = JSON.parse(stdout);
      expect(out.markdown).toContain('Price: 19.99 EUR');
      expect(out.screenshot).toBe(file);
      expect(pngSize(readFileSync(file))).toEqual({ width: 640, height: 480 });
      expect(out.actions.screenshots).toEqual([join(dir, 'page-action-1.png')]);
      expect(existsSync(join(dir, 'page-action-1.png'))).toBe(true);
      expect(out.actions.javascript_returns).toEqual(['Kettle']);
      const bad = (await promisify(execFile)(
        process.execPath,
        [BIN, '--json', 'scrape', `${site.url}/kettle`, '--action', 'hover:#x'],
        { env: { ...process.env, TRAWL_ALLOW_PRIVATE_NETWORK: '1', TRAWL_DATA_DIR: dir } },
      ).catch((e) => e)) as { stdout: string; code?: number };
      expect(bad.code).toBe(1);
      expect(JSON.parse(bad.stdout)).toMatchObject({
        error: 'invalid_request',
        detail: expect.stringContaining('"hover" is not an action'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
