import { it, expect } from 'vitest';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { startTestService } from '../helpers/service.js';

it('graph crawl', async () => {
  const N = Number(process.env.N ?? 2000);
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: number[][] = [];
  for (let i = 0; i < N; i++) out.push([(i + 1) % N, ...Array.from({ length: Number(process.env.OUT ?? 8) }, () => Math.floor(rnd() * N))]);
  const site = await startFixtureServer();
  site.route('/', (q, res) => void res.writeHead(301, { location: '/p/0' }).end());
  for (let i = 0; i < N; i++)
    site.route(`/p/${i}`, async (q, res) => { await new Promise((r) => setTimeout(r, Number(process.env.DELAY ?? 0) * rnd())); res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>P${i}</title></head><body><article><h1>Page ${i}</h1><p>Some words about page ${i} in a paragraph long enough.</p>${out[i].map((j) => `<a href="/p/${j}">page ${j}</a>`).join(' ')}</article></body></html>`); });
  // reachable within depth 10 from 0
  const depth = new Map([[0, 0]]); const q = [0];
  while (q.length) { const x = q.shift()!; if (depth.get(x)! >= Number(process.env.MAXD ?? 10)) continue; for (const y of out[x]) if (!depth.has(y)) { depth.set(y, depth.get(x)! + 1); q.push(y); } }
  const svc = await startTestService((process.env.D as any) ?? 'sqlite');
  const { key } = await svc.newKey(100);
  const r = await svc.post('/v1/crawl', { url: `${site.url}/p/0`, async: true, limit: 10000, max_depth: Number(process.env.MAXD ?? 10), use_sitemap: false }, key);
  const id = ((await r.json()) as any).job.job_id;
  let job: any;
  for (;;) { const j: any = await (await fetch(`${svc.url}/v1/jobs/${id}?limit=1`, { headers: { authorization: `Bearer ${key}` } })).json(); job = j.job; if (!['queued','running'].includes(job.state)) break; await new Promise((r) => setTimeout(r, 500)); }
  const got = new Set<number>(); let cursor: string | null = null; const depths: Record<number, number> = {};
  do { const j: any = await (await fetch(`${svc.url}/v1/jobs/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${key}` } })).json();
    for (const p of j.pages) { got.add(Number(new URL(p.url).pathname.slice(3))); depths[p.depth] = (depths[p.depth] ?? 0) + 1; } cursor = j.next_cursor; } while (cursor);
  console.log(JSON.stringify(job), 'reachable', depth.size, 'got', got.size, depths);
  const missing = [...depth.keys()].filter((x) => !got.has(x)).slice(0, 10);
  console.log('missing', missing.map((m) => [m, depth.get(m)]));
  await svc.stop(); await site.close();
  expect(got.size).toBe(depth.size);
}, 600_000);
