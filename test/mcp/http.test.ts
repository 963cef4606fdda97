/**
 * `trawl mcp --http`: Streamable HTTP at /mcp for the official client (tools, a call, progress
 * streamed back on the call's answer, tool errors), a caller's own key taking the place of the
 * server's, and what the endpoint refuses: foreign Host or Origin on loopback (DNS rebinding),
 * GET, other paths, and key-less calls when it listens beyond loopback.
 */
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { articlePage, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { launchTrawl, type Launched } from '../helpers/trawl-process.js';
import { errorOf, textOf, type ToolAnswer } from './mcp-client.js';

let site: FixtureServer;
let svc: TestService;
const children: ChildProcess[] = [];
const journal: Launched[] = [];
let serverKey: { key: string; accountId: string };

async function startHttp(extraArgs: string[] = []): Promise<string> {
  const { child, line } = await launchTrawl(
    ['mcp', '--http', '--port', '0', ...extraArgs],
    { TRAWL_API_URL: svc.url, TRAWL_API_KEY: serverKey.key, LOG_LEVEL: 'warn' },
    journal,
  );
  children.push(child);
  const out = JSON.parse(line);
  expect(out).toEqual({ status: 'listening', url: expect.stringMatching(/^http:\/\/.+:\d+\/mcp$/) });
  return out.url;
}

async function connect(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'trawl-http-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : undefined,
    ),
  );
  return client;
}

/** A raw request, with whatever Host and Origin headers the test wants. */
function raw(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: o.method ?? 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...o.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

beforeAll(async () => {
  site = await startFixtureServer({
    '/a': articlePage('Page A', '<p>Page A has a paragraph about harbours and boats.</p>'),
    '/big/': articlePage(
      'Big',
      `<p>An index.</p>${Array.from({ length: 30 }, (_, i) => `<a href="/big/${i}">P${i}</a>`).join(' ')}`,
    ),
  });
  for (let i = 0; i < 30; i++) {
    site.route(
      `/big/${i}`,
      (_q, res) =>
        void setTimeout(
          () =>
            res
              .writeHead(200, { 'content-type': 'text/html' })
              .end(articlePage(`P${i}`, `<p>Page ${i} of the index.</p>`)),
          200,
        ),
    );
  }
  svc = await startTestService('sqlite');
  serverKey = await svc.newKey(50);
}, 60_000);

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null) {
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
  }
  await svc?.stop();
  await site?.close();
});

describe('trawl mcp --http', () => {
  it("serves the tools over Streamable HTTP; calls use the server key, or the caller's own", async () => {
    const url = await startHttp();
    const client = await connect(url);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('scrape');
    expect((tools.find((t) => t.name === 'search')!.inputSchema as any).required).toEqual(['query']);
    const before = await svc.credits(serverKey.accountId);
    const r = (await client.callTool({ name: 'scrape', arguments: { url: `${site.url}/a` } })) as ToolAnswer;
    expect(r.structuredContent).toMatchObject({ title: 'Page A', truncated: false });
    expect(await svc.credits(serverKey.accountId)).toBe(before - 1);
    const missing = (await client.callTool({
      name: 'monitors_get',
      arguments: { monitor_id: 'mon_nope' },
    })) as ToolAnswer;
    expect(errorOf(missing)).toMatchObject({ error: 'not_found' });
    await client.close();

    // A caller with its own key pays for its own calls.
    const own = await svc.newKey(5);
    const mine = await connect(url, own.key);
    await mine.callTool({ name: 'scrape', arguments: { url: `${site.url}/a` } });
    expect(await svc.credits(own.accountId)).toBe(4);
    expect(await svc.credits(serverKey.accountId)).toBe(before - 1);
    await mine.close();
  });

  it('streams progress of a crawl job back on the call', async () => {
    const url = await startHttp();
    const client = await connect(url);
    const progress: number[] = [];
    const r = (await client.callTool(
      { name: 'crawl', arguments: { url: `${site.url}/big/`, limit: 31, max_depth: 1, use_sitemap: false } },
      undefined,
      { onprogress: (p) => void progress.push(p.progress), resetTimeoutOnProgress: true },
    )) as ToolAnswer;
    expect(r.structuredContent.job).toMatchObject({ state: 'completed', progress: { done: 31 } });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)).toBe(31);
    expect(textOf(r)).toContain('pages done');
    await client.close();
  });

  it('refuses foreign Host and Origin headers on loopback, GET, and other paths', async () => {
    const url = await startHttp();
    const ok = await raw(url, { body: INIT });
    expect(ok.status).toBe(200);
    const rebound = await raw(url, { headers: { host: 'attacker.example:80' }, body: INIT });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.message).toMatch(/Host header/);
    const fromPage = await raw(url, { headers: { origin: 'https://attacker.example' }, body: INIT });
    expect(fromPage.status).toBe(403);
    const local = await raw(url, { headers: { origin: 'http://localhost:5173' }, body: INIT });
    expect(local.status).toBe(200);
    expect((await raw(url, { method: 'GET' })).status).toBe(405);
    expect((await raw(url.replace('/mcp', '/other'), { body: INIT })).status).toBe(404);
  });

  it('reads "bearer" in any case; refuses a malformed Authorization and Origin: null instead of lending the server key', async () => {
    const url = await startHttp();
    const own = await svc.newKey(5);
    const before = await svc.credits(serverKey.accountId);
    // HTTP auth schemes are case-insensitive: the caller pays, not the server's account.
    const client = new Client({ name: 'trawl-http-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `bearer ${own.key}` } },
      }),
    );
    const r = (await client.callTool({ name: 'scrape', arguments: { url: `${site.url}/a` } })) as ToolAnswer;
    expect(r.isError).toBeFalsy();
    expect(await svc.credits(own.accountId)).toBe(4);
    await client.close();
    // A key with a typo, another scheme, or an empty variable: 401, never the server's key.
    for (const authorization of [
      `Bearer ${own.key}-`,
      `Basic ${Buffer.from(`x:${own.key}`).toString('base64')}`,
      'Bearer ',
      'Bearer sk-123',
    ]) {
      const refused = await raw(url, { headers: { authorization }, body: INIT });
      expect({ authorization, status: refused.status }).toEqual({ authorization, status: 401 });
      expect(JSON.parse(refused.body).error.message).toMatch(/not a Trawl API key/);
    }
    // A sandboxed frame or a data: page sends Origin: null; it is a web page all the same.
    const sandboxed = await raw(url, { headers: { origin: 'null' }, body: INIT });
    expect(sandboxed.status).toBe(403);
    expect(await svc.credits(serverKey.accountId)).toBe(before);
  });

  it('beyond loopback lends its key to no one: a call must bring its own', async () => {
    const url = await startHttp(['--host', '0.0.0.0']);
    const local = url.replace('0.0.0.0', '127.0.0.1');
    const anonymous = await raw(local, { body: INIT });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body).error.message).toMatch(/Authorization: Bearer trawl_/);
    const own = await svc.newKey(5);
    const client = await connect(local, own.key);
    const r = (await client.callTool({ name: 'scrape', arguments: { url: `${site.url}/a` } })) as ToolAnswer;
    expect(r.isError).toBeFalsy();
    expect(await svc.credits(own.accountId)).toBe(4);
    await client.close();
  });

  it('refuses a port out of range or in use with the contract error', async () => {
    await expect(launchTrawl(['mcp', '--http', '--port', '70000'], {}, journal)).resolves.toMatchObject({
      line: expect.stringContaining('"error":"invalid_request"'),
    });
    const taken = new URL(await startHttp()).port;
    const busy = await launchTrawl(
      ['mcp', '--http', '--port', taken],
      { TRAWL_API_URL: svc.url, TRAWL_API_KEY: serverKey.key },
      journal,
    );
    expect(JSON.parse(busy.line)).toEqual({
      error: 'invalid_request',
      detail: `--host/--port: cannot listen on 127.0.0.1:${taken} (EADDRINUSE); choose another`,
    });
  });
});
