/**
 * /metrics of a `trawl worker` (TRAWL_WORKER_METRICS_PORT): in scale-out the workers fetch the pages,
 * run the monitors, deliver the webhooks and write the job pages, so their counters are only seen
 * here. A plain HTTP listener (a worker has no API server): /metrics with this process's counters
 * and its queue's depth as BullMQ counts it, /healthz; the same token rule as the API's /metrics.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge, Registry } from 'prom-client';
import { collectProcessMetrics, processRegistry } from '../../metrics.js';
import type { WorkQueue } from '../../queue/index.js';
import { bearerMatches } from './metrics.js';

export interface WorkerMetricsOptions {
  host: string;
  port: number;
  token?: string;
  queue: WorkQueue;
}

export async function serveWorkerMetrics(o: WorkerMetricsOptions): Promise<{ url: string; close(): Promise<void> }> {
  collectProcessMetrics();
  const registry = new Registry();
  const depth = new Gauge({
    name: 'trawl_queue_jobs',
    help: 'Work in the monitor-runs and webhook-deliveries queues by state, as BullMQ counts it in Redis',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
  });
  const merged = Registry.merge([processRegistry, registry]);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) =>
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (req.method !== 'GET')
      return send(405, 'application/json', JSON.stringify({ error: 'invalid_request', detail: 'method: only GET' }));
    if (path === '/healthz') return send(200, 'application/json', JSON.stringify({ status: 'ok' }));
    if (path !== '/metrics')
      return send(
        404,
        'application/json',
        JSON.stringify({
          error: 'not_found',
          detail: `${path.slice(0, 100)} is not served here; use /metrics or /healthz`,
        }),
      );
    if (o.token && !bearerMatches(req.headers.authorization, o.token))
      return send(401, 'application/json', JSON.stringify({ error: 'unauthorized' }));
    void (async () => {
      depth.reset();
      for (const d of await o.queue.depth().catch(() => [])) depth.set({ queue: d.queue, state: d.state }, d.count);
      send(200, merged.contentType, (await merged.metrics()).replace(/ Nan$/gm, ' NaN'));
    })().catch(() => send(500, 'application/json', JSON.stringify({ error: 'internal_error' })));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    url: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
