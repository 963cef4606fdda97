/**
 * TRAWL_ACCOUNT_CONCURRENCY holds across processes (contract section 7): two job runners on one
 * PostgreSQL store never fetch more than the cap of one account's pages at once, while another
 * account's job runs beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/index.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { startFixtureServer, articlePage, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const CAP = 3;

describe('jobs: the account cap across runners (postgres)', () => {
  let svc: TestService;
  let site: FixtureServer;
  let second: JobRunner;
  let engine2: Engine;
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  beforeAll(async () => {
    site = await startFixtureServer();
    site.route('/slow', async (req, res) => {
      const who = new URL(req.url!, 'http://x').searchParams.get('acc')!;
      inFlight.set(who, (inFlight.get(who) ?? 0) + 1);
      peak.set(who, Math.max(peak.get(who) ?? 0, inFlight.get(who)!));
      await new Promise((r) => setTimeout(r, 120));
      inFlight.set(who, inFlight.get(who)! - 1);
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(articlePage('Slow', '<p>A page that takes its time, with words enough to be content.</p>'));
    });
    svc = await startTestService('postgres', { TRAWL_ACCOUNT_CONCURRENCY: String(CAP) });
    // A second process's runner, as a worker would run it: its own engine (fetch slots), the same store.
    engine2 = createEngine(svc.config);
    second = new JobRunner({ store: svc.store, engine: engine2, redact: (s) => s, accountCap: CAP });
    second.start();
  }, 60_000);
  afterAll(async () => {
    await second?.stop();
    await engine2?.close();
    await svc?.stop();
    await site?.close();
  });

  it(`fetches at most ${CAP} pages of an account at once; another account's job is not held up`, async () => {
    const a = await svc.newKey(5);
    const b = await svc.newKey(5);
    const start = async (key: string, acc: string, n: number) => {
      const r = await svc.post(
        '/v1/batch/scrape',
        { urls: Array.from({ length: n }, (_, i) => `${site.url}/slow?acc=${acc}&i=${i}`) },
        key,
      );
      return ((await r.json()) as any).job.job_id as string;
    };
    const ja = await start(a.key, 'a', 30);
    const jb = await start(b.key, 'b', 6);
    const state = async (key: string, id: string) =>
      (
        (await (
          await fetch(`${svc.url}/v1/jobs/${id}?limit=1`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as any
      ).job;
    let sa: any;
    let sb: any;
    const t0 = Date.now();
    let aDoneWhenB: number | undefined;
    for (;;) {
      [sa, sb] = [await state(a.key, ja), await state(b.key, jb)];
      if (sb.state === 'completed' && aDoneWhenB === undefined) aDoneWhenB = (await state(a.key, ja)).progress.done;
      if (sa.state === 'completed' && sb.state === 'completed') break;
      if (Date.now() - t0 > 30_000) throw new Error(`timed out: ${JSON.stringify([sa, sb])}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(sa.progress).toEqual({ done: 30, failed: 0, queued: 0 });
    expect(peak.get('a')).toBe(CAP);
    expect(peak.get('b')).toBeLessThanOrEqual(CAP);
    // B's 6 pages (2 rounds at the cap) ended while A's 30 (10 rounds) were still going.
    expect(aDoneWhenB).toBeLessThan(30);
  });
});
