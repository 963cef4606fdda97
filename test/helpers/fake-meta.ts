/**
 * A local stand-in for Meta's Ad Library and Graph API, answering in the real formats:
 * - `/{handle}/`: a page whose markup carries `"pageID":"…"` and og:title, as Facebook page HTML does;
 * - `/ads/library/?…view_all_page_id=…`: the results page. Its shape follows the real page's
 *   server-rendered scripts: a `require` list holding `["LSD",[],{"token":"…"},323]`, the relay
 *   preloader naming the pagination query `{"queryID":"…","queryName":"AdLibrarySearchPaginationQuery"}`,
 *   and the first batch inside `{"__bbox":{"result":{"data":{"ad_library_main":…}}}}`;
 * - `POST /api/graphql/`: `AdLibrarySearchPaginationQuery` pages (`for (;;);` prefixed JSON), or
 *   Meta's rate-limit error 1675004 (shared fixture rate_limited_1675004.json);
 * - `/v21.0/{handle}` and `/v21.0/ads_archive`: Graph API page lookup and cursor-paged records.
 * The JSON bodies are the shared fixtures' (shared/fixtures/meta-ads), passed in by the test.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

export interface FakeMetaOptions {
  pages: Record<string, { id: string; name: string }>;
  /** The results page's first batch (a GraphQL `data` object). */
  firstBatch: Json;
  /** Later pages by cursor (GraphQL `data` objects). */
  nextPages: Record<string, Json>;
  rateLimited?: Json;
  graphRecords?: Json[];
  graphPageSize?: number;
  /** Leave the pagination query's doc_id out of the results page. */
  withoutDocId?: boolean;
  loginWalled?: string[];
  /** Drop the connection on Graph API calls (the client's error then quotes the URL, token and all). */
  graphResets?: boolean;
}

export interface FakeMeta {
  url: string;
  graphqlCalls: { lsd?: string; docId?: string; variables: Json }[];
  graphCalls: URL[];
  /** Answer the next N GraphQL calls with the rate-limit error. */
  rateLimitNext(n: number): void;
  close(): Promise<void>;
}

const LSD = 'AVq0fixtureLsd';
const DOC_ID = '9241757445859501';

function body(req: IncomingMessage): Promise<string> {
  return new Promise((r) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => r(s));
  });
}

export async function startFakeMeta(o: FakeMetaOptions): Promise<FakeMeta> {
  const graphqlCalls: FakeMeta['graphqlCalls'] = [];
  const graphCalls: URL[] = [];
  let limited = 0;
  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const json = (status: number, v: unknown, prefix = '') =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(prefix + JSON.stringify(v));
    if (u.pathname === '/api/graphql/' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      const variables = JSON.parse(form.get('variables') ?? '{}');
      graphqlCalls.push({
        lsd: req.headers['x-fb-lsd'] as string | undefined,
        docId: form.get('doc_id') ?? undefined,
        variables,
      });
      if (limited > 0) {
        limited--;
        return json(200, o.rateLimited, 'for (;;);');
      }
      const page = o.nextPages[variables.cursor];
      return page
        ? json(200, { data: page }, 'for (;;);')
        : json(200, { errors: [{ message: 'bad cursor', code: 1357001 }] });
    }
    if (u.pathname === '/ads/library/') {
      const html = `<!DOCTYPE html><html><head><title>Ad Library</title></head><body><div id="content"></div>
<script type="application/json" data-content-len="120" data-sjs>{"require":[["ScheduledServerJS","handle",null,[{"__bbox":{"define":[["LSD",[],{"token":"${LSD}"},323],["SiteData",[],{"server_revision":1},317]]}}]]]}</script>
<script type="application/json" data-sjs>{"require":[["RelayPrefetchedStreamCache","next",[],["adp_AdLibraryFoundationRootQueryRelayPreloader_1",{"__bbox":{"complete":true,"result":{"data":${JSON.stringify(o.firstBatch)},"extensions":{"is_final":true}}}}]]]}</script>
${o.withoutDocId ? '' : `<script type="application/json" data-sjs>{"require":[["RelayAPIConfigDefaults",[],{"queries":[{"queryID":"${DOC_ID}","queryName":"AdLibrarySearchPaginationQuery"}]}]]}</script>`}
</body></html>`;
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    }
    const graph = /^\/v21\.0\/([^/]+)$/.exec(u.pathname);
    if (graph) {
      graphCalls.push(u);
      if (o.graphResets) return void req.socket.destroy();
      if (graph[1] === 'ads_archive') {
        const size = o.graphPageSize ?? 5;
        const records = o.graphRecords ?? [];
        const from = Number(u.searchParams.get('after') ?? 0);
        const to = Math.min(records.length, from + Math.min(size, Number(u.searchParams.get('limit') ?? size)));
        const paging =
          to < records.length
            ? { cursors: { before: String(from), after: String(to) }, next: `${u.origin}${u.pathname}?after=${to}` }
            : { cursors: { before: String(from), after: String(to) } };
        return json(200, { data: records.slice(from, to), paging });
      }
      const p = o.pages[graph[1]];
      return p
        ? json(200, { id: p.id, name: p.name, link: `https://www.facebook.com/${graph[1]}` })
        : json(404, {
            error: {
              message: `(#803) Some of the aliases you requested do not exist: ${graph[1]}`,
              type: 'OAuthException',
              code: 803,
            },
          });
    }
    const handle = /^\/([a-z0-9._-]+)\/$/.exec(u.pathname)?.[1];
    if (handle && o.loginWalled?.includes(handle))
      return res.writeHead(302, { location: `/login/?next=%2F${handle}%2F` }).end();
    if (u.pathname === '/login/')
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<html><body><form id="login_form" action="/login/device-based/regular/login/"><input name="email"><button name="login" type="submit">Log in</button></form></body></html>',
        );
    if (handle && o.pages[handle]) {
      const p = o.pages[handle];
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><head><title>${p.name} | Facebook</title><meta property="og:title" content="${p.name}"><meta property="al:android:url" content="fb://page/${p.id}?referrer=app_link"></head><body><script>{"pageID":"${p.id}","userVanity":"${handle}"}</script></body></html>`,
        );
    }
    res
      .writeHead(404, { 'content-type': 'text/html' })
      .end("<html><body>This content isn't available right now</body></html>");
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    graphqlCalls,
    graphCalls,
    rateLimitNext: (n) => void (limited = n),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
