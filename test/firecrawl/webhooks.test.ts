/**
 * Firecrawl's `webhook` option through the official SDK (@mendable/firecrawl-js 4): Firecrawl's
 * event bodies (`crawl.started`, `crawl.page` with the page's Document, `crawl.completed` last;
 * `batch_scrape.*`), the caller's metadata and headers, `X-Firecrawl-Signature` keyed with the
 * account's signing secret, Trawl's Standard Webhooks signatures beside it; bad options refused.
 */
import { createHmac } from 'node:crypto';
import Firecrawl from '@mendable/firecrawl-js';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/store/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { startTestSite, type TestSite } from './site.js';

let svc: TestService;
let t: TestSite;
let hook: WebhookReceiver;

beforeAll(async () => {
  t = await startTestSite();
  hook = await startWebhookReceiver();
  svc = await startTestService('sqlite', { SEARXNG_URL: t.searx.url });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await t?.close();
  await hook?.close();
});

const eventsOf = (id: string) =>
  hook.received.filter((r) => JSON.parse(r.body).id === id).map((r) => ({ r, e: JSON.parse(r.body) }));
const until = async (fn: () => boolean, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("Firecrawl's webhook option", () => {
  it('a crawl sends started, a page event per document and completed last, in Firecrawl shapes, signed', async () => {
    const { key, accountId } = await svc.newKey(10);
    const secret = (await accounts.findAccountById(svc.store.db, accountId))!.signing_secret;
    const fc = new Firecrawl({ apiKey: key, apiUrl: `${svc.url}/firecrawl` });
    const started = await fc.startCrawl(`${t.site.url}/docs/intro`, {
      limit: 5,
      webhook: {
        url: hook.url,
        metadata: { project: 'harbour' },
        headers: { 'x-team': 'blue' },
        events: ['started', 'page', 'completed'],
      },
    });
    await until(() => eventsOf(started.id).some(({ e }) => e.type === 'crawl.completed'));
    const got = eventsOf(started.id);
    const types = got.map(({ e }) => e.type);
    expect(types[0]).toBe('crawl.started');
    expect(types.at(-1)).toBe('crawl.completed');
    const pages = got.filter(({ e }) => e.type === 'crawl.page').map(({ e }) => e);
    const status = await fc.getCrawlStatus(started.id);
    expect(pages).toHaveLength(status.data.length);
    expect(pages.map((p) => p.data[0].metadata.sourceURL).sort()).toEqual(
      status.data.map((d) => d.metadata!.sourceURL).sort(),
    );
    // Each page event carries the same Document as the status answer.
    for (const p of pages)
      expect(p.data[0].markdown).toBe(
        status.data.find((d) => d.metadata!.sourceURL === p.data[0].metadata.sourceURL)!.markdown,
      );
    expect(pages.some((p) => /harbour tools fit together/.test(p.data[0].markdown))).toBe(true);
    for (const { r, e } of got) {
      expect(e).toMatchObject({ success: true, id: started.id, metadata: { project: 'harbour' } });
      expect(e.webhookId).toBe(r.headers['webhook-id']);
      expect(r.headers['x-team']).toBe('blue');
      expect(r.headers['x-firecrawl-signature']).toBe(
        `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`,
      );
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toEqual(e);
    }
    expect(Object.keys(got[0].e)).toEqual(['success', 'type', 'id', 'webhookId', 'data', 'metadata']);
  });

  it('a batch scrape with a webhook URL sends every event; cancel sends failed when asked', async () => {
    const { key } = await svc.newKey(10);
    const fc = new Firecrawl({ apiKey: key, apiUrl: `${svc.url}/firecrawl` });
    const batch = await fc.startBatchScrape([`${t.site.url}/docs/setup`, `${t.site.url}/blog/tides`], {
      options: { formats: ['markdown'] },
      webhook: hook.url,
    });
    await until(() => eventsOf(batch.id).some(({ e }) => e.type === 'batch_scrape.completed'));
    expect(
      eventsOf(batch.id)
        .map(({ e }) => e.type)
        .sort(),
    ).toEqual(['batch_scrape.completed', 'batch_scrape.page', 'batch_scrape.page', 'batch_scrape.started']);

    const crawl = await fc.startCrawl(`${t.site.url}/`, { limit: 50, webhook: { url: hook.url, events: ['failed'] } });
    await fc.cancelCrawl(crawl.id);
    await until(() => eventsOf(crawl.id).length === 1);
    expect(eventsOf(crawl.id)[0].e).toMatchObject({
      success: false,
      type: 'crawl.failed',
      id: crawl.id,
      data: [],
      error: 'the job was cancelled',
    });
  });

  it('refuses a bad webhook by name, with no credit', async () => {
    const { key, accountId } = await svc.newKey(3);
    const bad: [unknown, string][] = [
      [{ url: hook.url, events: ['finished'] }, 'webhook.events'],
      [{ url: hook.url, headers: { 'X-Firecrawl-Signature': 'forged' } }, 'webhook.headers.X-Firecrawl-Signature'],
      [{ url: hook.url, headers: { 'x-a': 'line\r\nbreak' } }, 'webhook.headers.x-a'],
      // Values and names the HTTP client refuses on every attempt: each event would fail all its retries.
      [{ url: hook.url, headers: { 'x-b': 'price in €' } }, 'webhook.headers.x-b'],
      [{ url: hook.url, headers: { 'x-c': 'bell\u0007' } }, 'webhook.headers.x-c'],
      [{ url: hook.url, headers: { 'x-d': 'del\u007f' } }, 'webhook.headers.x-d'],
      [{ url: hook.url, headers: { Expect: '100-continue' } }, 'webhook.headers.Expect'],
      [{ url: 'ftp://example.com/' }, 'webhook.url'],
      [{ url: hook.url, secret: 'x' }, 'webhook.secret'],
    ];
    for (const [webhook, where] of bad) {
      const r = await fetch(`${svc.url}/firecrawl/v2/crawl`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${t.site.url}/`, webhook }),
      });
      expect(r.status).toBe(400);
      const body = (await r.json()) as { success: boolean; error: string };
      expect(body.success).toBe(false);
      expect(body.error.startsWith(where)).toBe(true);
    }
    expect(await svc.credits(accountId)).toBe(3);
  });
});
