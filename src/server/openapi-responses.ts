/**
 * What every operation answers, for the OpenAPI document and the reference at /docs: the success
 * body (a Zod object, converted like the request bodies), the error bodies each route can return
 * (the contract's `{error, detail}` with the codes of section 2, grouped by status) and examples.
 * Documentation only: answers are serialised as the routes build them (see openapi.ts).
 */
import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { CODES_WITHOUT_DETAIL, ERROR_CATALOGUE } from '../errors.js';
import { docRoute, jsonSchema, type OperationDoc } from './openapi.js';

// ---------------------------------------------------------------------------------------------
// Errors

const ERROR_EXAMPLES: Record<ErrorCode, Record<string, unknown>> = {
  invalid_request: { error: 'invalid_request', detail: 'timeout_ms: must be an integer from 1000 to 120000' },
  unauthorized: {
    error: 'unauthorized',
    detail:
      'authorization: missing; send the header "Authorization: Bearer trawl_…" with an API key (npx trawl keys create --email … or the dashboard\'s API keys page)',
  },
  insufficient_credits: { error: 'insufficient_credits' },
  forbidden_target: {
    error: 'forbidden_target',
    detail:
      'intranet.example resolves to 10.0.0.7, a private address; set TRAWL_ALLOW_PRIVATE_NETWORK=1 to allow private targets',
  },
  not_found: { error: 'not_found', detail: 'no monitor mon_4Jq8sPzK2mVb7TcXw9Ld' },
  payload_too_large: { error: 'payload_too_large', detail: 'body: the request body is larger than 1 MiB' },
  unsupported_media_type: {
    error: 'unsupported_media_type',
    detail: 'body: send the request body as JSON with Content-Type: application/json',
  },
  invalid_schema: { error: 'invalid_schema', detail: "schema.price: unknown type 'money'" },
  action_failed: { error: 'action_failed', detail: "actions[2]: no element matches '#more' within 5000 ms" },
  rate_limited: { error: 'rate_limited', retry_after: 2 },
  internal_error: { error: 'internal_error' },
  fetch_failed: { error: 'fetch_failed', detail: 'https://example.com/gone answered HTTP 404' },
  blocked: {
    error: 'blocked',
    detail:
      'https://www.amazon.com/dp/B0C1234567 answered with a bot wall (amazon robot check); it was not scraped and no credit was charged',
  },
  timeout: { error: 'timeout', detail: 'https://example.com/slow did not answer within 30000 ms' },
};

const WHEN: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'the body or a parameter is not valid; `detail` names the field',
  unauthorized: 'the API key is missing, malformed, unknown or revoked',
  insufficient_credits: 'the account has no credit left (nothing was done)',
  forbidden_target: 'the URL (or a redirect hop) resolves to a private, loopback, link-local or metadata address',
  not_found: 'no such resource for this account',
  payload_too_large:
    'the body is over 1 MiB (80 MiB for a batch scrape), or the answer would be over what one answer may hold (TRAWL_ANSWER_MAX_MB, 32 MiB; `detail` starts `answer:`; no credit is charged)',
  unsupported_media_type: 'the body was not sent as application/json',
  invalid_schema: 'the `schema` object is missing where required or not valid; `detail` names the path',
  rate_limited:
    'the key is over its rate limit, or the account already has 2 bodies over 1 MiB in flight; `retry_after` (and the Retry-After header) says in how many seconds to retry',
  internal_error: 'a bug, logged with the request id; no stack trace is sent',
  fetch_failed:
    'the target could not be fetched (DNS, connection, TLS, HTTP ≥ 400, unsupported content); no credit is charged',
  blocked: 'the target answered with a bot wall or captcha; no credit is charged',
  timeout: 'the work used its time budget (`timeout_ms`); no credit is charged',
};

const header = (description: string, type: 'string' | 'integer' = 'string') => ({ type, description });
const REQUEST_ID = { 'x-request-id': header("This request's id (`req_…`), also in the usage log") };
const RATE_HEADERS = {
  ...REQUEST_ID,
  'x-ratelimit-limit': header('Requests per minute of this key', 'integer'),
  'x-ratelimit-remaining': header('Whole requests left in the bucket after this one', 'integer'),
  'x-ratelimit-reset': header('Seconds until the bucket is full again', 'integer'),
};

/** Error responses for the given codes, one per status (422 and 502 carry two codes each). */
function errors(...codes: ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes)
    byStatus.set(ERROR_CATALOGUE[c].status, [...(byStatus.get(ERROR_CATALOGUE[c].status) ?? []), c]);
  const out: Record<string, unknown> = {};
  for (const [status, group] of byStatus) {
    const withDetail = group.some((c) => !CODES_WITHOUT_DETAIL.has(c));
    const limited = group.includes('rate_limited');
    const schema = {
      type: 'object',
      description: "The contract's error body: `error` is the code; `detail` a sentence a person can act on.",
      required: ['error', ...(limited ? ['retry_after'] : []), ...(withDetail ? ['detail'] : [])],
      properties: {
        error: { type: 'string', enum: group },
        ...(withDetail ? { detail: { type: 'string' } } : {}),
        // A body with several faults: every one, the first being `detail` (issue 43).
        ...(group.includes('invalid_request')
          ? {
              errors: {
                type: 'array',
                description: 'Every fault of the body, in order, when there are two or more',
                items: {
                  type: 'object',
                  required: ['field', 'detail'],
                  properties: { field: { type: 'string' }, detail: { type: 'string' } },
                  additionalProperties: false,
                },
              },
            }
          : {}),
        ...(limited
          ? {
              retry_after: {
                type: 'integer',
                minimum: 1,
                description: 'Whole seconds until a request would be accepted',
              },
            }
          : {}),
      },
      additionalProperties: false,
    };
    out[status] = {
      description: group.map((c) => `\`${c}\`: ${WHEN[c] ?? ERROR_CATALOGUE[c].message}`).join('; '),
      headers: limited
        ? { ...REQUEST_ID, 'retry-after': header('Seconds to wait, the same as `retry_after`', 'integer') }
        : REQUEST_ID,
      content: {
        'application/json': {
          schema,
          examples: Object.fromEntries(group.map((c) => [c, { summary: c, value: ERROR_EXAMPLES[c] }])),
        },
      },
    };
  }
  return out;
}

/** Every /v1 request can meet these (key, rate limit, a bug). */
const ALWAYS: ErrorCode[] = ['unauthorized', 'rate_limited', 'internal_error'];
/** A JSON body that cannot be read. */
const BODY: ErrorCode[] = ['invalid_request', 'payload_too_large', 'unsupported_media_type'];
/** Billable work on a target page. */
const FETCHING: ErrorCode[] = ['insufficient_credits', 'forbidden_target', 'fetch_failed', 'blocked', 'timeout'];

/** A success answer with its schema and one example. */
function answer(
  status: number,
  description: string,
  schema: z.ZodType,
  example: unknown,
  headers: Record<string, unknown> = RATE_HEADERS,
): Record<string, unknown> {
  return {
    [status]: {
      description,
      headers,
      content: { 'application/json': { schema: jsonSchema(schema, 'output'), example } },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Shapes of the answers

const ok = z.literal('ok');
const iso = z.string().describe('ISO-8601 date and time, UTC');
const anyObject = z.record(z.string(), z.unknown());
const cursor = z.string().nullable().describe('Pass as `cursor` for the next page; null when there is none');

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
const ScrapeAnswer = z.object({ status: ok, ...Scraped });

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
const CrawlAnswer = z.object({
  status: ok,
  pages: z.array(CrawlPage).describe('Breadth-first order'),
  total: z.number().int(),
  truncated: z.boolean().describe('The page limit or the time budget stopped the crawl with URLs still queued'),
  errors: z.array(z.object({ url: z.string(), error: z.string(), detail: z.string().optional() })),
});

const Progress = z.object({ done: z.number().int(), failed: z.number().int(), queued: z.number().int() });
const Job = z.object({
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
const JobAnswer = z.object({ status: ok, job: Job });
const JobPage = anyObject.describe(
  'A crawl page (url, depth, status_code, title, formats) or a batch page (url, final_url, status_code, title, formats, metadata); a failed one is {url, depth?, error, detail}',
);

const ExtractAnswer = z.object({
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

const MapAnswer = z.object({
  status: ok,
  links: z.array(z.object({ url: z.string(), title: z.string().optional() })),
  total: z.number().int().describe('Distinct same-site URLs found, before `limit`'),
});

const SearchAnswer = z.object({
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
const MarketplaceAnswer = z.object({
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
const MetaAdsAnswer = z.object({
  status: ok,
  advertiser: z.string(),
  country: z.string(),
  page: z.object({ id: z.string(), name: z.string().nullable(), url: z.string() }),
  ads: z.array(Ad),
  total: z.number().int().nullable(),
  source: z.enum(['web', 'graph_api']),
});

const Monitor = z.object({
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
  state: z.enum(['active', 'paused']),
  health: z.enum(['ok', 'failing']),
  webhook_state: z.enum(['active', 'disabled']),
  webhook_disabled_at: iso.nullable().optional(),
  webhook_disabled_reason: z.string().nullable().optional(),
  created_at: iso,
  next_run_at: iso.nullable(),
  last_run_at: iso.nullable(),
});
const Run = z.object({
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
const MonitorDetail = Monitor.extend({
  consecutive_failures: z.number().int(),
  last_success_at: iso.nullable(),
  last_values: anyObject.nullable(),
  last_runs: z.array(Run),
  unchanged_runs_collapsed: z.number().int(),
});
const Delivery = z.object({
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

// ---------------------------------------------------------------------------------------------
// Examples

const AT = '2026-11-26T09:30:00.000Z';
const META = {
  title: 'Deep Sea Widgets',
  description: 'Widgets for the deep sea.',
  language: 'en',
  status_code: 200,
  content_type: 'text/html; charset=utf-8',
  source_url: 'https://example.com/widgets',
  canonical_url: 'https://example.com/widgets',
};
const JOB = {
  job_id: 'job_7Hk2pQx9ZmW4sT1vB8cN',
  kind: 'crawl',
  state: 'running',
  progress: { done: 120, failed: 3, queued: 877 },
  created_at: AT,
  finished_at: null,
};
const MONITOR = {
  monitor_id: 'mon_4Jq8sPzK2mVb7TcXw9Ld',
  url: 'https://shop.example.com/lamp',
  interval: '6h',
  interval_seconds: 21600,
  watch: ['price', 'in_stock'],
  webhook: 'https://hooks.example.com/trawl',
  schema: { price: 'number', in_stock: 'boolean' },
  events: ['change.detected'],
  state: 'active',
  health: 'ok',
  webhook_state: 'active',
  created_at: AT,
  next_run_at: '2026-11-26T12:41:07.000Z',
  last_run_at: null,
};
const RUN = {
  run_id: 'run_9Pz3kLw7QbX2mVt5Hs1c',
  trigger: 'manual',
  status: 'succeeded',
  due_at: AT,
  started_at: AT,
  finished_at: '2026-11-26T09:30:01.204Z',
  credits: 1,
  status_code: 200,
  values: { price: 17.99, in_stock: true },
  changes: { price: { from: 19.99, to: 17.99 } },
  event_id: 'evt_2Wq8mZk4RbN7xP1sTv6L',
  error: null,
};
const DELIVERY = {
  delivery_id: 'dlv_5Tn8qWz2KbM4xR7pLs9V',
  event_id: 'evt_2Wq8mZk4RbN7xP1sTv6L',
  url: 'https://hooks.example.com/trawl',
  state: 'succeeded',
  attempts: 2,
  next_attempt_at: null,
  last_status: 200,
  last_error: null,
  created_at: AT,
  event: {
    id: 'evt_2Wq8mZk4RbN7xP1sTv6L',
    event: 'change.detected',
    monitor_id: MONITOR.monitor_id,
    url: MONITOR.url,
    sequence: 4,
    changes: { price: { from: 19.99, to: 17.99 } },
    at: AT,
  },
  attempt_log: [
    {
      attempt: 1,
      manual: false,
      url: 'https://hooks.example.com/trawl',
      outcome: 'failed',
      started_at: AT,
      finished_at: AT,
      status_code: 503,
      error: 'the receiver answered 503',
      duration_ms: 41,
    },
    {
      attempt: 2,
      manual: false,
      url: 'https://hooks.example.com/trawl',
      outcome: 'succeeded',
      started_at: '2026-11-26T09:30:06.000Z',
      finished_at: '2026-11-26T09:30:06.052Z',
      status_code: 200,
      error: null,
      duration_ms: 52,
    },
  ],
};

// ---------------------------------------------------------------------------------------------
// Parameters

const idParam = (prefix: string, what: string) => ({
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: `^${prefix}_[0-9A-Za-z]{20}$`, description: `The ${what}'s id` } },
});
const limitQuery = (fallback: number, max: number, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: max, default: fallback }, ...extra },
});
const cursorParam = { cursor: { type: 'string', description: 'next_cursor of the previous page' } };

// ---------------------------------------------------------------------------------------------
// Operations

const doc = (d: OperationDoc) => d;

export const docs = {
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
  createMonitor: doc({
    operationId: 'createMonitor',
    tags: ['Monitors'],
    description: 'Costs no credit; each run does. The account needs a credit to create one.',
    bodyExamples: {
      price: {
        summary: 'Watch a price and stock every 6 hours',
        value: {
          url: 'https://shop.example.com/lamp',
          interval: '6h',
          watch: ['price', 'in_stock'],
          webhook: 'https://hooks.example.com/trawl',
          schema: { price: 'number', in_stock: 'boolean' },
        },
      },
    },
    response: {
      ...answer(201, 'The monitor', z.object({ status: ok, monitor: Monitor }), { status: 'ok', monitor: MONITOR }),
      ...errors(...BODY, ...ALWAYS, 'insufficient_credits', 'forbidden_target', 'invalid_schema'),
    },
  }),
  listMonitors: doc({
    operationId: 'listMonitors',
    tags: ['Monitors'],
    querystring: limitQuery(50, 100, cursorParam),
    response: {
      ...answer(
        200,
        'Monitors, newest first',
        z.object({ status: ok, monitors: z.array(Monitor), next_cursor: cursor }),
        { status: 'ok', monitors: [MONITOR], next_cursor: null },
      ),
      ...errors('invalid_request', ...ALWAYS),
    },
  }),
  getMonitor: doc({
    operationId: 'getMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    response: {
      ...answer(200, 'The monitor with its last values and runs', z.object({ status: ok, monitor: MonitorDetail }), {
        status: 'ok',
        monitor: {
          ...MONITOR,
          last_run_at: AT,
          consecutive_failures: 0,
          last_success_at: AT,
          last_values: RUN.values,
          last_runs: [RUN],
          unchanged_runs_collapsed: 0,
        },
      }),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  updateMonitor: doc({
    operationId: 'updateMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    bodyExamples: {
      pause: { summary: 'Pause it', value: { state: 'paused' } },
      conditions: {
        summary: 'Hourly, and only tell when the price drops under 40',
        value: { interval: '1h', conditions: [{ field: 'price', op: 'lt', value: 40 }] },
      },
    },
    response: {
      ...answer(200, 'The monitor as changed', z.object({ status: ok, monitor: Monitor }), {
        status: 'ok',
        monitor: { ...MONITOR, state: 'paused', next_run_at: null },
      }),
      ...errors(...BODY, 'not_found', 'forbidden_target', ...ALWAYS),
    },
  }),
  deleteMonitor: doc({
    operationId: 'deleteMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    response: {
      ...answer(
        200,
        'Deleted, with its runs and unsent deliveries',
        z.object({ status: ok, monitor_id: z.string(), deleted: z.literal(true) }),
        { status: 'ok', monitor_id: MONITOR.monitor_id, deleted: true },
      ),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  runMonitor: doc({
    operationId: 'runMonitor',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    description: 'Runs now (also when paused); the run costs its credit (none left: the run is recorded `skipped`).',
    response: {
      ...answer(200, 'The run as it ended', z.object({ status: ok, run: Run }), { status: 'ok', run: RUN }),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  listMonitorRuns: doc({
    operationId: 'listMonitorRuns',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    querystring: limitQuery(50, 500),
    response: {
      ...answer(
        200,
        'Runs, newest first, and the unchanged runs older than a day counted per UTC day',
        z.object({
          status: ok,
          runs: z.array(Run),
          unchanged_runs_collapsed: z.object({
            total: z.number().int(),
            days: z.array(z.object({ day: z.string(), runs: z.number().int() })),
          }),
        }),
        {
          status: 'ok',
          runs: [RUN],
          unchanged_runs_collapsed: { total: 3, days: [{ day: '2026-11-24', runs: 3 }] },
        },
      ),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  getMonitorHistory: doc({
    operationId: 'getMonitorHistory',
    tags: ['Monitors'],
    params: idParam('mon', 'monitor'),
    querystring: {
      type: 'object',
      required: ['field'],
      properties: {
        field: { type: 'string', description: 'A watched field' },
        ...limitQuery(100, 1000).properties,
        ...cursorParam,
      },
    },
    response: {
      ...answer(
        200,
        'Values of the field over successful runs, oldest first within the page',
        z.object({
          status: ok,
          field: z.string(),
          points: z.array(z.object({ at: iso, value: z.unknown() })),
          next_cursor: cursor,
        }),
        {
          status: 'ok',
          field: 'price',
          points: [
            { at: '2026-11-25T09:30:00.000Z', value: 19.99 },
            { at: AT, value: 17.99 },
          ],
          next_cursor: null,
        },
      ),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  listMonitorDeliveries: doc({
    operationId: 'listMonitorDeliveries',
    tags: ['Webhooks'],
    params: idParam('mon', 'monitor'),
    querystring: limitQuery(50, 500),
    response: {
      ...answer(
        200,
        'Deliveries, newest first, with every attempt',
        z.object({ status: ok, deliveries: z.array(Delivery) }),
        { status: 'ok', deliveries: [DELIVERY] },
      ),
      ...errors('invalid_request', 'not_found', ...ALWAYS),
    },
  }),
  redeliver: doc({
    operationId: 'redeliverDelivery',
    tags: ['Webhooks'],
    params: {
      type: 'object',
      required: ['id', 'delivery_id'],
      properties: {
        id: idParam('mon', 'monitor').properties.id,
        delivery_id: { type: 'string', pattern: '^dlv_[0-9A-Za-z]{20}$' },
      },
    },
    description:
      "Sends the event again now: same body and id, fresh timestamp and signatures, the monitor's current webhook URL; logged as a manual attempt.",
    response: {
      ...answer(200, 'The delivery with the new attempt', z.object({ status: ok, delivery: Delivery }), {
        status: 'ok',
        delivery: DELIVERY,
      }),
      ...errors('not_found', ...ALWAYS),
    },
  }),
  replayWebhooks: doc({
    operationId: 'replayWebhooks',
    tags: ['Webhooks'],
    bodyExamples: {
      all: { summary: 'Every failed delivery since a time', value: { since: '2026-11-25T00:00:00Z' } },
      monitor: {
        summary: "One monitor's",
        value: { since: '2026-11-25T00:00:00Z', monitor_id: 'mon_4Jq8sPzK2mVb7TcXw9Ld' },
      },
    },
    response: {
      ...answer(
        200,
        'How many failed deliveries were scheduled again (the scheduler sends them)',
        z.object({ status: ok, replayed: z.number().int() }),
        { status: 'ok', replayed: 3 },
      ),
      ...errors(...BODY, 'not_found', ...ALWAYS),
    },
  }),
};

// ---------------------------------------------------------------------------------------------
// Operator endpoints (public)

const Check = z
  .object({ status: z.enum(['ok', 'fail']), latency_ms: z.number().int().optional(), error: z.string().optional() })
  .catchall(z.unknown());
const Readiness = z.object({
  status: z.enum(['ok', 'fail']),
  checks: z.record(z.string(), Check).describe('store always; redis when REDIS_URL is set; workers in scale-out'),
});

export const healthDoc = docRoute('Liveness: the process answers', {
  operationId: 'healthz',
  tags: ['Operations'],
  public: true,
  response: answer(200, 'Alive', z.object({ status: ok }), { status: 'ok' }, REQUEST_ID),
});

export const readyDoc = docRoute(
  'Readiness: the store answers, Redis answers (when configured), workers are alive (scale-out)',
  {
    operationId: 'readyz',
    tags: ['Operations'],
    public: true,
    response: {
      ...answer(
        200,
        'Ready',
        Readiness,
        {
          status: 'ok',
          checks: {
            store: { status: 'ok', latency_ms: 1, dialect: 'postgres' },
            redis: { status: 'ok', latency_ms: 0 },
            workers: { status: 'ok', live: 2 },
          },
        },
        REQUEST_ID,
      ),
      ...answer(
        503,
        'Not ready: the failed checks say why (no addresses, no credentials)',
        Readiness,
        {
          status: 'fail',
          checks: {
            store: { status: 'fail', error: 'no answer within 2000 ms' },
            redis: { status: 'ok', latency_ms: 0 },
            workers: { status: 'ok', live: 2 },
          },
        },
        REQUEST_ID,
      ),
    },
  },
);
