/**
 * `trawl mcp --http`: the MCP server over Streamable HTTP at `/mcp`, stateless (a fresh server
 * and transport per POST; progress of a call streams back on that POST's SSE answer), so there
 * is no session state to keep or expire.
 *
 * Who pays: a request carrying `Authorization: Bearer trawl_…` calls Trawl with that key (any
 * other Authorization header is refused); requests without one use the server's own
 * (TRAWL_API_KEY, or the in-process account) — but only on a loopback bind: a server listening on
 * the network lends its key to no one. On loopback the Host header must name a loopback host, so
 * a web page cannot reach it through DNS rebinding, and an Origin, when sent, a loopback origin.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export const MCP_PATH = '/mcp';

export interface HttpOptions {
  host: string;
  port: number;
  newServer(): McpServer;
  log(msg: string): void;
}

export interface HttpMcp {
  url: string;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
export const isLoopback = (host: string) => LOOPBACK_NAMES.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);

/** The hostname of a Host header or an Origin, without port (IPv6 keeps its brackets). */
function hostnameOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  // JSON-RPC's shape, as the SDK's own transport answers transport-level errors.
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function serveHttp(o: HttpOptions): Promise<HttpMcp> {
  const loopback = isLoopback(o.host);
  const handle = async (
    req: IncomingMessage & { auth?: { token: string; clientId: string; scopes: string[] } },
    res: ServerResponse,
  ) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    if (path !== MCP_PATH) return refuse(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
    if (loopback) {
      const host = hostnameOf(req.headers.host);
      const origin = req.headers.origin;
      if (!host || !isLoopback(host))
        return refuse(res, 403, 'forbidden: the Host header must name this machine (localhost, 127.0.0.1 or [::1])');
      // `Origin: null` is a sandboxed frame or a data: page: a web page all the same.
      if (origin && !isLoopback(hostnameOf(origin) ?? ''))
        return refuse(res, 403, `forbidden: requests from the web origin ${origin.slice(0, 100)} are refused`);
    }
    // The scheme is case-insensitive (RFC 9110). A header that is not a key is refused rather
    // than served with the server's key: its sender meant to pay with their own.
    const authorization = req.headers.authorization;
    const bearer = /^Bearer\s+(trawl_[A-Za-z0-9]+)\s*$/i.exec(authorization ?? '')?.[1];
    if (bearer) req.auth = { token: bearer, clientId: 'bearer', scopes: [] };
    else if (authorization !== undefined)
      return refuse(
        res,
        401,
        'unauthorized: the Authorization header is not a Trawl API key; send it as "Authorization: Bearer trawl_…"',
        { 'www-authenticate': 'Bearer' },
      );
    else if (!loopback)
      return refuse(res, 401, 'unauthorized: send your Trawl API key as "Authorization: Bearer trawl_…"', {
        'www-authenticate': 'Bearer',
      });
    if (req.method !== 'POST')
      return refuse(res, 405, 'method not allowed: this stateless server takes POST only', { allow: 'POST' });
    const server = o.newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      o.log(`http request failed: ${e.message}`);
      if (!res.headersSent) refuse(res, 500, 'internal error of the Trawl MCP server');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port, o.host, () => resolve());
  });
  const addr = http.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shown}:${addr.port}${MCP_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
