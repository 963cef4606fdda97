/** The compiled `trawl` command, as a user runs it: --json prints exactly one JSON object. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

const run = promisify(execFile);
const BIN = resolve(__dirname, '../../bin/trawl.js');
let dataDir: string;
let site: FixtureServer;

async function trawl(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, [BIN, '--json', ...args], {
      env: { ...process.env, TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1', DATABASE_URL: '', ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const one = (stdout: string) => {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'trawl-cli-'));
  site = await startFixtureServer({
    '/app':
      '<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/bundle.js"></script></body></html>',
    '/page':
      '<html><head><title>CLI page</title></head><body><article><h1>CLI page</h1><p>Written for the command line test, with enough words, commas, and a full stop.</p><p>Price: $12.50</p></article></body></html>',
  });
});
afterAll(async () => {
  await site?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('trawl CLI', () => {
  it('prints a warning on stderr when a JavaScript page needs the browser that is not installed', async () => {
    const r = await trawl(['scrape', `${site.url}/app`], { CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(r.code).toBe(0);
    const out = one(r.stdout);
    expect(out.warnings[0]).toMatch(/CHROMIUM_PATH/);
    expect(r.stderr).toMatch(/^warning: .*chromium.*CHROMIUM_PATH/m);
  });

  it('sets a dashboard password that the stored scrypt hash then accepts', async () => {
    one((await trawl(['account', 'create', '--email', 'pw@test.local'])).stdout);
    const r = await trawl(['account', 'password', '--email', 'pw@test.local', '--password', 'short']);
    expect(r.code).toBe(1);
    expect(one(r.stdout)).toMatchObject({ error: 'invalid_request', detail: 'password: must be 8 to 200 characters' });
    expect(
      one((await trawl(['account', 'password', '--email', 'pw@test.local', '--password', 'long enough pw'])).stdout),
    ).toMatchObject({ email: 'pw@test.local' });
    const { openStore, verifyPassword, accounts } = await import('../../src/store/index.js');
    const store = await openStore({ dataDir });
    try {
      const row = await accounts.findAccountByEmail(store.db, 'pw@test.local');
      expect(await verifyPassword('long enough pw', row!.password_hash)).toBe(true);
      expect(await verifyPassword('wrong', row!.password_hash)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('lists and revokes keys by id or prefix (issue 43)', async () => {
    one((await trawl(['account', 'create', '--email', 'keys@test.local', '--password', 'a-good-password'])).stdout);
    const a = one((await trawl(['keys', 'create', '--email', 'keys@test.local', '--name', 'laptop'])).stdout);
    const b = one((await trawl(['keys', 'create', '--email', 'keys@test.local'])).stdout);
    const listed = one((await trawl(['keys', 'list', '--email', 'keys@test.local'])).stdout);
    expect(listed.keys).toHaveLength(2);
    expect(listed.keys).toContainEqual({
      key_id: a.key_id,
      prefix: `${a.key.slice(0, 12)}…`,
      name: 'laptop',
      rate_limit_per_minute: null,
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(a.key);
    // By the start of the key, as keys list shows it.
    const byPrefix = one(
      (await trawl(['keys', 'revoke', '--email', 'keys@test.local', `${a.key.slice(0, 12)}…`])).stdout,
    );
    expect(byPrefix).toEqual({ key_id: a.key_id, revoked_at: expect.any(String) });
    // By id.
    expect(one((await trawl(['keys', 'revoke', '--email', 'keys@test.local', b.key_id])).stdout).key_id).toBe(b.key_id);
    const after = one((await trawl(['keys', 'list', '--email', 'keys@test.local'])).stdout);
    expect(after.keys.every((k: { revoked_at: string | null }) => k.revoked_at)).toBe(true);
    const none = await trawl(['keys', 'revoke', '--email', 'keys@test.local', 'key_nope']);
    expect(none.code).toBe(1);
    expect(one(none.stdout)).toMatchObject({ error: 'not_found', detail: expect.stringContaining('trawl keys list') });
    // A dashboard password shorter than 8 characters is refused at creation, as by account password.
    const short = await trawl(['account', 'create', '--email', 'short@test.local', '--password', 'abc']);
    expect(one(short.stdout)).toEqual({ error: 'invalid_request', detail: 'password: must be 8 to 200 characters' });
  });

  it('creates accounts, keys, credits and secrets', async () => {
    const acc = one((await trawl(['account', 'create', '--email', 'cli@test.local', '--credits', '7'])).stdout);
    expect(acc).toEqual({ account_id: expect.stringMatching(/^acc_/), email: 'cli@test.local', credits: 7 });
    // A key above the account's ceiling (TRAWL_RATE_LIMIT_PER_MINUTE, 60, until the operator raises it) is refused.
    const high = await trawl(['keys', 'create', '--email', 'cli@test.local', '--rate-limit', '120']);
    expect(high.code).toBe(1);
    expect(one(high.stdout)).toEqual({
      error: 'invalid_request',
      detail:
        "rate-limit: above this account's ceiling of 60 per minute; raise it first with: trawl account limits --email cli@test.local --rate-limit-ceiling 120",
    });
    expect(
      one((await trawl(['account', 'limits', '--email', 'cli@test.local', '--rate-limit-ceiling', '120'])).stdout),
    ).toEqual({ account_id: acc.account_id, rate_limit_ceiling: 120, keys_above_ceiling: 0 });
    const key = one(
      (await trawl(['keys', 'create', '--email', 'cli@test.local', '--name', 'ci', '--rate-limit', '120'])).stdout,
    );
    expect(key.key).toMatch(/^trawl_[0-9A-Za-z]{40}$/);
    expect(key.key_id).toMatch(/^key_/);
    // Lowering the ceiling later caps that key at once; the operator is told how many keys it caps.
    expect(
      one((await trawl(['account', 'limits', '--email', 'cli@test.local', '--rate-limit-ceiling', '30'])).stdout),
    ).toMatchObject({ rate_limit_ceiling: 30, keys_above_ceiling: 1 });
    expect(
      one((await trawl(['account', 'limits', '--email', 'cli@test.local', '--rate-limit-ceiling', 'default'])).stdout),
    ).toMatchObject({ rate_limit_ceiling: 60 });
    expect((await trawl(['account', 'limits', '--email', 'cli@test.local', '--rate-limit-ceiling', '0'])).code).toBe(1);
    expect(one((await trawl(['credits', 'add', '--email', 'cli@test.local', '5'])).stdout)).toEqual({ credits: 12 });
    const shown = one((await trawl(['secret', 'show', '--email', 'cli@test.local'])).stdout);
    expect(shown.signing_secret).toMatch(/^whsec_/);
    expect(shown.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/); // base64 of 32 bytes (Standard Webhooks)
    const rotated = one((await trawl(['secret', 'rotate', '--email', 'cli@test.local'])).stdout);
    expect(rotated.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The previous secret keeps signing beside the new one for TRAWL_WEBHOOK_SECRET_OVERLAP_HOURS (24).
    expect(Math.abs(Date.parse(rotated.previous_valid_until) - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
    expect(rotated.signing_secret).not.toBe(shown.signing_secret);
  });

  it('reports errors as one JSON object and exit code 1', async () => {
    const r = await trawl(['credits', 'add', '--email', 'nobody@test.local', '5']);
    expect(r.code).toBe(1);
    expect(one(r.stdout)).toMatchObject({ error: 'not_found', detail: expect.stringContaining('nobody@test.local') });
    const bad = await trawl(['credits', 'add', '--email', 'cli@test.local', 'lots']);
    expect(bad.code).toBe(1);
    expect(one(bad.stdout).error).toBe('invalid_request');
  });

  it('prints errors without configured secrets (issue 26), with --json and without', async () => {
    const env = { LLM_API_KEY: 'sk-llm-secret-4242', HTTP_PROXY_URLS: '' };
    const url = 'http://127.0.0.1:9/?k=sk-llm-secret-4242&e=sk%2Dllm%252Dsecret-4242';
    const r = await trawl(['scrape', url], env);
    expect(r.code).toBe(1);
    expect(one(r.stdout)).toEqual({
      error: 'fetch_failed',
      detail: 'could not fetch http://127.0.0.1:9/?k=[redacted]&e=[redacted]: connection refused',
    });
    const human = await run(process.execPath, [BIN, 'scrape', url], {
      env: { ...process.env, TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1', ...env },
    }).catch((e) => e as { stderr: string });
    expect(human.stderr).toBe(
      'error: could not fetch http://127.0.0.1:9/?k=[redacted]&e=[redacted]: connection refused\n',
    );
  });

  it('scrapes locally to markdown and to schema JSON', async () => {
    const r = one((await trawl(['scrape', `${site.url}/page`])).stdout);
    expect(r.status).toBe('ok');
    expect(r.markdown).toContain('# CLI page');
    expect(r.metadata.title).toBe('CLI page');
    const schemaFile = join(dataDir, 'schema.json');
    writeFileSync(schemaFile, JSON.stringify({ price: 'number', title: 'string' }));
    const j = one((await trawl(['scrape', `${site.url}/page`, '--schema', schemaFile])).stdout);
    expect(j.json).toEqual({ price: 12.5, title: 'CLI page' });
    writeFileSync(schemaFile, JSON.stringify({ price: 'money' }));
    const bad = await trawl(['scrape', `${site.url}/page`, '--schema', schemaFile]);
    expect(bad.code).toBe(1);
    expect(one(bad.stdout)).toMatchObject({
      error: 'invalid_schema',
      detail: expect.stringContaining("schema.price: unknown type 'money'"),
    });
  });
});

describe('trawl crawl', () => {
  it('crawls locally and prints one JSON object with --json (no progress bar in pipes)', async () => {
    site.route(
      '/home',
      '<html><head><title>Home</title></head><body><p>Home page text, long enough, with commas, to be content.</p><a href="/page">p</a></body></html>',
    );
    const r = await trawl(['crawl', `${site.url}/home`, '--max-depth', '1', '--limit', '5', '--no-sitemap']);
    expect(r.code).toBe(0);
    const body = one(r.stdout);
    expect(body.status).toBe('ok');
    expect(body.pages.map((p: { url: string }) => p.url)).toEqual([`${site.url}/home`, `${site.url}/page`]);
    expect(body.total).toBe(2);
  });
});
