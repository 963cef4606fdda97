/** Quiet by default (issue 43): no request lines at info, one at debug; /favicon.ico is an icon. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService, type Service as RunningService } from '../../src/runtime.js';

const running: { svc: RunningService; dir: string }[] = [];
afterAll(async () => {
  for (const r of running) {
    await r.svc.close();
    rmSync(r.dir, { recursive: true, force: true });
  }
});

async function start(level: string) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-quiet-'));
  const lines: Record<string, unknown>[] = [];
  const svc = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', TRAWL_DATA_DIR: dir }), {
    logger: { level, stream: { write: (l: string) => void lines.push(JSON.parse(l)) } },
    scheduler: false,
  });
  running.push({ svc, dir });
  return { svc, lines };
}

const requestLines = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => l.reqId !== undefined || /request/.test(String(l.msg)));

describe('request logging', () => {
  it('writes no line per request at info', async () => {
    const { svc, lines } = await start('info');
    for (const path of ['/healthz', '/v1/account', '/favicon.ico']) await (await fetch(`${svc.url}${path}`)).text();
    expect(requestLines(lines)).toEqual([]);
  });

  it('writes one line per request at debug, with method, url, status and time', async () => {
    const { svc, lines } = await start('debug');
    const before = lines.length;
    await (await fetch(`${svc.url}/v1/account`)).text();
    const mine = requestLines(lines.slice(before));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 20, msg: 'request', method: 'GET', url: '/v1/account', status: 401 });
    expect(typeof mine[0].ms).toBe('number');
  });
});

describe('favicon', () => {
  it('answers /favicon.ico with an icon, and pages link it', async () => {
    const { svc } = await start('warn');
    const res = await fetch(`${svc.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toMatch(/^<svg /);
    const login = await (await fetch(`${svc.url}/login`)).text();
    expect(login).toContain('<link rel="icon" href="/assets/favicon.svg"');
    expect((await fetch(`${svc.url}/assets/favicon.svg`)).status).toBe(200);
  });
});
