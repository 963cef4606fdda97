/**
 * Requests and answers of the API. Request types start from the generated bodies
 * (./generated/requests.ts, made from the server's own Zod objects) and only narrow what the
 * server validates by hand (`schema`, `interval`, `conditions` are `unknown` there). Answers are
 * written from docs/API.md: the server declares no response schemas to generate them from.
 */
import type * as Body from './generated/requests.js';

export type { Body };

// ---------------------------------------------------------------------------------------------
// Requests

export type SchemaType = 'string' | 'number' | 'integer' | 'boolean';
/** A field's type: a type name, a nested object, or a one-element array `[T]`. */
export type SchemaField = SchemaType | ExtractionSchema | [SchemaField];
/** What to extract: output field name → type (contract section 3; depth ≤ 5, ≤ 200 fields). */
export interface ExtractionSchema {
  [field: string]: SchemaField;
}

type WithSchema<T> = Omit<T, 'schema'> & { schema?: ExtractionSchema };

export type Format = NonNullable<Body.ScrapeBody['formats']>[number];
export type ScrapeRequest = WithSchema<Body.ScrapeBody>;
/** A synchronous crawl (≤ 1,000 pages); `startCrawl` runs a bigger one as a job. */
export type CrawlRequest = WithSchema<Omit<Body.CrawlBody, 'async'>>;
export type BatchScrapeRequest = WithSchema<Body.BatchScrapeBody>;
export type ExtractRequest = Omit<Body.ExtractBody, 'schema'> & { schema: ExtractionSchema };
export type MapRequest = Body.MapBody;
export type SearchRequest = Body.SearchBody;
export type MarketplaceRequest = Body.MarketplaceBody;
export type MetaAdsRequest = Body.MetaAdsBody;
export type ReplayRequest = Body.ReplayBody;

/** `<integer><s|m|h|d>`: `"30m"`, `"6h"`, `"1d"` (1 minute to 30 days; the server's minimum may be lower). */
export type Interval = `${number}${'s' | 'm' | 'h' | 'd'}`;
export type ConditionOp = 'changed' | 'increased' | 'decreased' | 'lt' | 'lte' | 'gt' | 'gte' | 'eq' | 'ne';
/** All conditions of a monitor must hold for an event; `field` must be watched. */
export interface MonitorCondition {
  field: string;
  op?: ConditionOp;
  value?: string | number | boolean | null;
}
export type MonitorEventType = NonNullable<Body.CreateMonitorBody['events']>[number];

export type CreateMonitorRequest = Omit<Body.CreateMonitorBody, 'interval' | 'schema' | 'conditions'> & {
  interval: Interval;
  schema?: ExtractionSchema;
  conditions?: MonitorCondition[];
};
export type UpdateMonitorRequest = Omit<Body.UpdateMonitorBody, 'interval' | 'conditions'> & {
  interval?: Interval;
  /** `null` clears them. */
  conditions?: MonitorCondition[] | null;
};

/** POST /v1/channels: an Apprise-style `url`, or `kind` with its fields. */
export type CreateChannelRequest = Body.PostChannelsBody;
/** PATCH /v1/channels/{id}: a new destination replaces the old one whole. */
export type UpdateChannelRequest = Body.PatchChannelsBody;
export type ChannelKind = NonNullable<Body.PostChannelsBody['kind']>;

/** A notification channel: where it sends with its secret part hidden, and its health. */
export interface Channel {
  channel_id: string;
  name: string;
  kind: ChannelKind;
  target: string;
  default: boolean;
  subject_template: string | null;
  body_template: string | null;
  state: 'active' | 'disabled';
  disabled_at?: string | null;
  disabled_reason?: string | null;
  health: {
    last_success_at: string | null;
    last_failure_at: string | null;
    consecutive_failures: number;
    failing_since: string | null;
    last_error: string | null;
  };
  created_at: string;
  updated_at: string;
}

/** POST /v1/channels/{id}/test: how the channel answered a test message. */
export interface ChannelTestResult {
  delivered: boolean;
  /** The HTTP status, or the SMTP reply code; null when nothing answered. */
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}

/** Paging of list endpoints. */
export interface PageQuery {
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

// ---------------------------------------------------------------------------------------------
// Answers

export interface PageMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  status_code: number;
  content_type: string;
  source_url: string;
  canonical_url?: string | null;
  /** PDFs: their page count. */
  pages?: number;
  cache?: 'hit' | 'miss';
  cached_at?: string;
  /** HTML pages: where the content came from (the main-content pick, a fallback, or a browser render). */
  content_source?: 'main' | 'wider' | 'body' | 'json_ld' | 'noscript' | 'app_state' | 'browser';
  /** HTML pages: the page's kind, from its markup and structure. */
  page_type?: 'article' | 'forum' | 'product' | 'listing' | 'collection' | 'documentation' | 'service' | 'other';
}

export interface ScrapeResult {
  status: 'ok';
  /** The final URL, after redirects. */
  url: string;
  markdown?: string;
  json?: Record<string, unknown>;
  /** Per JSON field, where its value came from (`json-ld:offers.price`, `meta:og:title` …). */
  sources?: Record<string, string>;
  html?: string;
  raw_html?: string;
  links?: string[];
  metadata: PageMetadata;
  /** Sentences saying the answer is less than it could be, and what would fix it. */
  warnings?: string[];
}

export interface CrawlPage {
  url: string;
  depth: number;
  status_code: number;
  title: string | null;
  markdown?: string;
  html?: string;
  json?: Record<string, unknown>;
  links?: string[];
}

export interface CrawlResult {
  status: 'ok';
  /** Breadth-first order. */
  pages: CrawlPage[];
  total: number;
  truncated: boolean;
  errors: { url: string; error: string; detail?: string }[];
}

export interface SearchHit {
  position: number;
  /** `[1]`, `[2]` …: quote it with the highlight. */
  citation: string;
  title: string;
  url: string;
  /** The result's host. */
  source: string;
  snippet: string;
  published_at?: string;
  markdown?: string;
  highlights: { text: string; score: number }[];
  score: number;
}

export interface SearchResult {
  status: 'ok';
  query: string;
  results: SearchHit[];
}

export type ExtractUrlResult =
  | { url: string; status: 'ok'; json: Record<string, unknown>; sources?: Record<string, string>; warnings?: string[] }
  | { url: string; status: 'error'; error: string; detail: string };

export interface ExtractResult {
  status: 'ok';
  /** Per field, the first non-null value in the order of `urls` (arrays concatenated). */
  data: Record<string, unknown>;
  results: ExtractUrlResult[];
}

export interface MapResult {
  status: 'ok';
  links: { url: string; title?: string }[];
  /** Every distinct URL found, before `limit`. */
  total: number;
}

export type Availability = 'in_stock' | 'out_of_stock' | 'preorder' | 'limited' | 'unknown';

/** `mode: "basic"` answers these fields only. */
export interface ProductSummary {
  id: string | null;
  url: string;
  title: string | null;
  price: number | null;
  /** ISO 4217. */
  currency: string | null;
  availability: Availability;
  in_stock: boolean | null;
}

export interface Product extends ProductSummary {
  brand: string | null;
  list_price: number | null;
  discount_percent: number | null;
  rating: number | null;
  review_count: number | null;
  images: string[];
  description: string | null;
  features: string[];
  specifications: Record<string, string> | null;
  categories: string[];
  seller: { name: string | null; id: string | null; rating: number | null } | null;
  variants: {
    id: string | null;
    attributes: Record<string, string>;
    price: number | null;
    in_stock: boolean | null;
    url: string | null;
  }[];
  gtin: string | null;
  mpn: string | null;
  sku: string | null;
  model: string | null;
  condition: string | null;
  shipping: string | null;
}

export interface MarketplaceResult {
  status: 'ok';
  marketplace: string;
  /** A product page (with `mode: "basic"` only the ProductSummary fields are present). */
  product?: Product;
  /** A search-results or category page: its products in page order. */
  products?: ProductSummary[];
  /** Per field, which reader answered it. */
  sources: Record<string, string>;
}

export interface MetaAd {
  id: string;
  status: 'active' | 'inactive';
  platforms: string[];
  started_at: string | null;
  ended_at: string | null;
  body: string | null;
  title: string | null;
  link_url: string | null;
  cta: string | null;
  media: { type: 'image' | 'video'; url: string }[];
  snapshot_url: string | null;
  collation_count: number;
  spend?: { lower: number | null; upper: number | null; currency: string | null };
  impressions?: { lower: number | null; upper: number | null };
}

export interface MetaAdsResult {
  status: 'ok';
  advertiser: string;
  country: string;
  page: { id: string; name: string | null; url: string };
  ads: MetaAd[];
  total: number | null;
  source: 'web' | 'graph_api';
}

export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface Job {
  job_id: string;
  kind: 'crawl' | 'batch';
  state: JobState;
  progress: { done: number; failed: number; queued: number };
  created_at: string;
  finished_at: string | null;
}

/** A page of a job: a crawl page, or a batch page (scrape's answer with `final_url`), or a failure. */
export type JobPage =
  | (CrawlPage & { error?: undefined })
  | (Omit<ScrapeResult, 'status'> & { final_url: string; status_code: number; title: string | null; error?: undefined })
  | { url: string; depth?: number; error: string; detail?: string };

export interface JobWithPages {
  status: 'ok';
  job: Job;
  pages: JobPage[];
  /** Poll with it while the job runs; `null` after an ended job's last page. */
  next_cursor: string | null;
}

export interface JobList {
  status: 'ok';
  jobs: Job[];
  next_cursor: string | null;
}

export interface Monitor {
  monitor_id: string;
  url: string;
  interval: string;
  interval_seconds: number;
  watch: string[];
  webhook: string;
  marketplace?: string;
  schema?: ExtractionSchema;
  conditions?: MonitorCondition[];
  events: MonitorEventType[];
  state: 'active' | 'paused';
  health: 'ok' | 'failing';
  webhook_state: 'active' | 'disabled';
  /** Notification channels told of its events, by name. */
  notify?: string[];
  webhook_disabled_at?: string | null;
  webhook_disabled_reason?: string | null;
  created_at: string;
  next_run_at: string | null;
  last_run_at: string | null;
}

export interface MonitorRun {
  run_id: string;
  trigger: 'schedule' | 'manual';
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';
  due_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  credits: number;
  status_code: number | null;
  values: Record<string, unknown> | null;
  changes: Record<string, { from: unknown; to: unknown }> | null;
  event_id: string | null;
  error: string | null;
}

export interface MonitorDetail extends Monitor {
  consecutive_failures: number;
  last_success_at: string | null;
  last_values: Record<string, unknown> | null;
  /** The 10 newest runs. */
  last_runs: MonitorRun[];
  /** Older unchanged runs counted, not kept. */
  unchanged_runs_collapsed: number;
}

export interface MonitorList {
  status: 'ok';
  monitors: Monitor[];
  next_cursor: string | null;
}

export interface MonitorRuns {
  status: 'ok';
  runs: MonitorRun[];
  unchanged_runs_collapsed: { total: number; days: { day: string; runs: number }[] };
}

export interface MonitorHistory {
  status: 'ok';
  field: string;
  /** Oldest first within a page. */
  points: { at: string; value: unknown }[];
  /** Pages to older points. */
  next_cursor: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  manual: boolean;
  url: string;
  outcome: 'sending' | 'succeeded' | 'failed' | 'interrupted';
  started_at: string;
  finished_at: string | null;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
}

export interface Delivery {
  delivery_id: string;
  event_id: string;
  /** Where the last attempt went. */
  url: string;
  state: 'pending' | 'sending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  /** The body sent. */
  event: WebhookEvent;
  attempt_log: DeliveryAttempt[];
}

export interface Account {
  account_id: string;
  email: string;
  credits: number;
}

// ---------------------------------------------------------------------------------------------
// Webhook events (contract section 5)

/** A changed field: whole values, or for a string over 16 KiB a capped unified diff with hashes. */
export type FieldChange =
  | { from: unknown; to: unknown }
  | { diff: string; diff_truncated?: true; from_sha256: string | null; to_sha256: string | null }
  | { from_sha256: string | null; to_sha256: string | null; omitted: true };

interface EventBase {
  /** `evt_…`: the same on every retry and redelivery; de-duplicate on it. */
  id: string;
  monitor_id: string;
  url: string;
  /** Counts the monitor's events from 1: drop one not above the last applied. */
  sequence: number;
  at: string;
}

export interface ChangeDetectedEvent extends EventBase {
  event: 'change.detected';
  changes: Record<string, FieldChange>;
}

export interface MonitorFailingEvent extends EventBase {
  event: 'monitor.failing';
  consecutive_failures: number;
  error: string | null;
}

export interface MonitorRecoveredEvent extends EventBase {
  event: 'monitor.recovered';
  consecutive_failures: number;
}

export type WebhookEvent = ChangeDetectedEvent | MonitorFailingEvent | MonitorRecoveredEvent;
