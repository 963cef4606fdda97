/**
 * npm run eval:marketplace — POST /v1/marketplace through the real HTTP service on every
 * fixture page of the six marketplaces that has ground truth, each served by a local server
 * under its original host (TRAWL_RESOLVE), and the same pages through POST /v1/extract beside
 * it. Per field (price, currency, in_stock, id, title, brand, rating, review_count): accuracy =
 * correct / pages whose truth names the field (no answer is wrong), for all pages and for the
 * study / measure halves (halves.ts). `--errors` prints every miss of the study half
 * (`--errors all`: of every page).
 * Truth: Zyte's lists of acceptable values (price, currency, availability, sku = the item id,
 * brand); metascraper's snapshot title; asserted prices and titles (PennyPincher's minor units);
 * the product id in the fixture's URL.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, requireFixtures } from './lib/fixtures.js';
import { halfOf } from './lib/halves.js';
import { ROOT, serveSavedPages, trawlCli, waitHealthy } from './lib/service.js';
import { isMarketplaceId, productIdFromUrl } from '../src/engine/marketplace/registry.js';
import { normaliseCurrency } from '../src/engine/extract/currency.js';
import type { ExtractResult, MarketplaceResult } from '../sdk/typescript/src/types.js';

const showErrors = process.argv.includes('--errors');
const errorsOfAll = process.argv[process.argv.indexOf('--errors') + 1] === 'all';
const FIELDS = ['price', 'currency', 'in_stock', 'id', 'title', 'brand', 'rating', 'review_count'] as const;
type Field = (typeof FIELDS)[number];
type Truth = Partial<Record<Field, unknown[]>>;
interface Case {
  id: string;
  marketplace: string;
  url: string;
  file: string;
  truth: Truth;
}

function cases(): Case[] {
  const root = requireFixtures('marketplace');
  const out: Case[] = [];
  for (const marketplace of readdirSync(root).filter(isMarketplaceId)) {
    for (const name of readdirSync(join(root, marketplace))) {
      const dir = join(root, marketplace, name);
      const file = ['page.html', 'page.html.gz'].map((f) => join(dir, f)).find(existsSync);
      if (!file || !existsSync(join(dir, 'expected.json'))) continue;
      const exp = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
      const url = String(exp.ground_truth?.url ?? exp.url ?? exp.input_url ?? '');
      if (!url) continue;
      const truth: Truth = {};
      const gt = exp.ground_truth as Record<string, string[]> | undefined;
      if (gt?.price?.length) truth.price = gt.price.map(Number);
      if (gt?.currency?.length) truth.currency = gt.currency;
      if (gt?.availability?.length) truth.in_stock = gt.availability.map((a) => a !== 'OutOfStock');
      if (gt?.brand?.length) truth.brand = gt.brand;
      if (gt?.sku?.length) truth.id = gt.sku;
      if (exp.metascraper_snapshot?.title) truth.title = [exp.metascraper_snapshot.title];
      if (typeof exp.expected?.price === 'number') truth.price = [exp.expected.price];
      if (typeof exp.expected?.price?.amountMinor === 'number') truth.price = [exp.expected.price.amountMinor / 100];
      if (typeof exp.expected?.price?.currency === 'string') truth.currency = [exp.expected.price.currency];
      if (typeof exp.expected?.title === 'string') truth.title = [exp.expected.title];
      if (typeof exp.expected?.retailerSku === 'string') truth.id = [exp.expected.retailerSku];
      const idInUrl = productIdFromUrl(marketplace, url);
      if (!truth.id && idInUrl) truth.id = [idInUrl];
      if (Object.keys(truth).length)
        out.push({ id: `${marketplace}/${name}`, marketplace, url: url.replace(/^https:/, 'http:'), file, truth });
    }
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

const all = cases();
if (!all.length) {
  console.log(`no marketplace fixtures with ground truth under ${FIXTURES}/marketplace`);
  process.exit(0);
}
const site = await serveSavedPages(all);
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-eval-mkt-'));
const PORT = 3932;
const env = {
  ...process.env,
  TRAWL_DATA_DIR: dataDir,
  PORT: String(PORT),
  HOST: '127.0.0.1',
  DATABASE_URL: '',
  REDIS_URL: '',
  LLM_BASE_URL: '',
  LOG_LEVEL: 'warn',
  TRAWL_RESOLVE: site.resolve,
};
await trawlCli(['account', 'create', '--email', 'eval@local', '--credits', '100000'], env);
await trawlCli(['account', 'limits', '--email', 'eval@local', '--rate-limit-ceiling', '100000'], env);
const { key: apiKey } = JSON.parse(
  await trawlCli(['keys', 'create', '--email', 'eval@local', '--rate-limit', '100000'], env),
);
const server = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });

/** The service's answer: T on success, the contract's error body otherwise. */
type Answer<T> =
  { ok: true; status: number; body: T } | { ok: false; status: number; body: { error: string; detail: string } };

const post = async <T>(path: string, body: unknown): Promise<Answer<T>> => {
  const res = await fetch(`http://127.0.0.1:${PORT}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
  return { ok: res.ok, status: res.status, body: await res.json() } as Answer<T>;
};

const same = (field: Field, truth: unknown, got: unknown): boolean => {
  if (got === null || got === undefined) return false;
  switch (field) {
    case 'price':
    case 'rating':
    case 'review_count':
      return Math.abs(Number(truth) - Number(got)) < 1e-9;
    case 'currency': {
      const t = String(truth).trim();
      return t.toUpperCase() === got || (t === '$' ? /D$/.test(String(got)) : normaliseCurrency(t) === got);
    }
    case 'in_stock':
      return truth === got;
    default:
      return String(truth).trim().toLowerCase() === String(got).trim().toLowerCase();
  }
};

try {
  await waitHealthy(`http://127.0.0.1:${PORT}`);
  type Tally = Record<'all' | 'study' | 'measure', Record<string, { ok: number; n: number }>>;
  const fresh = (): Tally => ({ all: {}, study: {}, measure: {} });
  const tallies = { marketplace: fresh(), extract: fresh() };
  const times: number[] = [];
  for (const c of all) {
    const t0 = performance.now();
    const m = await post<MarketplaceResult>('/v1/marketplace', { marketplace: c.marketplace, url: c.url });
    times.push(performance.now() - t0);
    const e = await post<ExtractResult>('/v1/extract', {
      urls: [c.url],
      schema: {
        title: 'string',
        price: 'number',
        currency: 'string',
        in_stock: 'boolean',
        sku: 'string',
        brand: 'string',
        rating: 'number',
        review_count: 'integer',
      },
    });
    const extracted = e.ok ? e.body.results[0] : undefined;
    const answers = {
      marketplace: m.ok ? m.body.product : {},
      extract: extracted?.status === 'ok' ? { ...extracted.json, id: extracted.json.sku } : {},
    };
    if (!m.ok && showErrors) console.log(`marketplace ${c.id}: ${m.status} ${JSON.stringify(m.body)}`);
    for (const [who, got] of Object.entries(answers) as ['marketplace' | 'extract', Record<string, unknown>][]) {
      for (const f of FIELDS) {
        const truth = c.truth[f];
        if (!truth?.length) continue;
        const ok = truth.some((t) => same(f, t, got?.[f]));
        for (const h of ['all', halfOf(c.id)] as const) {
          const t = (tallies[who][h][f] ??= { ok: 0, n: 0 });
          t.n++;
          if (ok) t.ok++;
        }
        if (showErrors && !ok && who === 'marketplace' && (errorsOfAll || halfOf(c.id) === 'study'))
          console.log(
            `${f.padEnd(12)} ${c.id.padEnd(56)} truth=${JSON.stringify(truth)} got=${JSON.stringify(got?.[f])} from ${(m.ok ? m.body.sources?.[f] : undefined) ?? '-'}`,
          );
      }
    }
  }
  const cell = (t?: { ok: number; n: number }) => (t ? `${(t.ok / t.n).toFixed(3)} (${t.n})` : '—').padEnd(12);
  console.log(
    `pages: ${all.length} marketplace fixtures with ground truth (study ${all.filter((c) => halfOf(c.id) === 'study').length}, measure ${all.filter((c) => halfOf(c.id) === 'measure').length}); accuracy (pages with truth for the field); target ≥ 0.98 for price, in_stock, id, title`,
  );
  console.log(
    `${'field'.padEnd(13)}${'/v1/marketplace'.padEnd(14)}${'study'.padEnd(12)}${'measure'.padEnd(12)}| ${'/v1/extract'.padEnd(12)}${'study'.padEnd(12)}measure`,
  );
  for (const f of FIELDS) {
    const m = tallies.marketplace;
    const x = tallies.extract;
    console.log(
      `${f.padEnd(13)}${cell(m.all[f]).padEnd(14)}${cell(m.study[f])}${cell(m.measure[f])}| ${cell(x.all[f])}${cell(x.study[f])}${cell(x.measure[f])}`,
    );
  }
  times.sort((a, b) => a - b);
  console.log(
    `latency per /v1/marketplace call (one at a time): median ${times[times.length >> 1].toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms`,
  );
} finally {
  server.kill();
  site.close();
  rmSync(dataDir, { recursive: true, force: true });
}
