/**
 * GET /metrics (issue 29): well-formed Prometheus text whose counters move with the work — a
 * scrape of a local page moves the request, latency, credit and fetch-outcome series (route
 * patterns, never raw paths); a batch job moves the job-page series; monitor runs and a webhook
 * that fails once then takes the event move the run, lag, credit and delivery series; the store
 * backlog gauges are there. With TRAWL_METRICS_TOKEN the endpoint wants that bearer token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { parsePrometheus, valueOf, type Family } from './prometheus-text.js';

type Metrics = Map<string, Family>;

describe('/metrics', () => {
  let svc: TestService;
  let site: FixtureServer;
  let hooks: WebhookReceiver;
  let key: string;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/article': articlePage(
        'Deep Sea Widgets',
        '<p>Widgets for the deep sea, described at some length, with a sentence or two more.</p>',
      ),
    });
    hooks = await startWebhookReceiver();
    svc = await startTestService('sqlite', { TRAWL_WEBHOOK_RETRY_BASE_MS: '10' });
    key = (await svc.newKey(100)).key;
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
    await hooks?.close();
  });

  const scrapeMetrics = async (s: TestService = svc, headers: Record<string, string> = {}): Promise<Metrics> => {
    const res = await fetch(`${s.url}/metrics`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheus(await res.text());
  };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const until = async <T>(fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('is well-formed Prometheus text with the process, service and work series', async () => {
    const m = await scrapeMetrics();
    for (const [name, type] of [
      ['trawl_http_requests_total', 'counter'],
      ['trawl_http_request_duration_seconds', 'histogram'],
      ['trawl_credits_charged_total', 'counter'],
      ['trawl_page_fetches_total', 'counter'],
      ['trawl_webhook_attempts_total', 'counter'],
      ['trawl_job_pages_total', 'counter'],
      ['trawl_monitor_run_lag_seconds', 'histogram'],
      ['trawl_document_queue_depth', 'gauge'],
      ['trawl_queue_jobs', 'gauge'],
      ['trawl_monitor_lag_seconds', 'gauge'],
      ['trawl_jobs', 'gauge'],
      ['process_cpu_user_seconds_total', 'counter'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
    ]) {
      expect(m.get(name)?.type, name).toBe(type);
      expect(m.get(name)!.help.length, name).toBeGreaterThan(10);
    }
    // Known series exist from the start (at 0), so the first event shows in rate().
    expect(
      m
        .get('trawl_page_fetches_total')!
        .samples.map((s) => s.labels.outcome)
        .sort(),
    ).toEqual(['blocked', 'cancelled', 'error', 'fetch_failed', 'forbidden_target', 'ok', 'timeout']);
    expect(valueOf(m, 'trawl_store_backlog_up')).toBe(1);
    expect(valueOf(m, 'trawl_queue_jobs', { queue: 'monitor-runs', state: 'waiting' })).toBe(0);
    // Embedded: no workers to count.
    expect(m.has('trawl_workers_live')).toBe(false);
    // /metrics is not an API operation.
    const doc = (await (await fetch(`${svc.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(doc.paths['/metrics']).toBeUndefined();
  });

  it('counts requests by route pattern, their latency, credits and fetch outcomes', async () => {
    const before = await scrapeMetrics();
    expect((await call('POST', '/v1/scrape', { url: `${site.url}/article` })).status).toBe(200);
    expect((await call('POST', '/v1/scrape', { url: `${site.url}/missing` })).status).toBe(502);
    expect((await call('GET', '/v1/monitors/mon_AAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await fetch(`${svc.url}/nowhere/secret-path-123`)).status).toBe(404);
    const after = await scrapeMetrics();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);

    expect(delta('trawl_http_requests_total', { method: 'POST', route: '/v1/scrape', status: '200' })).toBe(1);
    expect(delta('trawl_http_requests_total', { method: 'POST', route: '/v1/scrape', status: '502' })).toBe(1);
    expect(delta('trawl_http_requests_total', { method: 'GET', route: '/v1/monitors/:id', status: '404' })).toBe(1);
    expect(delta('trawl_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(delta('trawl_http_request_duration_seconds_count', { method: 'POST', route: '/v1/scrape' })).toBe(2);
    expect(delta('trawl_http_request_duration_seconds_sum', { method: 'POST', route: '/v1/scrape' })).toBeGreaterThan(
      0,
    );
    expect(delta('trawl_credits_charged_total', { by: 'request' })).toBe(1);
    expect(delta('trawl_credits_refunded_total', { by: 'request' })).toBe(1);
    expect(delta('trawl_page_fetches_total', { outcome: 'ok' })).toBe(1);
    expect(delta('trawl_page_fetches_total', { outcome: 'fetch_failed' })).toBe(1);
    // Raw paths and ids never become label values.
    const labels = after.get('trawl_http_requests_total')!.samples.map((s) => s.labels.route);
    expect(labels.some((r) => r.includes('secret-path') || r.includes('mon_'))).toBe(false);
    // The credit gate refusing counts too.
    const poor = await svc.newKey(0);
    const refusal = await fetch(`${svc.url}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${poor.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/article` }),
    });
    expect(refusal.status).toBe(402);
    expect(
      valueOf(await scrapeMetrics(), 'trawl_credit_refusals_total') - valueOf(after, 'trawl_credit_refusals_total'),
    ).toBe(1);
  });

  it('counts job pages by outcome and shows jobs by state', async () => {
    const before = await scrapeMetrics();
    const created = (await (
      await call('POST', '/v1/batch/scrape', { urls: [`${site.url}/article`, `${site.url}/missing`] })
    ).json()) as { job: { job_id: string } };
    await until(async () => {
      const j = (await (await call('GET', `/v1/jobs/${created.job.job_id}`)).json()) as { job: { state: string } };
      return j.job.state === 'completed' ? true : undefined;
    });
    const after = await scrapeMetrics();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('trawl_job_pages_total', { kind: 'batch', outcome: 'done' })).toBe(1);
    expect(delta('trawl_job_pages_total', { kind: 'batch', outcome: 'failed' })).toBe(1);
    expect(delta('trawl_credits_charged_total', { by: 'request' })).toBe(1);
    expect(delta('trawl_page_fetches_total', { outcome: 'ok' })).toBe(1);
    expect(delta('trawl_jobs', { state: 'completed' })).toBe(1);
    expect(valueOf(after, 'trawl_job_pages_queued')).toBe(0);
  });

  it('counts monitor runs, their lag and credits, and webhook attempts by outcome', async () => {
    site.route('/lamp', articlePage('Lamp', '<p>A lamp of brass for the desk, with a sentence or two of text.</p>'));
    const before = await scrapeMetrics();
    const created = (await (
      await call('POST', '/v1/monitors', {
        url: `${site.url}/lamp`,
        interval: '1h',
        watch: ['title'],
        webhook: hooks.url,
      })
    ).json()) as { monitor: { monitor_id: string } };
    const id = created.monitor.monitor_id;
    expect((await call('POST', `/v1/monitors/${id}/run`)).status).toBe(200);
    site.route(
      '/lamp',
      articlePage('Lamp, now cheaper', '<p>A lamp of brass for the desk, with a sentence or two of text.</p>'),
    );
    // The receiver fails the first attempt; the retry (10 ms base in this service) succeeds.
    hooks.failNext(1, 500);
    expect((await call('POST', `/v1/monitors/${id}/run`)).status).toBe(200);
    await hooks.waitFor(2);
    const after = await until(async () => {
      const m = await scrapeMetrics();
      return valueOf(m, 'trawl_webhook_deliveries_ended_total', { state: 'succeeded' }) >
        valueOf(before, 'trawl_webhook_deliveries_ended_total', { state: 'succeeded' })
        ? m
        : undefined;
    });
    const delta = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('trawl_monitor_runs_total', { status: 'succeeded' })).toBe(2);
    expect(delta('trawl_credits_charged_total', { by: 'monitor_run' })).toBe(2);
    expect(delta('trawl_monitor_run_lag_seconds_count')).toBe(2);
    expect(delta('trawl_webhook_attempts_total', { outcome: 'rejected', trigger: 'schedule' })).toBe(1);
    expect(delta('trawl_webhook_attempts_total', { outcome: 'delivered', trigger: 'schedule' })).toBe(1);
    expect(delta('trawl_webhook_deliveries_ended_total', { state: 'succeeded' })).toBe(1);
    expect(delta('trawl_webhook_deliveries_ended_total', { state: 'failed' })).toBe(0);
    expect(valueOf(after, 'trawl_webhook_deliveries_due')).toBe(0);
    // A redelivery is a manual attempt.
    const deliveries = (await (await call('GET', `/v1/monitors/${id}/deliveries`)).json()) as {
      deliveries: { delivery_id: string }[];
    };
    expect(
      (await call('POST', `/v1/monitors/${id}/deliveries/${deliveries.deliveries[0].delivery_id}/redeliver`)).status,
    ).toBe(200);
    expect(
      valueOf(await scrapeMetrics(), 'trawl_webhook_attempts_total', { outcome: 'delivered', trigger: 'manual' }) -
        valueOf(after, 'trawl_webhook_attempts_total', { outcome: 'delivered', trigger: 'manual' }),
    ).toBe(1);
  });

  it('wants the bearer token when TRAWL_METRICS_TOKEN is set, and never shows it', async () => {
    const token = 'metrics-token-Zq81kLm3';
    const guarded = await startTestService('sqlite', { TRAWL_METRICS_TOKEN: token });
    try {
      for (const headers of [{}, { authorization: 'Bearer wrong-token-value' }, { authorization: token }] as Record<
        string,
        string
      >[]) {
        const res = await fetch(`${guarded.url}/metrics`, { headers });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'unauthorized' });
        expect(res.headers.get('www-authenticate')).toContain(
          "/metrics wants 'Authorization: Bearer <TRAWL_METRICS_TOKEN>'",
        );
      }
      const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      const text = await ok.text();
      expect(parsePrometheus(text).has('trawl_http_requests_total')).toBe(true);
      expect(text).not.toContain(token);
      // The health endpoints and the reference stay public.
      expect((await fetch(`${guarded.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${guarded.url}/docs`)).status).toBe(200);
    } finally {
      await guarded.stop();
    }
  });
});
