/**
 * Job webhooks (contract sections 5 and 7), on both stores: job.completed once per job (also when
 * cancelled), job.page per page when asked for, each signed in both schemes (the official
 * `standardwebhooks` library verifies them) and retried with the same event id after a failure.
 */
import { createHmac } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/store/index.js';
import { eventsOf } from '../../src/store/repos/job-events.js';
import { pageEventBody } from '../../src/jobs/events.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describe.each(DIALECTS)('jobs: webhooks (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let hook: WebhookReceiver;
  beforeAll(async () => {
    site = await startFixtureServer();
    for (let i = 0; i < 8; i++)
      site.route(
        `/p/${i}`,
        articlePage(
          `Page ${i}`,
          `<p>The body of page number ${i}, with words enough to be the main content of it.</p>`,
        ),
      );
    site.route('/slow', async (_q, res) => {
      await new Promise((r) => setTimeout(r, 1500));
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(articlePage('Slow', '<p>A page that takes its time, with words enough to be content.</p>'));
    });
    hook = await startWebhookReceiver();
    // Retries on a 50 ms base (5 s in production) so the test sees one.
    svc = await startTestService(dialect, { TRAWL_WEBHOOK_RETRY_BASE_MS: '50' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hook?.close();
  });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const secretOf = async (accountId: string) =>
    (await accounts.findAccountById(svc.store.db, accountId))!.signing_secret;
  const eventsFor = (jobId: string) =>
    hook.received.map((r) => ({ r, e: JSON.parse(r.body) })).filter(({ e }) => e.job_id === jobId);
  const until = async (fn: () => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!fn()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('a batch with job.page sends every page once and job.completed last, all signed; a failed attempt is retried with the same id', async () => {
    const { key, accountId } = await svc.newKey(5);
    const secret = await secretOf(accountId);
    hook.failNext(1, 503);
    const urls = [...Array.from({ length: 6 }, (_, i) => `${site.url}/p/${i}`), `${site.url}/missing`];
    const created = await call('POST', '/v1/batch/scrape', key, {
      urls,
      webhook: hook.url,
      webhook_events: ['job.page'],
    });
    expect(created.status).toBe(202);
    const id = created.body.job.job_id;
    await until(() => eventsFor(id).filter(({ r }) => r.answered < 300).length === 8);
    const got = eventsFor(id);
    for (const { r, e } of got) {
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toEqual(e);
      expect(r.headers['x-service-signature']).toBe(
        `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`,
      );
      expect(r.headers['webhook-id']).toBe(e.id);
    }
    // The 503 was retried: one id arrived twice, and every event was delivered once with a 2xx.
    const ok = got.filter(({ r }) => r.answered < 300).map(({ e }) => e);
    expect(got.length).toBe(9);
    const failedOnce = got.find(({ r }) => r.answered === 503)!;
    expect(ok.map((e) => e.id)).toContain(failedOnce.e.id);
    expect(new Set(ok.map((e) => e.id)).size).toBe(8);
    const pages = ok.filter((e) => e.event === 'job.page');
    expect(pages.map((e) => e.sequence).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pages.map((e) => e.page.url).sort()).toEqual([...urls].sort());
    expect(pages.find((e) => e.page.url.endsWith('/missing')).page.error).toBe('fetch_failed');
    expect(pages.find((e) => e.page.url.endsWith('/p/0')).page.markdown).toContain('page number 0');
    const completed = ok.filter((e) => e.event === 'job.completed');
    expect(completed).toHaveLength(1);
    expect(ok.at(-1)).toBe(completed[0]);
    expect(completed[0]).toMatchObject({
      job_id: id,
      kind: 'batch',
      state: 'completed',
      progress: { done: 6, failed: 1, queued: 0 },
      sequence: 8,
    });
    expect(Object.keys(completed[0])).toEqual([
      'id',
      'event',
      'job_id',
      'kind',
      'state',
      'progress',
      'sequence',
      'created_at',
      'finished_at',
      'at',
    ]);
    // The receiver has answered before the sender records the outcome: wait for the record.
    const end = Date.now() + 10_000;
    let states = (await eventsOf(svc.store.db, id)).map((e) => e.state);
    while (states.some((s) => s !== 'succeeded') && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
      states = (await eventsOf(svc.store.db, id)).map((e) => e.state);
    }
    expect(states).toEqual(Array(8).fill('succeeded'));
  });

  it('without job.page only job.completed is sent; a cancelled job sends it with state cancelled', async () => {
    const { key } = await svc.newKey(5);
    const quick = await call('POST', '/v1/batch/scrape', key, {
      urls: [`${site.url}/p/1`, `${site.url}/p/2`],
      webhook: hook.url,
    });
    const qid = quick.body.job.job_id;
    await until(() => eventsFor(qid).length === 1);
    expect(eventsFor(qid).map(({ e }) => e.event)).toEqual(['job.completed']);

    const slow = await call('POST', '/v1/batch/scrape', key, {
      urls: Array.from({ length: 40 }, (_, i) => `${site.url}/slow?${i}`),
      webhook: hook.url,
    });
    const sid = slow.body.job.job_id;
    await new Promise((r) => setTimeout(r, 300));
    expect((await call('DELETE', `/v1/jobs/${sid}`, key)).body.job.state).toBe('cancelled');
    await until(() => eventsFor(sid).length === 1);
    await new Promise((r) => setTimeout(r, 2000));
    const [{ e }] = eventsFor(sid);
    expect(eventsFor(sid)).toHaveLength(1);
    expect(e).toMatchObject({ event: 'job.completed', job_id: sid, state: 'cancelled', progress: { queued: 0 } });
  });

  it('a 150-page job.page backlog is delivered whole, each page once', async () => {
    const { key } = await svc.newKey(5);
    const urls = Array.from({ length: 150 }, (_, i) => `${site.url}/p/${i % 8}?n=${i}`);
    const id = (await call('POST', '/v1/batch/scrape', key, { urls, webhook: hook.url, webhook_events: ['job.page'] }))
      .body.job.job_id;
    await until(() => eventsFor(id).some(({ e }) => e.event === 'job.completed'), 30_000);
    expect(
      new Set(
        eventsFor(id)
          .filter(({ e }) => e.event === 'job.page')
          .map(({ e }) => e.sequence),
      ).size,
    ).toBe(150);
  }, 40_000);

  it('events go out as lanes free: an attempt that ends takes its lane again at once, not after its whole pass', async () => {
    // (Passes of 4 a poll apart took 10 s for a 150-page backlog: the next went only once all 4 ended.)
    const held: ServerResponse[] = [];
    let closedByTrawl = 0;
    const recv = createServer((_q, res) => {
      held.push(res);
      res.once('close', () => void (res.writableEnded || closedByTrawl++));
    });
    await new Promise<void>((r) => recv.listen(0, '127.0.0.1', r));
    try {
      const { key } = await svc.newKey(5);
      const urls = Array.from({ length: 12 }, (_, i) => `${site.url}/p/${i % 8}?n=${i}`);
      await call('POST', '/v1/batch/scrape', key, {
        urls,
        webhook: `http://127.0.0.1:${(recv.address() as AddressInfo).port}/hook`,
        webhook_events: ['job.page'],
      });
      await until(() => held.length >= 4);
      // The account's 4 lanes are taken; one ends, and its lane goes to the next event while the
      // other 3 still hang.
      held[0].writeHead(200).end();
      await until(() => held.length >= 5, 15_000);
      expect(closedByTrawl).toBe(0);
      expect(held.slice(1, 4).every((r) => !r.writableEnded)).toBe(true);
    } finally {
      for (const r of held) if (!r.writableEnded) r.writeHead(200).end();
      recv.closeAllConnections();
      await new Promise((r) => recv.close(r));
    }
  });

  it("one account's hanging receiver holds its own lanes only: another account's events go at once", async () => {
    const hung: ServerResponse[] = [];
    const hang = createServer((_q, res) => void hung.push(res));
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    try {
      const a = await svc.newKey(5);
      const b = await svc.newKey(5);
      const urls = Array.from({ length: 6 }, (_, i) => `${site.url}/p/${i}`);
      await call('POST', '/v1/batch/scrape', a.key, {
        urls,
        webhook: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/hook`,
        webhook_events: ['job.page'],
      });
      await until(() => hung.length >= 4);
      let given = 0;
      for (const res of hung) res.once('close', () => given++);
      const id = (await call('POST', '/v1/batch/scrape', b.key, { urls: [`${site.url}/p/1`], webhook: hook.url })).body
        .job.job_id;
      await until(() => eventsFor(id).length === 1, 15_000);
      // Delivered while A's four attempts still hang: a pass that waited for every attempt in it
      // went only once the delivery timeout (10 s) had closed them.
      expect(given).toBe(0);
      expect(hung).toHaveLength(4);
    } finally {
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
    }
  }, 30_000);

  it('an async crawl sends job.completed; bad webhook requests are refused with no credit', async () => {
    const { key, accountId } = await svc.newKey(5);
    site.route(
      '/site/',
      articlePage('Home', `<p>Home page with words enough.</p><a href="/site/a">a</a><a href="/site/b">b</a>`),
    );
    site.route('/site/a', articlePage('A', '<p>Page a with words enough to be content.</p>'));
    site.route('/site/b', articlePage('B', '<p>Page b with words enough to be content.</p>'));
    const c = await call('POST', '/v1/crawl', key, {
      url: `${site.url}/site/`,
      async: true,
      limit: 10,
      webhook: hook.url,
      webhook_events: ['job.page', 'job.completed'],
    });
    expect(c.status).toBe(202);
    const id = c.body.job.job_id;
    await until(() => eventsFor(id).some(({ e }) => e.event === 'job.completed'));
    const evs = eventsFor(id).map(({ e }) => e);
    expect(evs.filter((e) => e.event === 'job.page')).toHaveLength(3);
    // job.completed arrives after every job.page of its job.
    expect(evs.at(-1)).toMatchObject({
      event: 'job.completed',
      kind: 'crawl',
      progress: { done: 3, failed: 0, queued: 0 },
      sequence: 4,
    });
    expect(await svc.credits(accountId)).toBe(4);

    const bad = [
      [{ urls: [`${site.url}/p/1`], webhook_events: ['job.page'] }, 'webhook_events: give a webhook URL'],
      [{ urls: [`${site.url}/p/1`], webhook: 'ftp://example.com/' }, 'webhook:'],
      [{ urls: [`${site.url}/p/1`], webhook: hook.url, webhook_events: ['change.detected'] }, 'webhook_events'],
    ] as const;
    for (const [body, detail] of bad) {
      const r = await call('POST', '/v1/batch/scrape', key, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.detail).toContain(detail);
    }
    const sync = await call('POST', '/v1/crawl', key, { url: `${site.url}/site/`, webhook: hook.url });
    expect(sync).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(sync.body.detail).toContain('"async": true');
    expect(await svc.credits(accountId)).toBe(4);
  });
});

describe('jobs: page event bodies', () => {
  it('a page too large for one body is sent without its largest fields, named in omitted', () => {
    const page = {
      url: 'https://a.example/',
      markdown: 'x'.repeat(300_000),
      html: 'y'.repeat(100_000),
      metadata: { title: 't' },
    };
    const body = JSON.parse(pageEventBody({ id: 'evt_1', jobId: 'job_1', n: 3, page, at: '2026-11-26T00:00:00.000Z' }));
    expect(body.omitted).toEqual(['markdown']);
    expect(body.page).toEqual({ url: 'https://a.example/', html: page.html, metadata: { title: 't' } });
    const small = JSON.parse(
      pageEventBody({ id: 'evt_2', jobId: 'job_1', n: 4, page: { url: 'u', markdown: 'm' }, at: 'now' }),
    );
    expect(small).toEqual({
      id: 'evt_2',
      event: 'job.page',
      job_id: 'job_1',
      sequence: 4,
      page: { url: 'u', markdown: 'm' },
      at: 'now',
    });
  });
});

describe.each(DIALECTS)('jobs: failed webhook events are replayed (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  let hook: WebhookReceiver;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/a': articlePage('A', '<p>The first page of two, with words enough to be the main content.</p>'),
      '/b': articlePage('B', '<p>The second page of two, with words enough to be the main content.</p>'),
    });
    hook = await startWebhookReceiver();
    svc = await startTestService(dialect, { TRAWL_WEBHOOK_RETRY_BASE_MS: '20', TRAWL_WEBHOOK_MAX_ATTEMPTS: '2' });
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hook?.close();
  });

  it('POST /v1/webhooks/replay sends failed job.page and job.completed events again, with a fresh schedule', async () => {
    const { key } = await svc.newKey(5);
    const post = async (path: string, body: unknown) => (await svc.post(path, body, key)).json() as Promise<any>;
    // Every attempt fails until the replay: 2 attempts per event, then each event is given up.
    hook.failNext(1000, 503);
    const since = new Date(Date.now() - 1000).toISOString();
    const made = await post('/v1/batch/scrape', {
      urls: [`${site.url}/a`, `${site.url}/b`],
      webhook: hook.url,
      webhook_events: ['job.page'],
    });
    const id = made.job.job_id;
    const events = () => hook.received.map((r) => ({ r, e: JSON.parse(r.body) })).filter(({ e }) => e.job_id === id);
    // 2 pages and job.completed, each tried twice and failed.
    await expect.poll(() => events().length, { timeout: 20_000 }).toBe(6);
    await expect
      .poll(async () => (await eventsOf(svc.store.db, id)).every((e) => e.state === 'failed'), { timeout: 10_000 })
      .toBe(true);
    hook.failNext(0);
    expect(await post('/v1/webhooks/replay', { since })).toEqual({ status: 'ok', replayed: 3 });
    await expect
      .poll(
        () =>
          events()
            .filter(({ r }) => r.answered < 300)
            .map(({ e }) => e.event)
            .sort(),
        { timeout: 20_000 },
      )
      .toEqual(['job.completed', 'job.page', 'job.page']);
    // Same event ids as the failed attempts (a receiver de-duplicates by id).
    const ids = new Set(events().map(({ e }) => e.id));
    expect(ids.size).toBe(3);
    // (The sender writes the success once the receiver's answer is in: a moment after it is seen.)
    await expect
      .poll(async () => (await eventsOf(svc.store.db, id)).every((e) => e.state === 'succeeded'), { timeout: 10_000 })
      .toBe(true);
    expect(await post('/v1/webhooks/replay', { since })).toEqual({ status: 'ok', replayed: 0 });
  }, 60_000);
});
