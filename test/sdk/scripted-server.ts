/**
 * A local HTTP server that answers from a script, for what the real service will not do on
 * demand: a 502 from a proxy, a 504, a reset connection, a stalled answer. Records every hit.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Scripted {
  status?: number;
  /** JSON-encoded unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Destroy the socket instead of answering. */
  reset?: boolean;
  /** Never answer (the client's timeout or abort must end it). */
  stall?: boolean;
}

export interface Hit {
  method: string;
  path: string;
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface ScriptedServer {
  url: string;
  hits: Hit[];
  /** Answers for the next requests, in order; once used up, `fallback` answers. */
  script(answers: Scripted[], fallback?: Scripted): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const hits: Hit[] = [];
  let queue: Scripted[] = [];
  let fallback: Scripted = { status: 200, body: {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      hits.push({
        method: req.method!,
        path: req.url!,
        at: Date.now(),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const a = queue.shift() ?? fallback;
      if (a.reset) return void req.socket.destroy();
      if (a.stall) return;
      const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? {});
      const type = typeof a.body === 'string' ? 'text/html' : 'application/json';
      res
        .writeHead(a.status ?? 200, {
          'content-type': type,
          'x-request-id': `req_scripted${hits.length}`,
          ...a.headers,
        })
        .end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    script(answers, otherwise = { status: 200, body: {} }) {
      queue = [...answers];
      fallback = otherwise;
      hits.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
