/**
 * One answer's byte cap (issue 39, finding 8): an answer over TRAWL_ANSWER_MAX_MB (1 MiB here) is
 * 413 payload_too_large saying how to ask for less, and nothing is charged — a scrape's formats, a
 * synchronous crawl's pages (dropped, so not readable for nothing either), a render's scrape steps
 * (action_failed naming the step, the render stopped there; charged, as any step that fails after the caller's steps ran).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/engine/fetch/browser.js';
import { answerBytes } from '../../src/answer-cap.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

/** An article of about `kb` KB of text (as HTML, and about as much as markdown). */
const bigPage = (title: string, kb: number, links = '') =>
  `<html><head><title>${title}</title></head><body><article><h1>${title}</h1>${links}${Array.from(
    { length: kb },
    (_, i) => `<p>Paragraph ${i} of ${title}: ${'plain words of a long page '.repeat(36)}</p>`,
  ).join('')}</article></body></html>`;

describe('answerBytes', () => {
  it('is about the JSON size, and stops counting past its bound', () => {
    const v = { a: 'x'.repeat(1000), b: ['é'.repeat(500), 1, true, null], c: { d: 'y' } };
    const json = Buffer.byteLength(JSON.stringify(v));
    expect(Math.abs(answerBytes(v) - json) / json).toBeLessThan(0.05);
    expect(answerBytes({ many: Array.from({ length: 1000 }, () => 'z'.repeat(1000)) }, 10_000)).toBeLessThan(20_000);
  });
});

describe.each(DIALECTS)('one answer has a byte cap (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    const links = [1, 2, 3, 4].map((i) => `<a href="/p${i}">page ${i}</a>`).join(' ');
    site = await startFixtureServer({
      '/big': bigPage('Big', 400),
      '/': bigPage('Home', 300, links),
      ...Object.fromEntries([1, 2, 3, 4].map((i) => [`/p${i}`, bigPage(`Page ${i}`, 300)])),
    });
    svc = await startTestService(dialect, { TRAWL_ANSWER_MAX_MB: '1' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('a scrape whose answer would pass the cap is 413 saying how to ask for less; nothing is charged', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/scrape',
      { url: `${site.url}/big`, formats: ['markdown', 'html', 'raw_html'] },
      key,
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: 'payload_too_large',
      detail: expect.stringMatching(/^answer: more than 1\.\d MiB, over the 1 MiB one answer may hold.*fewer formats/),
    });
    expect(await svc.credits(accountId)).toBe(5);
    // The same page in one format fits, and is charged.
    const fits = await svc.post('/v1/scrape', { url: `${site.url}/big`, formats: ['markdown'] }, key);
    expect(fits.status).toBe(200);
    expect(((await fits.json()) as { markdown: string }).markdown.length).toBeGreaterThan(300_000);
    expect(await svc.credits(accountId)).toBe(4);
  });

  it('a synchronous crawl whose pages would pass the cap is 413, not charged, its pages dropped', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post('/v1/crawl', { url: `${site.url}/`, limit: 10, max_depth: 1 }, key);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: 'payload_too_large',
      detail: expect.stringMatching(/^answer: more than .* MiB.*"async": true/),
    });
    expect(await svc.credits(accountId)).toBe(5);
    // The job is listed, cancelled, saying why; none of its pages can be read.
    const listed = (await (
      await fetch(`${svc.url}/v1/jobs`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { jobs: { job_id: string; state: string; error?: string }[] };
    expect(listed.jobs[0]).toMatchObject({ state: 'cancelled', error: expect.stringContaining('answer: more than') });
    const job = (await (
      await fetch(`${svc.url}/v1/jobs/${listed.jobs[0].job_id}`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { pages: unknown[] };
    expect(job.pages).toEqual([]);
    // Two of those pages fit.
    const fits = await svc.post('/v1/crawl', { url: `${site.url}/`, limit: 2, max_depth: 1 }, key);
    expect(fits.status).toBe(200);
    expect(((await fits.json()) as { pages: unknown[] }).pages).toHaveLength(2);
  });
});

describe.skipIf(!findChromium())('scrape steps within the cap (real Chromium)', () => {
  let svc: TestService;
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startFixtureServer({ '/big': bigPage('Big', 300) });
    svc = await startTestService('sqlite', { TRAWL_ANSWER_MAX_MB: '1' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it("the step whose snapshot would pass the cap fails (422 action_failed naming it), charged as any failing step: the caller's steps ran", async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/scrape',
      { url: `${site.url}/big`, actions: Array.from({ length: 5 }, () => ({ type: 'scrape' })), timeout_ms: 60_000 },
      key,
    );
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: 'action_failed',
      detail: expect.stringMatching(
        /^actions\[3\]: the page's HTML at this step and the earlier scrape steps comes to 1\.\d MiB, more than the 1 MiB one answer may hold.*take fewer scrape steps$/,
      ),
    });
    expect(await svc.credits(accountId)).toBe(4);
    // Two snapshots fit (with the page's own markdown: about 0.9 MiB).
    const fits = await svc.post(
      '/v1/scrape',
      { url: `${site.url}/big`, actions: [{ type: 'scrape' }, { type: 'scrape' }], timeout_ms: 60_000 },
      key,
    );
    expect(fits.status).toBe(200);
    expect(((await fits.json()) as { actions: { scrapes: unknown[] } }).actions.scrapes).toHaveLength(2);
  }, 90_000);
});
