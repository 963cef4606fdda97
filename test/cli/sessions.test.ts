/**
 * `trawl sessions create|list|delete` against a Trawl server (TRAWL_API_URL, TRAWL_API_KEY): a
 * session made from a cookie file, listed without its values, deleted; a bad file choice refused.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/trawl.js');

async function trawl(args: string[], env: Record<string, string>) {
  try {
    const r = await run(process.execPath, [BIN, '--json', ...args], {
      env: { ...process.env, TRAWL_API_URL: '', TRAWL_API_KEY: '', ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('trawl sessions', () => {
  let svc: TestService;
  let dir: string;
  beforeAll(async () => {
    svc = await startTestService('sqlite', { TRAWL_SECRET_KEY: 'c'.repeat(40) });
    dir = mkdtempSync(join(tmpdir(), 'trawl-sessions-'));
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates from a cookie file, lists without values, deletes', async () => {
    const { key } = await svc.newKey();
    const env = { TRAWL_API_URL: svc.url, TRAWL_API_KEY: key };
    const file = join(dir, 'cookies.json');
    writeFileSync(file, JSON.stringify([{ name: 'sid', value: 'sid-CLI-VALUE-9f8e', domain: '.shop.example.com' }]));
    const made = await trawl(['sessions', 'create', 'shop', '--cookies', file], env);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ name: 'shop', sites: ['example.com'], cookie_count: 1 });
    const list = await trawl(['sessions', 'list'], env);
    expect(
      list.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).name),
    ).toEqual(['shop']);
    expect(made.stdout + list.stdout).not.toContain('sid-CLI-VALUE-9f8e');
    const gone = await trawl(['sessions', 'delete', 'shop'], env);
    expect(JSON.parse(gone.stdout)).toEqual({ status: 'ok', name: 'shop', deleted: true });
    expect((await trawl(['sessions', 'list'], env)).stdout.trim()).toBe('');
    const both = await trawl(['sessions', 'create', 'x', '--cookies', file, '--login', file], env);
    expect(both.code).not.toBe(0);
    expect(both.stdout + both.stderr).toMatch(/exactly one of --storage-state, --cookies or --login/);
  });
});
