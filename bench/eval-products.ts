/**
 * npm run eval:products — product extraction through the real HTTP service: every
 * marketplace fixture page with Zyte-format ground truth is served by a local server under
 * its original host (TRAWL_RESOLVE), and /v1/extract is asked for
 * {price:number, currency:string, in_stock:boolean, sku:string, brand:string}.
 * Per field: precision = correct/predicted, recall = correct/support, F1 (the benchmark's
 * rules: price compared as a decimal, one predicted value, availability defaults to InStock).
 * Each field is also scored on the two halves of the fixed study/measure split (halves.ts).
 * `--errors` lists every miss of the study half (`--errors all`: of every page).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireFixtures } from './lib/fixtures.js';
import { ROOT, serveSavedPages, trawlCli, waitHealthy } from './lib/service.js';
import { halfOf } from './lib/halves.js';
import { normaliseCurrency } from '../src/engine/extract/currency.js';

const showErrors = process.argv.includes('--errors');
const errorsOfAll = process.argv[process.argv.indexOf('--errors') + 1] === 'all';
const SCHEMA = { price: 'number', currency: 'string', in_stock: 'boolean', sku: 'string', brand: 'string' };

interface Case {
  id: string;
  url: string;
  file: string;
  truth: Record<string, string[]>;
}
/** Other fixtures that assert one price (metascraper-shopping, PennyPincher): a second, smaller check. */
interface PriceAssertion {
  id: string;
  url: string;
  file: string;
  price: number | null;
}

function cases(): { zyte: Case[]; asserted: PriceAssertion[] } {
  const dir = requireFixtures('marketplace');
  const zyte: Case[] = [];
  const asserted: PriceAssertion[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e === 'expected.json') {
        const exp = JSON.parse(readFileSync(p, 'utf8'));
        const file = ['page.html', 'page.html.gz'].map((f) => join(d, f)).find(existsSync);
        if (!file) continue;
        const id = d.slice(dir.length + 1);
        if (exp.ground_truth) {
          const url = (exp.ground_truth.url ?? exp.url) as string;
          zyte.push({ id, url: url.replace(/^https:/, 'http:'), file, truth: exp.ground_truth });
        } else if (exp.expected && 'price' in exp.expected && (exp.input_url ?? exp.url)) {
          const raw = exp.expected.price;
          const price =
            raw === null
              ? null
              : typeof raw === 'number'
                ? raw
                : typeof raw?.amountMinor === 'number'
                  ? raw.amountMinor / 100
                  : undefined;
          if (price !== undefined)
            asserted.push({ id, url: String(exp.input_url ?? exp.url).replace(/^https:/, 'http:'), file, price });
        }
      }
    }
  };
  walk(dir);
  return {
    zyte: zyte.sort((a, b) => a.id.localeCompare(b.id)),
    asserted: asserted.sort((a, b) => a.id.localeCompare(b.id)),
  };
}

const { zyte: all, asserted } = cases();
const site = await serveSavedPages([...all, ...asserted]);

const dataDir = mkdtempSync(join(tmpdir(), 'trawl-eval-'));
const env = {
  ...process.env,
  TRAWL_DATA_DIR: dataDir,
  PORT: '3931',
  HOST: '127.0.0.1',
  DATABASE_URL: '',
  LLM_BASE_URL: '',
  LOG_LEVEL: 'warn',
  TRAWL_RESOLVE: site.resolve,
};
const cli = (args: string[]) => trawlCli(args, env);
await cli(['account', 'create', '--email', 'eval@local', '--credits', '100000']);
await cli(['account', 'limits', '--email', 'eval@local', '--rate-limit-ceiling', '100000']);
const { key } = JSON.parse(await cli(['keys', 'create', '--email', 'eval@local', '--rate-limit', '100000']));
const server = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });

try {
  await waitHealthy('http://127.0.0.1:3931');
  const predictions = new Map<string, Record<string, unknown> | undefined>();
  const latencies: number[] = [];
  const sourcesOf = new Map<string, Record<string, string> | undefined>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (next < all.length) {
        const c = all[next++];
        const started = performance.now();
        const res = await fetch('http://127.0.0.1:3931/v1/extract', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ urls: [c.url], schema: SCHEMA }),
        });
        const body = await res.json();
        latencies.push(performance.now() - started);
        predictions.set(c.id, res.ok ? body.results?.[0]?.json : undefined);
        sourcesOf.set(c.id, res.ok ? body.results?.[0]?.sources : undefined);
        if (!res.ok && showErrors) console.log(`request failed ${c.id}: ${res.status} ${JSON.stringify(body)}`);
      }
    }),
  );

  type Tally = { tp: number; fp: number; fn: number; support: number };
  const tallies: Record<'all' | 'study' | 'measure', Record<string, Tally>> = { all: {}, study: {}, measure: {} };
  const tally = tallies.all;
  const score = (
    field: string,
    truth: string[] | undefined,
    pred: string | undefined,
    eq: (a: string, b: string) => boolean,
    c: Case,
  ) => {
    for (const h of ['all', halfOf(c.id)] as const) tallyOne(tallies[h], field, truth, pred, eq);
    const has = !!truth?.length;
    const ok = pred === undefined ? !has : has && truth!.some((v) => eq(v, pred));
    const src = sourcesOf.get(c.id)?.[field === 'availability' ? 'in_stock' : field];
    if (field === 'availability') return; // its misses are in_stock's
    if (showErrors && !ok && (errorsOfAll || halfOf(c.id) === 'study'))
      console.log(
        `${field.padEnd(12)} ${c.id.padEnd(60)} truth=${JSON.stringify(truth)} predicted=${JSON.stringify(pred)} from ${src ?? '-'}`,
      );
  };
  const tallyOne = (
    tally: Record<string, Tally>,
    field: string,
    truth: string[] | undefined,
    pred: string | undefined,
    eq: (a: string, b: string) => boolean,
  ) => {
    const t = (tally[field] ??= { tp: 0, fp: 0, fn: 0, support: 0 });
    const has = !!truth?.length;
    if (has) t.support++;
    if (pred === undefined) {
      if (has) t.fn++;
    } else if (has && truth!.some((v) => eq(v, pred))) t.tp++;
    else {
      t.fp++;
      if (has) t.fn++;
    }
  };
  const exact = (a: string, b: string) => a === b;
  const decimal = (a: string, b: string) => Math.abs(Number(a) - Number(b)) < 1e-9;
  const loose = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  // The ground truth writes currencies as shown ("$", "€", "Lei"); we answer ISO codes.
  const sameCurrency = (truth: string, code: string) => {
    const t = truth.trim();
    if (t.toUpperCase() === code) return true;
    if (t === '$') return /D$/.test(code) || ['MXN', 'CLP', 'ARS', 'COP', 'UYU', 'DOP'].includes(code);
    if (/^rs\.?$/i.test(t)) return ['INR', 'PKR', 'LKR', 'NPR'].includes(code);
    if (t === '¥') return code === 'JPY' || code === 'CNY';
    if (/^kr\.?$/i.test(t)) return ['SEK', 'NOK', 'DKK', 'ISK'].includes(code);
    return normaliseCurrency(t) === code;
  };
  for (const c of all) {
    const p = predictions.get(c.id) ?? {};
    const str = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
    score('price', c.truth.price, str(p.price), decimal, c);
    score('sku', c.truth.sku, str(p.sku), exact, c);
    score('availability', c.truth.availability, p.in_stock === false ? 'OutOfStock' : 'InStock', exact, c);
    // The same without the benchmark's default: no answer is a miss (what a caller sees).
    score(
      'in_stock',
      c.truth.availability,
      p.in_stock === false ? 'OutOfStock' : p.in_stock === true ? 'InStock' : undefined,
      exact,
      c,
    );
    score('brand', c.truth.brand, str(p.brand), loose, c);
    score('currency', c.truth.currency, str(p.currency), sameCurrency, c);
  }
  console.log(
    `pages: ${all.length} with Zyte-format ground truth (shared part of the fixtures), through POST /v1/extract`,
  );
  console.log(
    'field         precision  recall     F1   support   (anchors: Zyte price 0.918 / sku 0.841 / availability 0.957; extruct 0.685 / 0.537 / 0.626)',
  );
  console.log(
    "(availability: the benchmark's rule, no answer = InStock; in_stock: the same answers with no answer a miss)",
  );
  const prf = (t: Tally) => {
    const p = t.tp + t.fp ? t.tp / (t.tp + t.fp) : 0;
    const r = t.tp + t.fn ? t.tp / (t.tp + t.fn) : 0;
    return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
  };
  for (const [field, t] of Object.entries(tally)) {
    const { p, r, f1 } = prf(t);
    const halves = (['study', 'measure'] as const)
      .map((h) => `${h} ${prf(tallies[h][field]).f1.toFixed(3)} (${tallies[h][field].support})`)
      .join('  ');
    console.log(
      `${field.padEnd(12)} ${p.toFixed(3).padStart(9)} ${r.toFixed(3).padStart(7)} ${f1.toFixed(3).padStart(6)} ${String(t.support).padStart(8)}   F1 ${halves}`,
    );
  }
  // Which way in_stock errs (a count per half, no page named): in stock read as sold out, or the reverse.
  const confusion = (h: 'study' | 'measure') => {
    const n: Record<string, number> = {};
    for (const c of all.filter((x) => halfOf(x.id) === h && x.truth.availability?.length)) {
      const p = predictions.get(c.id)?.in_stock;
      // …and from what kind of source (json-ld, microdata, css …), no more.
      const src = /^[a-z-]+/.exec(sourcesOf.get(c.id)?.in_stock ?? '')?.[0] ?? '-';
      const k = `${c.truth.availability![0]}→${p === true ? 'true' : p === false ? 'false' : 'none'} (${src})`;
      n[k] = (n[k] ?? 0) + 1;
    }
    return Object.entries(n)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  };
  console.log(`in_stock answers, study: ${confusion('study')}; measure: ${confusion('measure')}`);
  console.log(
    `pages per half: study ${all.filter((c) => halfOf(c.id) === 'study').length}, measure ${all.filter((c) => halfOf(c.id) === 'measure').length}`,
  );
  latencies.sort((a, b) => a - b);
  console.log(
    `latency per /v1/extract call (6 at a time): median ${latencies[latencies.length >> 1].toFixed(0)} ms, max ${latencies[latencies.length - 1].toFixed(0)} ms`,
  );
  // The second check: pages whose fixture asserts one price (or that there is none).
  let agreed = 0;
  for (const a of asserted) {
    const res = await fetch('http://127.0.0.1:3931/v1/extract', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ urls: [a.url], schema: { price: 'number' } }),
    });
    const body = await res.json();
    const got = res.ok ? (body.results?.[0]?.json?.price ?? null) : undefined;
    const ok = got === a.price || (typeof got === 'number' && a.price !== null && Math.abs(got - a.price) < 1e-9);
    if (ok) agreed++;
    else if (showErrors)
      console.log(
        `asserted price ${a.id.padEnd(50)} expected=${a.price} predicted=${got} from ${body.results?.[0]?.sources?.price ?? '-'}`,
      );
  }
  if (asserted.length)
    console.log(
      `also: ${agreed}/${asserted.length} single-price assertions of other fixture sets (metascraper-shopping, PennyPincher) agree`,
    );
  // The third: manufacturer codes, asked for on their own ({gtin, mpn}), scored like the rest.
  const codes: Record<string, Tally> = {};
  let nextCode = 0;
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (nextCode < all.length) {
        const c = all[nextCode++];
        const res = await fetch('http://127.0.0.1:3931/v1/extract', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ urls: [c.url], schema: { gtin: 'string', mpn: 'string' } }),
        });
        const body = await res.json();
        for (const field of ['gtin', 'mpn']) {
          const t = (codes[field] ??= { tp: 0, fp: 0, fn: 0, support: 0 });
          const truth = c.truth[field];
          const v = res.ok ? body.results?.[0]?.json?.[field] : undefined;
          const pred = v === null || v === undefined ? undefined : String(v);
          if (truth?.length) t.support++;
          if (pred !== undefined && truth?.includes(pred)) t.tp++;
          else {
            if (pred !== undefined) t.fp++;
            if (truth?.length) t.fn++;
          }
        }
      }
    }),
  );
  // The fourth: the markdown of the same pages (POST /v1/scrape, main content) shows the
  // item's price as the ground truth gives it — product pages read as products, not only
  // their description block.
  let shown = 0;
  let priced = 0;
  let nextPage = 0;
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (nextPage < all.length) {
        const c = all[nextPage++];
        const price = c.truth.price?.[0];
        if (!price) continue;
        priced++;
        const res = await fetch('http://127.0.0.1:3931/v1/scrape', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ url: c.url, formats: ['markdown'] }),
        });
        const body = await res.json();
        const digits = String(Math.floor(Number(price)));
        if (
          res.ok &&
          String(body.markdown ?? '')
            .replace(/[.,\s\u00a0\u202f']/g, '')
            .includes(digits)
        )
          shown++;
      }
    }),
  );
  console.log(`also: scrape markdown (main content) shows the ground-truth price on ${shown}/${priced} pages`);
  const f1 = (t: Tally) => (2 * t.tp) / (2 * t.tp + t.fp + t.fn || 1);
  console.log(
    `also, schema {gtin, mpn}: gtin F1 ${f1(codes.gtin).toFixed(3)} (support ${codes.gtin.support}), mpn F1 ${f1(codes.mpn).toFixed(3)} (support ${codes.mpn.support}; the annotators left most pages' mpn blank)`,
  );
} finally {
  server.kill('SIGTERM');
  site.close();
  setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 300);
}
