/** A local HTTP server on 127.0.0.1 answering from a route table (tests never touch the internet). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What it returns is only awaited, so a one-liner may return `res.end(...)`'s response. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface FixtureServer {
  url: string;
  port: number;
  route(path: string, handler: Handler | string): void;
  hits(path: string): number;
  close(): Promise<void>;
}

/** A minimal article page: its title as <title> and <h1>, the body HTML inside <article>. */
export const articlePage = (title: string, body: string) =>
  `<html><head><title>${title}</title></head><body><article><h1>${title}</h1>${body}</article></body></html>`;

export async function startFixtureServer(routes: Record<string, Handler | string> = {}): Promise<FixtureServer> {
  const table = new Map<string, Handler>();
  const counts = new Map<string, number>();
  const toHandler = (h: Handler | string): Handler =>
    typeof h === 'string'
      ? (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(h)
      : h;
  for (const [p, h] of Object.entries(routes)) table.set(p, toHandler(h));
  const server: Server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const h = table.get(path);
    if (!h) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    try {
      await h(req, res);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    route: (p, h) => void table.set(p, toHandler(h)),
    hits: (p) => counts.get(p) ?? 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
