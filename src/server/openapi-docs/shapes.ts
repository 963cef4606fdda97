/** The success answers' shapes (Zod, converted like the request bodies), for the OpenAPI document. */
import { z } from 'zod';

export const ok = z.literal('ok');
export const iso = z.string().describe('ISO-8601 date and time, UTC');
const anyObject = z.record(z.string(), z.unknown());
export const cursor = z.string().nullable().describe('Pass as `cursor` for the next page; null when there is none');

const Metadata = z.object({
  title: z.string().nullable(),
  description: z.string().nullable(),
  language: z.string().nullable(),
  status_code: z.number().int(),
  content_type: z.string(),
  source_url: z.string().describe('The URL asked for (without credentials)'),
  canonical_url: z.string().nullable().optional(),
  pages: z.number().int().optional().describe('Pages of a PDF document'),
  cache: z.enum(['hit', 'miss']).optional().describe('With `max_age`: whether the answer came from the result cache'),
  cached_at: iso.optional().describe('On a cache hit: when the result was made'),
  content_source: z
    .enum(['main', 'wider', 'body', 'json_ld', 'noscript', 'app_state', 'browser'])
    .optional()
    .describe(
      'HTML pages: where the content came from — the main-content pick, a fallback when it left almost nothing, or a browser render chosen by render "auto"',
    ),
  page_type: z
    .enum(['article', 'forum', 'product', 'listing', 'collection', 'documentation', 'service', 'other'])
    .optional()
    .describe("HTML pages: the page's kind, from its schema.org / Open Graph markup and its structure"),
  proxy_used: z
    .enum(['basic', 'stealth'])
    .optional()
    .describe('The proxy tier the page came through (`proxy`: basic, or the stealth tier auto climbed to)'),
  credits_used: z
    .number()
    .int()
    .optional()
    .describe('POST /v1/scrape: what this answer cost (5 through the stealth tier, 1 else, 0 when free)'),
});

const Scraped = {
  url: z.string().describe('The final URL, after redirects'),
  markdown: z.string().optional(),
  json: anyObject.optional().describe("The schema's fields; a value not found is null (arrays: [])"),
  sources: z
    .record(z.string(), z.string())
    .optional()
    .describe('Per json field, where its value came from (json-ld:offers.price, meta:og:title …)'),
  html: z.string().optional(),
  raw_html: z.string().optional(),
  links: z.array(z.string()).optional(),
  screenshot: z
    .string()
    .optional()
    .describe('`{base}/v1/files/{id}.png|jpeg`: readable without a key until TRAWL_FILE_RETENTION_HOURS pass'),
  actions: z
    .object({
      screenshots: z.array(z.string()),
      scrapes: z.array(z.object({ url: z.string(), markdown: z.string() })),
      javascript_returns: z.array(z.unknown()),
    })
    .optional()
    .describe("What the actions' screenshot, scrape and execute_javascript steps produced, in step order"),
  metadata: Metadata,
  warnings: z
    .array(z.string())
    .optional()
    .describe('Present when the answer is less than it could be, and what would fix it'),
};
export const ScrapeAnswer = z.object({ status: ok, ...Scraped });

const CrawlPage = z.object({
  url: z.string(),
  depth: z.number().int(),
  status_code: z.number().int(),
  title: z.string().nullable(),
  markdown: z.string().optional(),
  html: z.string().optional(),
  json: anyObject.optional(),
  links: z.array(z.string()).optional(),
  screenshot: Scraped.screenshot,
  actions: Scraped.actions,
  cache: Metadata.shape.cache,
  cached_at: Metadata.shape.cached_at,
  warnings: Scraped.warnings,
});
export const CrawlAnswer = z.object({
  status: ok,
  pages: z.array(CrawlPage).describe('Breadth-first order'),
  total: z.number().int(),
  truncated: z.boolean().describe('The page limit or the time budget stopped the crawl with URLs still queued'),
  errors: z.array(z.object({ url: z.string(), error: z.string(), detail: z.string().optional() })),
});

const Progress = z.object({ done: z.number().int(), failed: z.number().int(), queued: z.number().int() });
export const Job = z.object({
  job_id: z.string(),
  kind: z.enum(['crawl', 'batch']),
  state: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  progress: Progress,
  truncated: z.boolean().optional().describe('A crawl: its page limit left URLs it found unfetched'),
  not_fetched: z
    .number()
    .int()
    .optional()
    .describe('A crawl: how many URLs it found and left out for its limit (each once; counted up to the limit)'),
  created_at: iso,
  finished_at: iso.nullable(),
  error: z.string().optional().describe('Why a failed job failed (every page failed: its pages say why)'),
});
export const JobAnswer = z.object({ status: ok, job: Job });
export const JobPage = anyObject.describe(
  'A crawl page (url, depth, status_code, title, formats) or a batch page (url, final_url, status_code, title, formats, metadata); a failed one is {url, depth?, error, detail}',
);

export const ExtractAnswer = z.object({
  status: ok,
  data: anyObject.describe(
    'Per field, the first non-null value in the order of `urls` (arrays concatenated, duplicates removed)',
  ),
  results: z.array(
    z.union([
      z.object({
        url: z.string(),
        status: z.literal('ok'),
        json: anyObject,
        sources: z.record(z.string(), z.string()).optional(),
        warnings: z.array(z.string()).optional(),
      }),
      z.object({ url: z.string(), status: z.literal('error'), error: z.string(), detail: z.string() }),
    ]),
  ),
});

export const MapAnswer = z.object({
  status: ok,
  links: z.array(z.object({ url: z.string(), title: z.string().optional() })),
  total: z.number().int().describe('Distinct same-site URLs found, before `limit`'),
});

export const SearchAnswer = z.object({
  status: ok,
  query: z.string(),
  results: z.array(
    z.object({
      position: z.number().int(),
      citation: z.string(),
      title: z.string(),
      url: z.string(),
      source: z.string().describe("The result's host"),
      snippet: z.string(),
      published_at: z.string().optional(),
      markdown: z.string().optional(),
      highlights: z.array(z.object({ text: z.string(), score: z.number() })),
      score: z.number(),
    }),
  ),
});

const Product = z
  .object({
    id: z.string().nullable(),
    url: z.string(),
    title: z.string().nullable(),
    price: z.number().nullable(),
    currency: z.string().nullable().describe('ISO 4217'),
    availability: z.enum(['in_stock', 'out_of_stock', 'preorder', 'limited', 'unknown']),
    in_stock: z.boolean().nullable(),
    brand: z.string().nullable().optional(),
    list_price: z.number().nullable().optional(),
    discount_percent: z.number().nullable().optional(),
    rating: z.number().nullable().optional(),
    review_count: z.number().int().nullable().optional(),
    images: z.array(z.string()).optional(),
    description: z.string().nullable().optional(),
    features: z.array(z.string()).optional(),
    specifications: z.record(z.string(), z.string()).nullable().optional(),
    categories: z.array(z.string()).optional(),
    seller: z
      .object({ name: z.string().nullable(), id: z.string().nullable(), rating: z.number().nullable() })
      .nullable()
      .optional(),
    variants: z
      .array(
        z.object({
          id: z.string().nullable(),
          attributes: z.record(z.string(), z.string()),
          price: z.number().nullable(),
          in_stock: z.boolean().nullable(),
          url: z.string().nullable(),
        }),
      )
      .optional(),
    gtin: z.string().nullable().optional(),
    mpn: z.string().nullable().optional(),
    sku: z.string().nullable().optional(),
    model: z.string().nullable().optional(),
    condition: z.string().nullable().optional(),
    shipping: z.string().nullable().optional(),
  })
  .describe('`basic` mode: id, url, title, price, currency, availability, in_stock; `rich` adds the rest');
export const MarketplaceAnswer = z.object({
  status: ok,
  marketplace: z.string(),
  product: Product.optional().describe('A product page'),
  products: z.array(Product).optional().describe('A search-results or category page (instead of product)'),
  sources: z.record(z.string(), z.string()).optional(),
});

const Ad = z.object({
  id: z.string(),
  status: z.enum(['active', 'inactive']),
  platforms: z.array(z.string()),
  started_at: iso.nullable(),
  ended_at: iso.nullable(),
  body: z.string().nullable(),
  title: z.string().nullable(),
  link_url: z.string().nullable(),
  cta: z.string().nullable(),
  media: z.array(z.object({ type: z.enum(['image', 'video']), url: z.string() })),
  snapshot_url: z.string().nullable(),
  collation_count: z.number().int(),
  spend: z
    .object({ lower: z.number().nullable(), upper: z.number().nullable(), currency: z.string().nullable() })
    .optional(),
  impressions: z.object({ lower: z.number().nullable(), upper: z.number().nullable() }).optional(),
});
export const MetaAdsAnswer = z.object({
  status: ok,
  advertiser: z.string(),
  country: z.string(),
  page: z.object({ id: z.string(), name: z.string().nullable(), url: z.string() }),
  ads: z.array(Ad),
  total: z.number().int().nullable(),
  source: z.enum(['web', 'graph_api']),
});

export const Monitor = z.object({
  monitor_id: z.string(),
  url: z.string(),
  interval: z.string(),
  interval_seconds: z.number().int(),
  watch: z.array(z.string()),
  webhook: z.string(),
  marketplace: z.string().optional(),
  schema: anyObject.optional(),
  conditions: z.array(z.object({ field: z.string(), op: z.string(), value: z.unknown().optional() })).optional(),
  actions: z.array(anyObject).optional().describe('Browser steps run before the page is read'),
  headers: z.record(z.string(), z.string()).optional().describe('Header names; values shown as "[hidden]"'),
  cookies: z.array(anyObject).optional().describe('Cookies; values shown as "[hidden]"'),
  mobile: z.boolean().optional(),
  location: anyObject.optional(),
  events: z.array(z.string()),
  notify: z.array(z.string()).optional().describe('Channels (by name) it notifies, beside the default ones'),
  state: z.enum(['active', 'paused']),
  health: z.enum(['ok', 'failing']),
  webhook_state: z.enum(['active', 'disabled']),
  webhook_disabled_at: iso.nullable().optional(),
  webhook_disabled_reason: z.string().nullable().optional(),
  created_at: iso,
  next_run_at: iso.nullable(),
  last_run_at: iso.nullable(),
});
export const Run = z.object({
  run_id: z.string(),
  trigger: z.enum(['schedule', 'manual']),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'skipped']),
  due_at: iso,
  started_at: iso.nullable(),
  finished_at: iso.nullable(),
  credits: z.number().int(),
  status_code: z.number().int().nullable(),
  values: anyObject.nullable(),
  changes: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('Per changed field: {from, to} (or a diff with hashes for large text)'),
  event_id: z.string().nullable(),
  error: z.string().nullable(),
});
export const MonitorDetail = Monitor.extend({
  consecutive_failures: z.number().int(),
  last_success_at: iso.nullable(),
  last_values: anyObject.nullable(),
  last_runs: z.array(Run),
  unchanged_runs_collapsed: z.number().int(),
});
export const Delivery = z.object({
  delivery_id: z.string(),
  event_id: z.string(),
  url: z.string().describe('Where the last attempt went'),
  state: z.enum(['pending', 'sending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  next_attempt_at: iso.nullable(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: iso,
  event: anyObject.describe('The body sent'),
  attempt_log: z.array(
    z.object({
      attempt: z.number().int(),
      manual: z.boolean(),
      url: z.string(),
      outcome: z.string(),
      started_at: iso,
      finished_at: iso.nullable(),
      status_code: z.number().int().nullable(),
      error: z.string().nullable(),
      duration_ms: z.number().int().nullable(),
    }),
  ),
});
