/** The operations on pages: account, scrape, extract, crawl, map, batch jobs, search, marketplace, meta ads. */
import { z } from 'zod';
import { ALWAYS, answer, BODY, errors, FETCHING } from './errors.js';
import {
  CrawlAnswer,
  cursor,
  ExtractAnswer,
  Job,
  JobAnswer,
  JobPage,
  MapAnswer,
  MarketplaceAnswer,
  MetaAdsAnswer,
  ok,
  ScrapeAnswer,
  SearchAnswer,
} from './shapes.js';
import { JOB, META } from './examples.js';
import { cursorParam, doc, idParam, limitQuery } from './params.js';

export const pageDocs = {
  account: doc({
    operationId: 'getAccount',
    tags: ['Account'],
    response: {
      ...answer(
        200,
        'The calling account (no `status` field, as the interface specifies)',
        z.object({ account_id: z.string(), email: z.string(), credits: z.number().int() }),
        { account_id: 'acc_3Lm9pQz7WbK2xT5vR8sN', email: 'dana@example.com', credits: 997 },
      ),
      ...errors(...ALWAYS),
    },
  }),
  scrape: doc({
    operationId: 'scrape',
    tags: ['Scrape'],
    description:
      'Costs 1 credit when it succeeds. `formats` defaults to `["markdown"]` (plus `json` when `schema` is given); `render: "auto"` uses Chromium only for pages drawn by JavaScript.',
    bodyExamples: {
      markdown: { summary: 'A page as markdown', value: { url: 'https://example.com/widgets' } },
      schema: {
        summary: 'Markdown and fields by a schema',
        value: {
          url: 'https://shop.example.com/lamp',
          formats: ['markdown', 'json'],
          schema: { name: 'string', price: 'number', in_stock: 'boolean' },
        },
      },
      browser: {
        summary: 'Open a tab, then markdown and a screenshot, from a phone in Germany (cached for an hour)',
        value: {
          url: 'https://shop.example.com/lamp',
          formats: ['markdown', 'screenshot'],
          actions: [
            { type: 'click', selector: '#tab-specs' },
            { type: 'wait', milliseconds: 500 },
          ],
          mobile: true,
          location: { country: 'DE' },
          max_age: 3_600_000,
        },
      },
    },
    response: {
      ...answer(200, 'The page in the formats asked for', ScrapeAnswer, {
        status: 'ok',
        url: 'https://example.com/widgets',
        markdown: '# Deep Sea Widgets\n\nWidgets for the deep sea.',
        screenshot: 'https://trawl.example.com/v1/files/3Lm9pQz7WbK2xT5vR8sNa1B2c3D4e5F6.png',
        metadata: { ...META, cache: 'miss' },
      }),
      ...errors(...BODY, ...ALWAYS, ...FETCHING, 'invalid_schema', 'action_failed'),
    },
  }),
  extract: doc({
    operationId: 'extract',
    tags: ['Extract'],
    description:
      '1 credit per call whatever the number of URLs; when every URL fails → 502 `fetch_failed` naming the first failure, no credit.',
    bodyExamples: {
      product: {
        summary: 'One product from two shops',
        value: {
          urls: ['https://shop.example.com/lamp', 'https://other.example.net/lamp'],
          schema: { name: 'string', price: 'number', currency: 'string' },
        },
      },
    },
    response: {
      ...answer(200, "Merged data and each URL's own result", ExtractAnswer, {
        status: 'ok',
        data: { name: 'Brass Lamp', price: 49.9, currency: 'EUR' },
        results: [
          {
            url: 'https://shop.example.com/lamp',
            status: 'ok',
            json: { name: 'Brass Lamp', price: 49.9, currency: 'EUR' },
            sources: { name: 'json-ld:name', price: 'json-ld:offers.price', currency: 'json-ld:offers.priceCurrency' },
          },
          {
            url: 'https://other.example.net/lamp',
            status: 'error',
            error: 'fetch_failed',
            detail: 'https://other.example.net/lamp answered HTTP 404',
          },
        ],
      }),
      ...errors(...BODY, ...ALWAYS, 'insufficient_credits', 'invalid_schema', 'action_failed', 'fetch_failed'),
    },
  }),
  crawl: doc({
    operationId: 'crawl',
    tags: ['Crawl'],
    description:
      'Synchronous (limit ≤ 1,000) answers 200 with the pages; with `"async": true` (limit ≤ 100,000) answers 202 with a job to read from GET /v1/jobs/{id}. 1 credit either way.',
    bodyExamples: {
      sync: {
        summary: 'Up to 50 pages, answered at once',
        value: { url: 'https://example.com/', max_depth: 2, limit: 50 },
      },
      async: {
        summary: 'A large crawl as a job (202)',
        value: { url: 'https://docs.example.com/', async: true, limit: 20000, include_paths: ['/guide/**'] },
      },
    },
    response: {
      ...answer(200, 'The crawl, pages in breadth-first order', CrawlAnswer, {
        status: 'ok',
        pages: [
          { url: 'https://example.com/', depth: 0, status_code: 200, title: 'Example', markdown: '# Example\n\n…' },
          { url: 'https://example.com/about', depth: 1, status_code: 200, title: 'About', markdown: '# About\n\n…' },
        ],
        total: 2,
        truncated: false,
        errors: [
          { url: 'https://example.com/private', error: 'robots_disallowed', detail: 'robots.txt disallows /private' },
        ],
      }),
      ...answer(202, 'With `"async": true`: the job, queued', JobAnswer, {
        status: 'ok',
        job: { ...JOB, state: 'queued', progress: { done: 0, failed: 0, queued: 1 } },
      }),
      ...errors(...BODY, ...ALWAYS, ...FETCHING, 'invalid_schema'),
    },
  }),
  map: doc({
    operationId: 'map',
    tags: ['Crawl'],
    description: "A site's URLs from its sitemaps and a fast link harvest, without content. 1 credit.",
    bodyExamples: {
      search: {
        summary: 'URLs about pricing first',
        value: { url: 'https://example.com/', search: 'pricing', limit: 100 },
      },
    },
    response: {
      ...answer(200, 'The links found', MapAnswer, {
        status: 'ok',
        links: [{ url: 'https://example.com/pricing', title: 'Pricing' }, { url: 'https://example.com/' }],
        total: 2,
      }),
      ...errors(...BODY, ...ALWAYS, 'insufficient_credits', 'forbidden_target', 'fetch_failed', 'timeout'),
    },
  }),
  batchScrape: doc({
    operationId: 'batchScrape',
    tags: ['Jobs'],
    description: 'A job of up to 10,000 URLs, each scraped like POST /v1/scrape. 1 credit when accepted.',
    bodyExamples: {
      batch: {
        summary: 'Two pages as markdown and links',
        value: { urls: ['https://example.com/a', 'https://example.com/b'], formats: ['markdown', 'links'] },
      },
    },
    response: {
      ...answer(202, 'The job, queued', JobAnswer, {
        status: 'ok',
        job: { ...JOB, kind: 'batch', state: 'queued', progress: { done: 0, failed: 0, queued: 2 } },
      }),
      ...errors(...BODY, ...ALWAYS, 'insufficient_credits', 'invalid_schema'),
    },
  }),
  getJob: doc({
    operationId: 'getJob',
    tags: ['Jobs'],
    params: idParam('job', 'job'),
    querystring: limitQuery(100, 100, cursorParam),
    response: {
      ...answer(
        200,
        'The job and its pages written after `cursor`, in completion order',
        z.object({ status: ok, job: Job, pages: z.array(JobPage), next_cursor: cursor }),
        {
          status: 'ok',
          job: JOB,
          pages: [
            { url: 'https://example.com/', depth: 0, status_code: 200, title: 'Example', markdown: '# Example\n\n…' },
            {
              url: 'https://example.com/old',
              depth: 1,
              error: 'fetch_failed',
              detail: 'https://example.com/old answered HTTP 410',
            },
          ],
          next_cursor: 'MTIz',
        },
      ),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  listJobs: doc({
    operationId: 'listJobs',
    tags: ['Jobs'],
    querystring: limitQuery(50, 100, cursorParam),
    response: {
      ...answer(
        200,
        "The account's jobs, newest first",
        z.object({ status: ok, jobs: z.array(Job), next_cursor: cursor }),
        { status: 'ok', jobs: [JOB], next_cursor: null },
      ),
      ...errors('invalid_request', ...ALWAYS),
    },
  }),
  cancelJob: doc({
    operationId: 'cancelJob',
    tags: ['Jobs'],
    params: idParam('job', 'job'),
    response: {
      ...answer(200, 'The job as it is now (cancelled, unless it had ended)', JobAnswer, {
        status: 'ok',
        job: {
          ...JOB,
          state: 'cancelled',
          progress: { done: 120, failed: 3, queued: 0 },
          finished_at: '2026-11-26T09:41:00.000Z',
        },
      }),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  search: doc({
    operationId: 'search',
    tags: ['Search'],
    description:
      'Results re-ranked for the query (provider rank fused with BM25 over the fetched pages), each with quotable highlights. 1 credit; provider down → 502, no credit.',
    bodyExamples: {
      search: {
        summary: 'Five results with their content',
        value: { query: 'deep sea widget pressure rating', limit: 5 },
      },
    },
    response: {
      ...answer(200, 'The results, best first', SearchAnswer, {
        status: 'ok',
        query: 'deep sea widget pressure rating',
        results: [
          {
            position: 1,
            citation: '[1]',
            title: 'Deep Sea Widgets',
            url: 'https://example.com/widgets',
            source: 'example.com',
            snippet: 'Rated to 600 bar…',
            markdown: '# Deep Sea Widgets\n\n…',
            highlights: [{ text: 'Every widget is rated to 600 bar and tested at 660.', score: 1 }],
            score: 0.049,
          },
        ],
      }),
      ...errors(...BODY, ...ALWAYS, 'insufficient_credits', 'fetch_failed'),
    },
  }),
  marketplace: doc({
    operationId: 'marketplace',
    tags: ['Marketplaces'],
    description:
      'A product record (or, for a search or category page, `products`) from Amazon, Walmart, eBay, Etsy, Target or Best Buy. 1 credit; a bot wall → 502 `blocked`, no credit.',
    bodyExamples: {
      amazon: {
        summary: 'An Amazon.de product, every field',
        value: { marketplace: 'amazon_de', url: 'https://www.amazon.de/dp/B0C1234567', mode: 'rich' },
      },
    },
    response: {
      ...answer(200, 'The product', MarketplaceAnswer, {
        status: 'ok',
        marketplace: 'amazon_de',
        product: {
          id: 'B0C1234567',
          url: 'https://www.amazon.de/dp/B0C1234567',
          title: 'Brass Lamp',
          price: 49.9,
          currency: 'EUR',
          availability: 'in_stock',
          in_stock: true,
          brand: 'Lumen',
          rating: 4.6,
          review_count: 1289,
        },
        sources: { price: 'amazon:#corePriceDisplay_desktop_feature_div', title: 'amazon:#productTitle' },
      }),
      ...errors(...BODY, ...ALWAYS, ...FETCHING),
    },
  }),
  metaAds: doc({
    operationId: 'metaAds',
    tags: ['Ad library'],
    description:
      "An advertiser's ads from the Facebook/Instagram Ad Library (the Graph API when META_ACCESS_TOKEN is set). 1 credit; unknown advertiser → 404, no credit.",
    bodyExamples: {
      active: {
        summary: 'Active ads shown in the US',
        value: { advertiser: 'nike', country: 'US', active_status: 'active', limit: 50 },
      },
    },
    response: {
      ...answer(200, 'The ads', MetaAdsAnswer, {
        status: 'ok',
        advertiser: 'nike',
        country: 'US',
        page: { id: '15087023444', name: 'Nike', url: 'https://www.facebook.com/nike/' },
        ads: [
          {
            id: '1234567890',
            status: 'active',
            platforms: ['facebook', 'instagram'],
            started_at: '2026-11-20T00:00:00.000Z',
            ended_at: null,
            body: 'Just do it.',
            title: 'New season',
            link_url: 'https://www.nike.com/',
            cta: 'Shop now',
            media: [{ type: 'image', url: 'https://scontent.example/ad.jpg' }],
            snapshot_url: 'https://www.facebook.com/ads/library/?id=1234567890',
            collation_count: 1,
          },
        ],
        total: 1,
        source: 'web',
      }),
      ...errors(...BODY, ...ALWAYS, 'insufficient_credits', 'not_found', 'fetch_failed', 'blocked', 'timeout'),
    },
  }),
};
