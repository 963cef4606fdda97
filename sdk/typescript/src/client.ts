/**
 * The Trawl client: one method per endpoint of the API (docs/API.md). Each call takes its
 * request body and, last, `RequestOptions` (`signal`, `timeoutMs`, `maxRetries`).
 *
 * Which calls are retried on 502/503/504 and lost connections (`idempotent`) is decided here,
 * per endpoint: reads, cancels, deletes, updates and the webhook replay may be repeated; calls
 * that charge a credit, start a job, create a monitor or send a webhook are not, since the first
 * attempt may have done its work. Any call is retried on 429, which means "not processed".
 */
import { Transport, type Call, type RequestOptions, type RetryInfo } from './http.js';
import { jobPages, waitForJob, type JobPagesOptions, type WaitForJobOptions } from './jobs.js';
import type * as T from './types.js';

export interface TrawlOptions {
  /** `trawl_…`. @default process.env.TRAWL_API_KEY */
  apiKey?: string;
  /** The service's root URL. @default process.env.TRAWL_API_URL, else http://127.0.0.1:3000 */
  baseUrl?: string;
  /** Attempts after the first one (see the module comment for which calls). @default 2 */
  maxRetries?: number;
  /** First backoff step after a 502/503/504 (doubles each time, with jitter). @default 500 */
  retryBaseDelayMs?: number;
  /** Longest backoff step, and the longest 429 wait honoured; a longer `retry_after` is thrown at once. @default 60000 */
  maxRetryDelayMs?: number;
  /** Give up on one attempt after this long (ms); 0 = never. Above the server's longest budget (a 300 s crawl) so its 504 comes first. @default 330000 */
  timeoutMs?: number;
  /** A fetch implementation (tests, proxies). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** Told before each retry (logging, metrics). */
  onRetry?: (info: RetryInfo) => void;
}

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
const seg = (id: string) => encodeURIComponent(id);

export class Trawl {
  readonly #http: Transport;

  constructor(options: TrawlOptions = {}) {
    const apiKey = options.apiKey ?? env('TRAWL_API_KEY');
    if (!apiKey) throw new TypeError('Trawl: apiKey is required (or set TRAWL_API_KEY)');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('Trawl: no global fetch here; pass options.fetch');
    this.#http = new Transport({
      apiKey,
      baseUrl: options.baseUrl ?? env('TRAWL_API_URL') ?? 'http://127.0.0.1:3000',
      maxRetries: options.maxRetries ?? 2,
      baseDelayMs: options.retryBaseDelayMs ?? 500,
      maxDelayMs: options.maxRetryDelayMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 330_000,
      fetch: fetchImpl,
      headers: options.headers ?? {},
      onRetry: options.onRetry,
    });
  }

  #call<R>(call: Call, options?: RequestOptions): Promise<R> {
    return this.#http.request<R>(call, options);
  }

  // --- Pages and sites (each charges one credit: never retried on 502/504) --------------------

  /** POST /v1/scrape: one URL as markdown, html, links, schema JSON. */
  scrape(body: T.ScrapeRequest, options?: RequestOptions): Promise<T.ScrapeResult> {
    return this.#call({ method: 'POST', path: '/v1/scrape', body, idempotent: false }, options);
  }

  /** POST /v1/crawl: a site breadth-first, synchronously (≤ 1,000 pages). */
  crawl(body: T.CrawlRequest, options?: RequestOptions): Promise<T.CrawlResult> {
    return this.#call(
      { method: 'POST', path: '/v1/crawl', body: { ...body, async: undefined }, idempotent: false },
      options,
    );
  }

  /** POST /v1/map: a site's URLs without their content. */
  map(body: T.MapRequest, options?: RequestOptions): Promise<T.MapResult> {
    return this.#call({ method: 'POST', path: '/v1/map', body, idempotent: false }, options);
  }

  /** POST /v1/search: web search, re-ranked, with citations and highlights. */
  search(body: T.SearchRequest, options?: RequestOptions): Promise<T.SearchResult> {
    return this.#call({ method: 'POST', path: '/v1/search', body, idempotent: false }, options);
  }

  /** POST /v1/extract: schema-guided JSON from 1–20 URLs, merged. */
  extract(body: T.ExtractRequest, options?: RequestOptions): Promise<T.ExtractResult> {
    return this.#call({ method: 'POST', path: '/v1/extract', body, idempotent: false }, options);
  }

  /** POST /v1/marketplace: a product record (or a results page's products). */
  marketplace(body: T.MarketplaceRequest, options?: RequestOptions): Promise<T.MarketplaceResult> {
    return this.#call({ method: 'POST', path: '/v1/marketplace', body, idempotent: false }, options);
  }

  /** POST /v1/meta-ads: an advertiser's ads from the Ad Library. */
  metaAds(body: T.MetaAdsRequest, options?: RequestOptions): Promise<T.MetaAdsResult> {
    return this.#call({ method: 'POST', path: '/v1/meta-ads', body, idempotent: false }, options);
  }

  // --- Jobs ------------------------------------------------------------------------------------

  /** POST /v1/crawl with `async: true`: a crawl of up to 100,000 pages as a job (1 credit). */
  async startCrawl(body: T.CrawlRequest, options?: RequestOptions): Promise<T.Job> {
    return (
      await this.#call<{ job: T.Job }>(
        { method: 'POST', path: '/v1/crawl', body: { ...body, async: true }, idempotent: false },
        options,
      )
    ).job;
  }

  /** POST /v1/batch/scrape: up to 10,000 URLs as a job (1 credit). */
  async startBatchScrape(body: T.BatchScrapeRequest, options?: RequestOptions): Promise<T.Job> {
    return (
      await this.#call<{ job: T.Job }>({ method: 'POST', path: '/v1/batch/scrape', body, idempotent: false }, options)
    ).job;
  }

  /** GET /v1/jobs/{id}: the job and one page of its pages (`limit` ≤ 100, `cursor`). */
  getJob(id: string, query: T.PageQuery = {}, options?: RequestOptions): Promise<T.JobWithPages> {
    return this.#call({ method: 'GET', path: `/v1/jobs/${seg(id)}`, query: { ...query }, idempotent: true }, options);
  }

  /** Every page of a job across cursors, waiting for pages still to come while it runs (`follow`). */
  jobPages(id: string, options?: JobPagesOptions): AsyncGenerator<T.JobPage, void, undefined> {
    return jobPages((i, q, o) => this.getJob(i, q, o), id, options);
  }

  /** Polls a job until it is completed, failed or cancelled; `onProgress` hears each change. */
  waitForJob(id: string, options?: WaitForJobOptions): Promise<T.Job> {
    return waitForJob((i, q, o) => this.getJob(i, q, o), id, options);
  }

  /** DELETE /v1/jobs/{id}: no new page starts; pages done are kept. */
  async cancelJob(id: string, options?: RequestOptions): Promise<T.Job> {
    return (
      await this.#call<{ job: T.Job }>({ method: 'DELETE', path: `/v1/jobs/${seg(id)}`, idempotent: true }, options)
    ).job;
  }

  /** GET /v1/jobs: the account's jobs, newest first. */
  listJobs(query: T.PageQuery = {}, options?: RequestOptions): Promise<T.JobList> {
    return this.#call({ method: 'GET', path: '/v1/jobs', query: { ...query }, idempotent: true }, options);
  }

  // --- Monitors (no credit; each run costs one) -------------------------------------------------

  /** POST /v1/monitors: watch fields of a page and get a signed webhook when they change. */
  async createMonitor(body: T.CreateMonitorRequest, options?: RequestOptions): Promise<T.Monitor> {
    return (
      await this.#call<{ monitor: T.Monitor }>(
        { method: 'POST', path: '/v1/monitors', body, idempotent: false },
        options,
      )
    ).monitor;
  }

  /** GET /v1/monitors: newest first (`limit` ≤ 100, `cursor`). */
  listMonitors(query: T.PageQuery = {}, options?: RequestOptions): Promise<T.MonitorList> {
    return this.#call({ method: 'GET', path: '/v1/monitors', query: { ...query }, idempotent: true }, options);
  }

  /** Every monitor of the account, across cursors. */
  async *iterateMonitors(
    query: Omit<T.PageQuery, 'cursor'> = {},
    options?: RequestOptions,
  ): AsyncGenerator<T.Monitor, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.listMonitors({ ...query, cursor }, options);
      yield* page.monitors;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** GET /v1/monitors/{id}: with last values and the 10 newest runs. */
  async getMonitor(id: string, options?: RequestOptions): Promise<T.MonitorDetail> {
    return (
      await this.#call<{ monitor: T.MonitorDetail }>(
        { method: 'GET', path: `/v1/monitors/${seg(id)}`, idempotent: true },
        options,
      )
    ).monitor;
  }

  /** PATCH /v1/monitors/{id}: interval, watch, webhook, state, conditions, events, webhook_state. */
  async updateMonitor(id: string, body: T.UpdateMonitorRequest, options?: RequestOptions): Promise<T.Monitor> {
    return (
      await this.#call<{ monitor: T.Monitor }>(
        { method: 'PATCH', path: `/v1/monitors/${seg(id)}`, body, idempotent: true },
        options,
      )
    ).monitor;
  }

  /** DELETE /v1/monitors/{id}: its runs, events and unsent deliveries go with it. */
  deleteMonitor(id: string, options?: RequestOptions): Promise<{ status: 'ok'; monitor_id: string; deleted: true }> {
    return this.#call({ method: 'DELETE', path: `/v1/monitors/${seg(id)}`, idempotent: true }, options);
  }

  /** POST /v1/monitors/{id}/run: runs it now (also when paused) and answers with the run; costs its credit. */
  async runMonitor(id: string, options?: RequestOptions): Promise<T.MonitorRun> {
    return (
      await this.#call<{ run: T.MonitorRun }>(
        { method: 'POST', path: `/v1/monitors/${seg(id)}/run`, idempotent: false },
        options,
      )
    ).run;
  }

  /** GET /v1/monitors/{id}/runs: newest first, with the count of collapsed unchanged runs. */
  listMonitorRuns(id: string, query: { limit?: number } = {}, options?: RequestOptions): Promise<T.MonitorRuns> {
    return this.#call(
      { method: 'GET', path: `/v1/monitors/${seg(id)}/runs`, query: { ...query }, idempotent: true },
      options,
    );
  }

  /** GET /v1/monitors/{id}/history: one watched field's values over successful runs. */
  monitorHistory(
    id: string,
    query: { field: string } & T.PageQuery,
    options?: RequestOptions,
  ): Promise<T.MonitorHistory> {
    return this.#call(
      { method: 'GET', path: `/v1/monitors/${seg(id)}/history`, query: { ...query }, idempotent: true },
      options,
    );
  }

  /** GET /v1/monitors/{id}/deliveries: webhook deliveries, newest first, with every attempt. */
  async listDeliveries(id: string, query: { limit?: number } = {}, options?: RequestOptions): Promise<T.Delivery[]> {
    return (
      await this.#call<{ deliveries: T.Delivery[] }>(
        { method: 'GET', path: `/v1/monitors/${seg(id)}/deliveries`, query: { ...query }, idempotent: true },
        options,
      )
    ).deliveries;
  }

  /** POST /v1/monitors/{id}/deliveries/{delivery_id}/redeliver: sends the event again now (same id). */
  async redeliver(monitorId: string, deliveryId: string, options?: RequestOptions): Promise<T.Delivery> {
    const path = `/v1/monitors/${seg(monitorId)}/deliveries/${seg(deliveryId)}/redeliver`;
    return (await this.#call<{ delivery: T.Delivery }>({ method: 'POST', path, idempotent: false }, options)).delivery;
  }

  /**
   * POST /v1/webhooks/replay: every failed delivery since a time becomes pending again. Safe to
   * repeat (a second call finds them pending, not failed), so it is retried like a read.
   */
  async replayWebhooks(body: T.ReplayRequest, options?: RequestOptions): Promise<{ replayed: number }> {
    const r = await this.#call<{ replayed: number }>(
      { method: 'POST', path: '/v1/webhooks/replay', body, idempotent: true },
      options,
    );
    return { replayed: r.replayed };
  }

  // --- Notification channels (no credit) -------------------------------------------------------

  /** POST /v1/channels: a named destination (email, Slack, Discord, Teams, Telegram, JSON) for monitors' events. */
  async createChannel(body: T.CreateChannelRequest, options?: RequestOptions): Promise<T.Channel> {
    return (
      await this.#call<{ channel: T.Channel }>(
        { method: 'POST', path: '/v1/channels', body, idempotent: false },
        options,
      )
    ).channel;
  }

  /** GET /v1/channels: the account's channels, by name. */
  async listChannels(options?: RequestOptions): Promise<T.Channel[]> {
    return (
      await this.#call<{ channels: T.Channel[] }>({ method: 'GET', path: '/v1/channels', idempotent: true }, options)
    ).channels;
  }

  /** GET /v1/channels/{id}: one channel with its health. */
  async getChannel(id: string, options?: RequestOptions): Promise<T.Channel> {
    return (
      await this.#call<{ channel: T.Channel }>(
        { method: 'GET', path: `/v1/channels/${seg(id)}`, idempotent: true },
        options,
      )
    ).channel;
  }

  /** PATCH /v1/channels/{id}: name, destination, templates, default or state. */
  async updateChannel(id: string, body: T.UpdateChannelRequest, options?: RequestOptions): Promise<T.Channel> {
    return (
      await this.#call<{ channel: T.Channel }>(
        { method: 'PATCH', path: `/v1/channels/${seg(id)}`, body, idempotent: true },
        options,
      )
    ).channel;
  }

  /** DELETE /v1/channels/{id}: its messages not yet sent are dropped. */
  deleteChannel(id: string, options?: RequestOptions): Promise<{ status: 'ok'; channel_id: string; deleted: true }> {
    return this.#call({ method: 'DELETE', path: `/v1/channels/${seg(id)}`, idempotent: true }, options);
  }

  /** POST /v1/channels/{id}/test: sends a test message now (not retried) and says how the channel answered. */
  async testChannel(id: string, options?: RequestOptions): Promise<T.ChannelTestResult> {
    const r = await this.#call<T.ChannelTestResult>(
      { method: 'POST', path: `/v1/channels/${seg(id)}/test`, body: {}, idempotent: false },
      options,
    );
    return { delivered: r.delivered, response_status: r.response_status, error: r.error, duration_ms: r.duration_ms };
  }

  // --- Account ---------------------------------------------------------------------------------

  /** GET /v1/account: id, email and credits left (costs nothing). */
  account(options?: RequestOptions): Promise<T.Account> {
    return this.#call({ method: 'GET', path: '/v1/account', idempotent: true }, options);
  }
}
