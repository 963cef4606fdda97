/**
 * npm run eval:meta-ads — every ad record of the shared fixtures (web Ad Library GraphQL pages
 * and Graph API ads_archive records) through POST /v1/meta-ads of the real service (its own
 * process), against the local Meta stand-in of the tests (test/helpers/fake-meta.ts). Prints,
 * per contract field, how many ads have it non-null, and the requests that failed (target 0).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireFixtures } from './lib/fixtures.js';
import { ROOT, trawlCli, waitHealthy } from './lib/service.js';
import { startFakeMeta } from '../test/helpers/fake-meta.js';

const dir = requireFixtures('meta-ads');
const load = (p: string) => JSON.parse(readFileSync(join(dir, p), 'utf8'));
const page1 = load('web-graphql-search/search_page1.json').data;
const records = load('graph-api-ads_archive/ambanum-2019-eu-ads.part-shared.json');
const meta = await startFakeMeta({
  pages: { shaktimats: { id: '775991435791863', name: 'Shakti Mat' } },
  firstBatch: page1,
  nextPages: {
    [page1.ad_library_main.search_results_connection.page_info.end_cursor]: load('web-graphql-search/search_empty.json')
      .data,
  },
  rateLimited: load('web-graphql-search/rate_limited_1675004.json'),
  graphRecords: records,
  graphPageSize: 5,
});
const FIELDS = [
  'id',
  'status',
  'platforms',
  'started_at',
  'ended_at',
  'body',
  'title',
  'link_url',
  'cta',
  'media',
  'snapshot_url',
] as const;

async function run(source: 'web' | 'graph_api', port: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-eval-meta-'));
  const env = {
    ...process.env,
    TRAWL_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: '',
    REDIS_URL: '',
    LOG_LEVEL: 'warn',
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    META_AD_LIBRARY_BASE_URL: meta.url,
    META_GRAPH_BASE_URL: meta.url,
    META_ACCESS_TOKEN: source === 'graph_api' ? 'EAAevaltoken' : '',
  };
  await trawlCli(['account', 'create', '--email', 'eval@local', '--credits', '1000'], env);
  await trawlCli(['account', 'limits', '--email', 'eval@local', '--rate-limit-ceiling', '100000'], env);
  const { key } = JSON.parse(
    await trawlCli(['keys', 'create', '--email', 'eval@local', '--rate-limit', '100000'], env),
  );
  const server = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });
  try {
    await waitHealthy(`http://127.0.0.1:${port}`);
    const res = await fetch(`http://127.0.0.1:${port}/v1/meta-ads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ advertiser: 'shaktimats', country: 'US', active_status: 'all', limit: 500 }),
    });
    const body = (await res.json()) as {
      ads?: Record<string, unknown>[];
      total?: number;
      error?: string;
      detail?: string;
    };
    const expected =
      source === 'web'
        ? page1.ad_library_main.search_results_connection.edges[0].node.collated_results.length
        : records.length;
    const ads = body.ads ?? [];
    console.log(
      `\n${source === 'web' ? 'web Ad Library (GraphQL search page)' : 'Graph API ads_archive'}: HTTP ${res.status}, ${ads.length} of ${expected} fixture records answered as ads${res.ok ? '' : ` — ${body.error}: ${body.detail}`}; total ${body.total}`,
    );
    const leaked = JSON.stringify(body).includes('access_token') || JSON.stringify(body).includes('EAAevaltoken');
    for (const f of FIELDS) {
      const n = ads.filter(
        (a) => a[f] !== null && a[f] !== undefined && !(Array.isArray(a[f]) && (a[f] as unknown[]).length === 0),
      ).length;
      console.log(`  ${f.padEnd(13)} ${String(n).padStart(3)} / ${ads.length}`);
    }
    console.log(`  failed requests: ${res.ok ? 0 : 1}; access token in the answer: ${leaked ? 'YES' : 'no'}`);
  } finally {
    server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await run('web', 3933);
await run('graph_api', 3934);
await meta.close();
