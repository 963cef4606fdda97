/**
 * TRAWL_ACCOUNT_CONCURRENCY across synchronous work: an account whose targets hang holds only
 * its own slots — another account's scrape answers at once, its own next page waits in line
 * within its time budget and, when that runs out, is a 504 naming the cap, charged nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('per-account fetch slots', () => {
  let svc: TestService;
  let site: FixtureServer;
  const hanging: ServerResponse[] = [];

  beforeAll(async () => {
    site = await startFixtureServer({
      '/fast': articlePage('Fast', '<p>This page answers at once with enough words to be an article of its own.</p>'),
      '/hang': (_req, res) => void hanging.push(res),
    });
    svc = await startTestService('sqlite', { TRAWL_ACCOUNT_CONCURRENCY: '2' });
  }, 60_000);
  afterAll(async () => {
    for (const res of hanging) res.destroy();
    await svc?.stop();
    await site?.close();
  });

  it('one account at its cap waits (then 504, no credit); another account is not slowed', async () => {
    const a = await svc.newKey(10);
    const b = await svc.newKey(10);
    const stuck = [1, 2].map(() =>
      svc.post('/v1/scrape', { url: `${site.url}/hang`, render: 'http', timeout_ms: 20_000 }, a.key),
    );
    while (hanging.length < 2) await new Promise((r) => setTimeout(r, 20));
    let stuckEnded = 0;
    for (const s of stuck) void s.then(() => stuckEnded++);

    const other = await svc.post('/v1/scrape', { url: `${site.url}/fast`, render: 'http' }, b.key);
    expect(other.status).toBe(200);
    // Answered while A's two still hang (each waits 20 s): B did not queue behind A's cap.
    expect(stuckEnded).toBe(0);

    const fastBefore = site.hits('/fast');
    const waited = await svc.post('/v1/scrape', { url: `${site.url}/fast`, render: 'http', timeout_ms: 1000 }, a.key);
    expect(waited.status).toBe(504);
    const body = await waited.json();
    expect(body.error).toBe('timeout');
    expect(body.detail).toContain('TRAWL_ACCOUNT_CONCURRENCY');
    // It never left: the page was not requested, and the credit came back.
    expect(site.hits('/fast')).toBe(fastBefore);
    expect(hanging).toHaveLength(2);

    // A slot freed is the next page's: the line moves on.
    const next = svc.post('/v1/scrape', { url: `${site.url}/fast`, render: 'http', timeout_ms: 10_000 }, a.key);
    await new Promise((r) => setTimeout(r, 300));
    expect(site.hits('/fast')).toBe(fastBefore);
    hanging[0]
      .writeHead(200, { 'content-type': 'text/html' })
      .end(articlePage('Slow', '<p>Late but whole, with words enough to count as content here.</p>'));
    expect((await next).status).toBe(200);
    expect((await stuck[0]).status).toBe(200);
    hanging[1]
      .writeHead(200, { 'content-type': 'text/html' })
      .end(articlePage('Slow', '<p>Late but whole, with words enough to count as content here.</p>'));
    expect((await stuck[1]).status).toBe(200);
    // Three successes charged, the 504 not.
    expect(await svc.credits(a.accountId)).toBe(7);
  }, 30_000);
});
