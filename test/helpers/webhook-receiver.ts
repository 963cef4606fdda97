/** A local webhook receiver: records every request (raw body, headers) and fails the first N on demand. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
  at: number;
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Answer the next `n` requests with `status` (default 500) and these headers (e.g. Retry-After). */
  failNext(n: number, status?: number, headers?: Record<string, string>): void;
  /** Wait until `n` requests arrived (or throw after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let failing = 0;
  let failStatus = 500;
  let failHeaders: Record<string, string> = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const fail = failing > 0;
      const status = fail ? (failing--, failStatus) : 204;
      received.push({
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
        at: Date.now(),
        answered: status,
      });
      res.writeHead(status, fail ? failHeaders : {}).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    failNext(n, status = 500, headers = {}) {
      failing = n;
      failStatus = status;
      failHeaders = headers;
    },
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until)
          throw new Error(`webhook receiver: ${received.length} of ${n} requests after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return received;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
