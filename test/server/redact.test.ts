/**
 * Secrets never leave in errors (issue 26), end to end: the real service with META_ACCESS_TOKEN
 * an app token `id|secret` against a stand-in for Meta that drops the connection (the client's
 * error then quotes the request URL, token included, percent-encoded), and with proxy
 * credentials in HTTP_PROXY_URLS. Neither the answers, nor the log lines, nor the stored run
 * errors hold a secret in any encoding.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type Service } from '../../src/runtime.js';
import { accounts, keys } from '../../src/store/index.js';
import { startFakeMeta, type FakeMeta } from '../helpers/fake-meta.js';

const TOKEN = '1234567890|s3cr3tAppSecretValue';
const SECRET = 's3cr3tAppSecretValue';
const PROXY_PASSWORD = 'pa55word-xyz';

/** Text with every percent-encoding undone, however deep (an independent check of the redactor). */
function decodeAll(s: string): string {
  for (let prev = ''; prev !== s;)
    [prev, s] = [s, s.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))];
  return s.replace(/\\"/g, '"');
}
const expectClean = (what: string, text: string, secret: string) => {
  expect(decodeAll(text), what).not.toContain(secret);
  expect(decodeAll(text).toLowerCase(), what).not.toContain(secret.toLowerCase());
};

interface Started {
  svc: Service;
  lines: string[];
  key: string;
  post(path: string, body: unknown): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

async function start(env: Record<string, string>): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-redact-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    TRAWL_DATA_DIR: dataDir,
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    TRAWL_META_RETRY_BASE_MS: '50',
    ...env,
  });
  const lines: string[] = [];
  const svc = await startService(config, {
    logger: { level: 'debug', stream: { write: (l: string) => void lines.push(l) } },
  });
  const acc = await accounts.createAccount(svc.store.db, { email: 'redact@test.local', credits: 50 });
  const { key } = await keys.createApiKey(svc.store.db, { accountId: acc.id, rateLimitPerMinute: 10_000 });
  return {
    svc,
    lines,
    key,
    async post(path, body) {
      const res = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
    async stop() {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('secrets never leave in errors: META_ACCESS_TOKEN', () => {
  let meta: FakeMeta;
  let s: Started;

  beforeAll(async () => {
    meta = await startFakeMeta({
      pages: { shaktimats: { id: '775991435791863', name: 'Shakti Mat' } },
      firstBatch: {},
      nextPages: {},
      graphResets: true,
    });
    s = await start({ META_ACCESS_TOKEN: TOKEN, META_GRAPH_BASE_URL: meta.url, META_AD_LIBRARY_BASE_URL: meta.url });
  });
  afterAll(async () => {
    await s?.stop();
    await meta?.close();
  });

  it('answers a Graph API failure without the token or its secret part', async () => {
    const r = await s.post('/v1/meta-ads', { advertiser: 'shaktimats', country: 'US' });
    expect(r.status).toBe(502);
    const body = JSON.parse(r.text);
    expect(body.error).toBe('fetch_failed');
    // The detail still says what failed, with the token's place marked.
    expect(body.detail).toMatch(/could not fetch .*\/v21\.0\/shaktimats\?.*access_token=\[redacted\]/);
    // The token did go out (percent-encoded) to Meta.
    expect(meta.graphCalls.at(-1)!.searchParams.get('access_token')).toBe(TOKEN);
    expectClean('answer', r.text, SECRET);
  });

  it('stores and answers a failed monitor run without it', async () => {
    const url = `${meta.url}/ads/library/?active_status=all&ad_type=all&country=US&view_all_page_id=775991435791863`;
    const created = await s.post('/v1/monitors', {
      url,
      interval: '1d',
      watch: ['total', 'ad_ids'],
      webhook: 'http://127.0.0.1:9/hook',
    });
    expect(created.status).toBe(201);
    const id = JSON.parse(created.text).monitor.monitor_id;
    const ran = await s.post(`/v1/monitors/${id}/run`, {});
    const run = JSON.parse(ran.text).run;
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^fetch_failed: could not fetch .*access_token=\[redacted\]/);
    expectClean('run answer', ran.text, SECRET);
    const rows = await s.svc.store.db
      .selectFrom('monitor_runs')
      .select(['error'])
      .where('monitor_id', '=', id)
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expectClean('stored run error', String(row.error), SECRET);
  });

  it('answers a failed fetch of a URL quoting the token (double-encoded, mixed) without it', async () => {
    // Not the Meta client: the response hook is what catches this one.
    const r = await s.post('/v1/scrape', {
      url: `http://127.0.0.1:9/?a=1234567890%257Cs3cr3tAppSecretValue&b=s3cr3t%41pp%2553ecretValue`,
    });
    expect(r.status).toBe(502);
    expect(JSON.parse(r.text).detail).toBe(
      'could not fetch http://127.0.0.1:9/?a=[redacted]&b=[redacted]: connection refused',
    );
  });

  it('writes no log line with it, whatever the field or encoding', async () => {
    s.svc.app.log.error(
      {
        url: `${meta.url}/v21.0/x?access_token=${encodeURIComponent(TOKEN)}`,
        raw: TOKEN,
        lower: '1234567890%7cs3cr3tAppSecretValue',
      },
      `failed with ${SECRET}`,
    );
    // Fastify logs the request URL: a client quoting the token does not get it into the log.
    await fetch(`${s.svc.url}/healthz?t=${encodeURIComponent(encodeURIComponent(TOKEN))}`);
    const log = s.lines.join('');
    expect(log).toContain('[redacted]');
    expect(log).toContain('/healthz?t=[redacted]');
    expectClean('log', log, SECRET);
  });
});

describe('secrets never leave in errors: proxy credentials', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start({ HTTP_PROXY_URLS: `http://user:${PROXY_PASSWORD}@127.0.0.1:1` });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('answers and logs a fetch error quoting the proxy URL without its credentials', async () => {
    const r = await s.post('/v1/scrape', {
      url: `http://127.0.0.1:9/?via=http://user:${PROXY_PASSWORD}@127.0.0.1:1&p=pa55word%2Dxyz`,
    });
    expect(r.status).toBe(502);
    const body = JSON.parse(r.text);
    expect(body.error).toBe('fetch_failed');
    expect(body.detail).toBe(
      'could not fetch http://127.0.0.1:9/?via=http://[redacted]@127.0.0.1:1&p=[redacted]: connection refused',
    );
    s.svc.app.log.warn({ proxy: `http://user:${PROXY_PASSWORD}@127.0.0.1:1` }, 'proxy failed');
    expectClean('answer', r.text, PROXY_PASSWORD);
    expectClean('log', s.lines.join(''), PROXY_PASSWORD);
    expect(s.lines.join('')).toContain('http://[redacted]@127.0.0.1:1');
  });
});
