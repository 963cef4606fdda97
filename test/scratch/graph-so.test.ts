import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it, expect } from 'vitest';
import { accounts, keys, openStore } from '../../src/store/index.js';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase } from '../helpers/service.js';
import { launchTrawl } from '../helpers/trawl-process.js';

it('graph crawl scale-out', async () => {
  const N = Number(process.env.N ?? 2000);
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: number[][] = [];
  for (let i = 0; i < N; i++) out.push([(i + 1) % N, ...Array.from({ length: 8 }, () => Math.floor(rnd() * N))]);
  const site = await startFixtureServer();
  for (let i = 0; i < N; i++)
    site.route(`/p/${i}`, `<html><head><title>P${i}</title></head><body><article><h1>Page ${i}</h1><p>Some words about page ${i} in a paragraph long enough.</p>${out[i].map((j) => `<a href="/p/${j}">page ${j}</a>`).join(' ')}</article></body></html>`);
  const depth = new Map([[0, 0]]); const q = [0];
  while (q.length) { const x = q.shift()!; if (depth.get(x)! >= 10) continue; for (const y of out[x]) if (!depth.has(y)) { depth.set(y, depth.get(x)! + 1); q.push(y); } }
  const pg = process.env.D === 'sqlite' ? undefined : await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-g-'));
  const env: Record<string, string> = { PORT: '0', TRAWL_DATA_DIR: dataDir, TRAWL_ALLOW_PRIVATE_NETWORK: '1', LOG_LEVEL: 'silent',
    ...(pg ? { DATABASE_URL: pg.url } : {}), ...(process.env.REDIS ? { REDIS_URL: 'redis://127.0.0.1:6379', TRAWL_QUEUE_PREFIX: `g${Date.now()}` } : {}) };
  const store = await openStore({ dataDir, databaseUrl: pg?.url });
  const acc = await accounts.createAccount(store.db, { email: 'g@test.local', credits: 100 });
  await accounts.setRateLimitCeiling(store.db, acc.id, 100_000);
  const { key } = await keys.createApiKey(store.db, { accountId: acc.id, rateLimitPerMinute: 100_000 });
  const procs: ChildProcess[] = [];
  const serve = await launchTrawl(['serve'], env); procs.push(serve.child);
  const api = JSON.parse(serve.line).url as string;
  for (let w = 0; w < Number(process.env.W ?? 0); w++) procs.push((await launchTrawl(['worker'], env)).child);
  const call = async (method: string, path: string, body?: unknown) => (await (await fetch(`${api}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json()) as any;
  const id = (await call('POST', '/v1/crawl', { url: `${site.url}/p/0`, async: true, limit: 10000, max_depth: 10, use_sitemap: false })).job.job_id;
  let job: any;
  for (;;) { job = (await call('GET', `/v1/jobs/${id}?limit=1`)).job; if (!['queued','running'].includes(job.state)) break; await new Promise((r) => setTimeout(r, 500)); }
  const got = new Set<number>(); let cursor: string | null = null; const depths: Record<number, number> = {};
  do { const j = await call('GET', `/v1/jobs/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    for (const p of j.pages) { got.add(Number(new URL(p.url).pathname.slice(3))); depths[p.depth] = (depths[p.depth] ?? 0) + 1; } cursor = j.next_cursor; } while (cursor);
  console.log(JSON.stringify(job), 'reachable', depth.size, 'got', got.size, depths);
  procs.forEach((p) => p.kill('SIGKILL')); await store.close(); await pg?.drop(); await site.close();
  expect(got.size).toBe(depth.size);
}, 900_000);
