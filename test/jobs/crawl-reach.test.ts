/**
 * A crawl reaches every page it may (issue 39): on sites whose link graph is known, an async
 * crawl fetches exactly the pages a breadth-first walk reaches within `max_depth`, each once and
 * at its shortest depth — chains, random graphs, a hub of 5,000 links, a deep tree, and a slow
 * page whose short path ends after a longer one (the crawl must not take the longer path's depth
 * and stop a level short). When the limit leaves found URLs out, the job says how many.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain, hub, pageNumber, randomGraph, reach, serveGraph, tree, type Graph } from '../helpers/link-graph.js';
import { jobClient } from '../helpers/job-client.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

describe.each(DIALECTS)('a crawl reaches every page it may (%s)', (dialect) => {
  let svc: TestService;
  let key: string;
  const sites: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    svc = await startTestService(dialect);
    ({ key } = await svc.newKey(100));
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    for (const s of sites) await s.close();
  });

  const call = (method: string, path: string, body?: unknown) => jobClient(svc.url, key).call(method, path, body);

  async function crawl(g: Graph, maxDepth: number, limit: number, delayMs?: (i: number) => number) {
    const site = await serveGraph(g, delayMs);
    sites.push(site);
    const made = await call('POST', '/v1/crawl', {
      url: `${site.url}/g/0`,
      async: true,
      max_depth: maxDepth,
      limit,
      use_sitemap: false,
    });
    const jobs = jobClient(svc.url, key);
    const job = await jobs.finished(made.job.job_id);
    const pages = await jobs.pages(made.job.job_id);
    return { job, pages, site };
  }

  /** Each page once, exactly the reachable set, each at its shortest depth. */
  function expectReach(g: Graph, maxDepth: number, pages: any[]) {
    const want = reach(g, maxDepth);
    expect(pages.filter((p) => p.error)).toEqual([]);
    const got = new Map(pages.map((p) => [pageNumber(p.url), p.depth]));
    expect(got.size).toBe(pages.length);
    const missing = [...want.keys()].filter((n) => !got.has(n));
    expect(missing.slice(0, 10)).toEqual([]);
    expect(got.size).toBe(want.size);
    const wrongDepth = [...want].filter(([n, d]) => got.get(n) !== d).slice(0, 10);
    expect(wrongDepth).toEqual([]);
  }

  it('a chain stops at max_depth', async () => {
    const g = chain(40);
    const { job, pages } = await crawl(g, 10, 1000);
    expectReach(g, 10, pages);
    expect(pages).toHaveLength(11);
    expect(job).toMatchObject({ state: 'completed', truncated: false, not_fetched: 0 });
  }, 60_000);

  it('a hub page of 5,000 links: every one is fetched', async () => {
    const g = hub(5001);
    const { job, pages } = await crawl(g, 1, 10_000);
    expectReach(g, 1, pages);
    expect(job.progress).toEqual({ done: 5001, failed: 0, queued: 0 });
  }, 240_000);

  it('a tree 9 levels deep, cut at depth 6 and whole at 9', async () => {
    const g = tree(2, 9);
    expectReach(g, 6, (await crawl(g, 6, 10_000)).pages);
    expectReach(g, 9, (await crawl(g, 9, 10_000)).pages);
  }, 120_000);

  it('a slow short path is not outrun by a longer one: pages keep their shortest depth', async () => {
    // 0 → 1 (slow) → 4 → 5;  0 → 2 → 3 → 4.  With max_depth 3, page 4 is at depth 2 and 5 at 3; had
    // the crawl taken 4's depth from the fast long path (3), it would never follow 4's link to 5.
    const g: Graph = [[1, 2], [4], [3], [4], [5], []];
    const { pages } = await crawl(g, 3, 100, (i) => (i === 1 ? 1500 : 0));
    expectReach(g, 3, pages);
  }, 60_000);

  it('random graphs with pages of uneven speed, each page at its breadth-first depth', async () => {
    const g = randomGraph(3000, 3, 11);
    const slow = (i: number) => ((i * 2654435761) >>> 0) % 40;
    expectReach(g, 5, (await crawl(g, 5, 10_000, slow)).pages);
  }, 240_000);

  it('a URL the limit left out, reached by a redirect after all, is no longer counted as left out', async () => {
    const site = await serveGraph([[1, 2, 3, 4, 5], [], [], [], [], []]);
    sites.push(site);
    // Page 2 redirects to page 5, which the limit of 3 left out (0, 1, 2 admitted): page 5's row.
    site.route('/g/2', (_q, res) => void res.writeHead(301, { location: '/g/5' }).end());
    const made = await call('POST', '/v1/crawl', {
      url: `${site.url}/g/0`,
      async: true,
      max_depth: 1,
      limit: 3,
      use_sitemap: false,
    });
    const jobs = jobClient(svc.url, key);
    const job = await jobs.finished(made.job.job_id);
    const pages = await jobs.pages(made.job.job_id);
    expect(pages.map((p: any) => pageNumber(p.url)).sort()).toEqual([0, 1, 5]);
    expect(job).toMatchObject({
      state: 'completed',
      truncated: true,
      not_fetched: 2,
      progress: { done: 3, failed: 0, queued: 0 },
    });
  }, 60_000);

  it('a redirect to a page another item already fetches is not followed: the site sees one request', async () => {
    const site = await serveGraph([[1, 2], [], []]);
    sites.push(site);
    // Page 1 answers late with a redirect to page 2, which is linked too and is in hand by then.
    site.route('/g/1', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 300));
      res.writeHead(301, { location: '/g/2' }).end();
    });
    const made = await call('POST', '/v1/crawl', {
      url: `${site.url}/g/0`,
      async: true,
      max_depth: 1,
      limit: 10,
      use_sitemap: false,
    });
    const jobs = jobClient(svc.url, key);
    const job = await jobs.finished(made.job.job_id);
    const pages = await jobs.pages(made.job.job_id);
    expect(pages.map((p: any) => pageNumber(p.url)).sort()).toEqual([0, 2]);
    expect(site.hits('/g/2')).toBe(1);
    expect(job).toMatchObject({ state: 'completed', progress: { done: 2, failed: 0, queued: 0 } });
  }, 60_000);

  it('the limit leaves found URLs unfetched: truncated, with how many', async () => {
    const g = hub(301);
    const { job, pages } = await crawl(g, 1, 100);
    expect(pages).toHaveLength(100);
    expect(job).toMatchObject({ state: 'completed', truncated: true, not_fetched: 201 });
  }, 60_000);
});
