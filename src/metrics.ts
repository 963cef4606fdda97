/**
 * What this process did, as Prometheus counters and histograms (issue 29). One registry per
 * process, made once when this module loads: Prometheus scrapes processes and counters restart
 * with them, and the places that count (the billing gate, the page fetcher, webhook deliveries,
 * the job runner, the monitor runner) are one line each, with no registry passed down to an
 * engine that knows nothing of the server. Nothing here is registered twice however many services
 * a process starts (tests start several): they all count into these same objects. Gauges about
 * one service's state (queues, the store's backlog) are read at scrape time from that service
 * (server/metrics.ts); the two registries are merged for /metrics.
 *
 * Labels never carry an account, a key, a URL or a raw path: their values come from short fixed
 * lists, so a series cannot multiply with traffic or reveal who asked for what.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { isTrawlError } from './errors.js';

export const processRegistry = new Registry();

export const httpRequests = new Counter({
  name: 'trawl_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern (e.g. /v1/monitors/:id; "unmatched" for unknown paths) and status code',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [processRegistry],
});

export const httpDuration = new Histogram({
  name: 'trawl_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by method and route pattern',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [processRegistry],
});

export const creditsCharged = new Counter({
  name: 'trawl_credits_charged_total',
  help: 'Credits kept by work that succeeded: "request" (API, dashboard playground, jobs when accepted) or "monitor_run"',
  labelNames: ['by'] as const,
  registers: [processRegistry],
});

export const creditsRefunded = new Counter({
  name: 'trawl_credits_refunded_total',
  help: 'Credits reserved and given back because the work failed (or its client went away)',
  labelNames: ['by'] as const,
  registers: [processRegistry],
});

export const creditRefusals = new Counter({
  name: 'trawl_credit_refusals_total',
  help: 'Work refused before it started because the account had no credit left (402)',
  registers: [processRegistry],
});

export const pageFetches = new Counter({
  name: 'trawl_page_fetches_total',
  help: 'Pages fetched for scrape, crawl, extract, search, marketplace, jobs and monitors, by outcome: ok, or the error code (fetch_failed, blocked, forbidden_target, timeout), "cancelled" when the caller went away, "error" for anything else',
  labelNames: ['outcome'] as const,
  registers: [processRegistry],
});

export const webhookAttempts = new Counter({
  name: 'trawl_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered (2xx), rejected (any other answer), unreachable (no answer: refused, timeout, private address), interrupted (the sender died mid-attempt); trigger: schedule or manual (redeliver)',
  labelNames: ['outcome', 'trigger'] as const,
  registers: [processRegistry],
});

export const webhookDeliveriesEnded = new Counter({
  name: 'trawl_webhook_deliveries_ended_total',
  help: 'Webhook deliveries that reached an end state: succeeded, or failed (attempts used up, 410 Gone, webhook disabled)',
  labelNames: ['state'] as const,
  registers: [processRegistry],
});

export const monitorRuns = new Counter({
  name: 'trawl_monitor_runs_total',
  help: 'Monitor runs ended by this process, by status: succeeded, failed, skipped (no credit, or paused meanwhile)',
  labelNames: ['status'] as const,
  registers: [processRegistry],
});

export const monitorRunLag = new Histogram({
  name: 'trawl_monitor_run_lag_seconds',
  help: 'Scheduling lag of monitor runs: from the due time to the run starting',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900],
  registers: [processRegistry],
});

export const jobPages = new Counter({
  name: 'trawl_job_pages_total',
  help: 'Pages of jobs (async crawls, batch scrapes) written by this process, by job kind and outcome (done or failed)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [processRegistry],
});

// Every known series starts at 0, so rate() and increase() see the first event (a series that
// appears only when its first event happens hides that event from them).
for (const by of ['request', 'monitor_run']) for (const c of [creditsCharged, creditsRefunded]) c.inc({ by }, 0);
for (const outcome of ['ok', 'fetch_failed', 'blocked', 'forbidden_target', 'timeout', 'cancelled', 'error'])
  pageFetches.inc({ outcome }, 0);
for (const outcome of ['delivered', 'rejected', 'unreachable', 'interrupted'])
  for (const trigger of ['schedule', 'manual']) webhookAttempts.inc({ outcome, trigger }, 0);
for (const state of ['succeeded', 'failed']) webhookDeliveriesEnded.inc({ state }, 0);
for (const status of ['succeeded', 'failed', 'skipped']) monitorRuns.inc({ status }, 0);
for (const kind of ['crawl', 'batch']) for (const outcome of ['done', 'failed']) jobPages.inc({ kind, outcome }, 0);

let defaults = false;
/** Node's own metrics (CPU, memory, event-loop lag, GC): started by the first server, not by every CLI command that loads this module. */
export function collectProcessMetrics(): void {
  if (defaults) return;
  defaults = true;
  collectDefaultMetrics({ register: processRegistry });
}

/** The outcome label of a finished page fetch. */
export function fetchOutcome(error: unknown, signal?: AbortSignal): string {
  if (error === undefined) return 'ok';
  // The caller's signal: a client gone (cancelled), or a whole crawl's budget spent (timeout).
  if (signal?.aborted) return isTrawlError(signal.reason) && signal.reason.code === 'timeout' ? 'timeout' : 'cancelled';
  return isTrawlError(error) ? error.code : 'error';
}
