/**
 * `trawl mcp`: the MCP server over stdio (default) or Streamable HTTP. It calls a Trawl server
 * (TRAWL_API_URL, TRAWL_API_KEY), or, when none is named, the service started in this process.
 * In stdio mode stdout carries MCP messages only: everything else is written to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiError, TrawlApi } from './client.js';
import { PageCache, type ToolContext } from './context.js';
import { serveHttp } from './http.js';
import { startLocalService } from './local.js';
import { createMcpServer, VERSION } from './server.js';

export interface McpOptions {
  /** Serve Streamable HTTP instead of stdio. */
  http?: boolean;
  port?: number;
  host?: string;
}

interface Backend {
  baseUrl: string;
  key?: string;
}

const log = (msg: string) => void process.stderr.write(`trawl mcp: ${msg}\n`);

/** Where the tools send their calls; the in-process service starts in the background. */
function openBackend(): { ready: Promise<Backend>; close(): Promise<void> } {
  const url = process.env.TRAWL_API_URL?.trim();
  if (url) {
    const key = process.env.TRAWL_API_KEY?.trim() || undefined;
    if (!key)
      log(
        'TRAWL_API_URL is set but TRAWL_API_KEY is not: calls will be refused unless an HTTP client sends its own key',
      );
    return { ready: Promise.resolve({ baseUrl: url, key }), close: async () => undefined };
  }
  const local = startLocalService(log);
  local.then(
    (s) => log(`in-process Trawl service on ${s.url} (data in ${s.dataDir})`),
    (e: Error) => log(`the in-process Trawl service could not start: ${e.message}`),
  );
  return {
    ready: local.then((s) => ({ baseUrl: s.url, key: s.key })),
    close: async () => (await local.catch(() => undefined))?.close(),
  };
}

export interface RunningMcp {
  /** The HTTP endpoint (HTTP mode only). */
  url?: string;
  close(): Promise<void>;
}

export async function runMcp(o: McpOptions = {}): Promise<RunningMcp> {
  // A library that prints would corrupt the stdio stream: console output goes to stderr.
  if (!o.http) for (const m of ['log', 'info', 'debug'] as const) console[m] = console.error;
  const backend = openBackend();
  const ctx: ToolContext = {
    async api(extra) {
      const b = await backend.ready.catch((e: Error) => {
        throw new ApiError(500, {
          error: 'internal_error',
          detail: `the in-process Trawl service could not start: ${e.message}`,
        });
      });
      return new TrawlApi({
        baseUrl: b.baseUrl,
        key: extra.authInfo?.token ?? b.key,
        userAgent: `trawl-mcp/${VERSION}`,
      });
    },
    log,
    pages: new PageCache(),
  };

  if (o.http) {
    const http = await serveHttp({
      host: o.host ?? '127.0.0.1',
      port: o.port ?? 3100,
      newServer: () => createMcpServer(ctx),
      log,
    }).catch(async (e) => {
      await backend.close();
      throw e;
    });
    log(`MCP over HTTP on ${http.url}`);
    return {
      url: http.url,
      close: async () => {
        await http.close();
        await backend.close();
      },
    };
  }

  const server = createMcpServer(ctx);
  await server.connect(new StdioServerTransport());
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await server.close().catch(() => undefined);
      await backend.close().catch((e: Error) => log(`closing: ${e.message}`));
    })());
  // The client closing our stdin is how a stdio session ends.
  const end = () => void close().then(() => process.exit(0));
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  return { close };
}
