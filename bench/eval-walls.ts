/**
 * npm run eval:walls (also bench:walls) — issue 42's figure: the eight kinds of bot wall real
 * sites put up, simulated on this machine (test/helpers/walls.ts: each answers with its vendor's
 * own block page), scraped through the engine as a request would be, `proxy: "auto"`:
 *   1. header heuristics (Akamai-style)       5. 429 with Retry-After: 2
 *   2. JS interstitial (Cloudflare)            6. consent wall (OneTrust modal), browser render
 *   3. client-side fingerprinting (DataDome/BotD-style checks)
 *   4. IP reputation (Imperva-style; the stealth tier is a local proxy exiting from 127.0.0.2)
 *   7. hard block (always 403): passes when it is `blocked` and names the tiers tried
 *   8. remote browser (a second local Chromium over CDP) clearing the JS interstitial, the guard on
 * Prints, per wall, whether it passed, the tier that worked, the latency and the credits at the
 * issue's prices (basic 1, stealth 5, failure 0); then "passes X/8". Beside it, a plain Playwright
 * render of each wall (default headless Chromium, no proxy), and what the fingerprinting page
 * reported of it. (A Playwright render with a published stealth plugin is not in this run: no
 * such plugin is installed here.)
 */
import { FREE_STEALTH, createEngine, type Engine } from '../src/engine/index.js';
import { scrape } from '../src/engine/scrape.js';
import { findChromium } from '../src/engine/fetch/browser.js';
import { TrawlError } from '../src/errors.js';
import {
  ARTICLE_TEXT,
  startForwardProxy,
  startWall,
  type ForwardProxy,
  type WallKindName,
  type WallServer,
} from '../test/helpers/walls.js';
import { startRemoteChromium } from '../test/helpers/remote-chromium.js';

interface Row {
  wall: string;
  pass: boolean;
  tier: string;
  ms: number;
  credits: number;
  note: string;
}

async function run(
  engine: Engine,
  name: string,
  url: string,
  check: (r: Awaited<ReturnType<typeof scrape>>) => string | undefined,
  extra: Partial<Parameters<typeof scrape>[1]> = {},
): Promise<Row> {
  const started = Date.now();
  try {
    // (As /v1/scrape prices the stealth tier; here it is free.)
    const r = await scrape(engine, {
      url,
      formats: ['markdown'],
      timeoutMs: 30_000,
      proxy: 'auto',
      stealthGate: FREE_STEALTH,
      ...extra,
    });
    const ms = Date.now() - started;
    const why = check(r);
    const tier = r.metadata.proxy_used ?? 'basic';
    return {
      wall: name,
      pass: !why,
      tier,
      ms,
      credits: why ? 0 : tier === 'stealth' ? 5 : 1,
      note: why ?? '',
    };
  } catch (e) {
    const err = e as TrawlError;
    return {
      wall: name,
      pass: false,
      tier: '-',
      ms: Date.now() - started,
      credits: 0,
      note: `${err.code ?? 'error'}: ${(err.detail ?? String(e)).slice(0, 160)}`,
    };
  }
}

const hasArticle = (r: { markdown?: string }) =>
  r.markdown?.includes(ARTICLE_TEXT) ? undefined : 'the article is not in the markdown';

async function main(): Promise<void> {
  const chromium = findChromium();
  if (!chromium) console.log('(no Chromium on this machine: the browser walls cannot pass)');
  const walls: WallServer[] = [];
  const wall = async (k: WallKindName, o?: Parameters<typeof startWall>[1]) => {
    const w = await startWall(k, o);
    walls.push(w);
    return w;
  };
  const proxy: ForwardProxy = await startForwardProxy('127.0.0.2');
  const stealthUrl = new URL(proxy.url);
  stealthUrl.username = 'bench';
  stealthUrl.password = 'stealth-secret';
  const engine = createEngine({
    allowPrivateNetwork: true,
    resolve: [],
    proxyUrls: [],
    stealthProxyUrls: [stealthUrl.href],
    chromiumPath: chromium,
    documentWorkers: 0,
  });
  const rows: Row[] = [];
  try {
    const headers = await wall('headers');
    rows.push(await run(engine, 'header heuristics (Akamai-style)', headers.url, hasArticle));
    const js = await wall('js-challenge');
    rows.push(await run(engine, 'JS interstitial (Cloudflare)', js.url, hasArticle));
    const fp = await wall('fingerprint');
    const fpRow = await run(engine, 'fingerprinting (DataDome/BotD-style)', fp.url, hasArticle);
    if (fp.reports.at(-1)?.fails.length) fpRow.note += ` checks failed: ${fp.reports.at(-1)!.fails.join(', ')}`;
    rows.push(fpRow);
    const ip = await wall('ip-reputation');
    rows.push(
      await run(
        engine,
        'IP reputation (Imperva-style)',
        ip.url,
        (r) => hasArticle(r) ?? (r.metadata.proxy_used === 'stealth' ? undefined : 'not through the stealth tier'),
      ),
    );
    const limited = await wall('rate-limit');
    rows.push(await run(engine, '429 Retry-After: 2', limited.url, hasArticle));
    const consent = await wall('consent');
    rows.push(
      await run(
        engine,
        'consent wall (OneTrust)',
        consent.url,
        (r) =>
          (r.markdown?.includes('dredging of the inner harbour will resume')
            ? undefined
            : 'the article is not in the markdown') ??
          (/We value your privacy/.test((r.raw_html ?? '') + (r.markdown ?? ''))
            ? 'the modal is still on the page'
            : undefined),
        { render: 'browser', formats: ['markdown', 'raw_html'] },
      ),
    );
    const hard = await wall('hard-block');
    const hardStarted = Date.now();
    const hardRow: Row = { wall: 'hard block (always 403)', pass: false, tier: '-', ms: 0, credits: 0, note: '' };
    try {
      await scrape(engine, { url: hard.url, timeoutMs: 30_000, proxy: 'auto', stealthGate: FREE_STEALTH });
      hardRow.note = 'answered as if it were content';
    } catch (e) {
      const err = e as TrawlError;
      hardRow.pass =
        err.code === 'blocked' && /tried: basic, stealth/.test(err.detail) && !/stealth-secret/.test(err.detail);
      hardRow.note = `${err.code}: ${err.detail.replace(/^.*?\(/, '(')}`;
    }
    hardRow.ms = Date.now() - hardStarted;
    rows.push(hardRow);
    // 8. A remote browser: a second Chromium over CDP, the guard on (only a pinned name reaches loopback).
    if (chromium) {
      const remote = await startRemoteChromium(chromium);
      const remoteWall = await wall('js-challenge');
      const remoteEngine = createEngine({
        allowPrivateNetwork: false,
        resolve: [{ host: 'wall.test', address: '127.0.0.1', port: remoteWall.port }],
        proxyUrls: [],
        chromiumPath: chromium,
        browserEndpoint: remote.endpoint,
        documentWorkers: 0,
      });
      try {
        const row = await run(remoteEngine, 'remote browser (CDP)', 'http://wall.test/', hasArticle);
        // The guard through it: a private address is refused, not fetched.
        const refused = await scrape(remoteEngine, { url: 'http://127.0.0.1:9/', render: 'browser', timeoutMs: 5000 })
          .then(() => false)
          .catch((e: TrawlError) => e.code === 'forbidden_target');
        if (!refused) {
          row.pass = false;
          row.note += ' the guard did not refuse a private address';
        }
        rows.push(row);
      } finally {
        await remoteEngine.close();
        await remote.stop();
      }
    } else rows.push({ wall: 'remote browser (CDP)', pass: false, tier: '-', ms: 0, credits: 0, note: 'no Chromium' });
  } finally {
    await engine.close();
  }

  // Beside it: a plain Playwright render of each wall (a default headless Chromium, load + 3 s),
  // passed when the article is on the page and no consent modal over it.
  const plainResults = new Map<string, string>();
  let plain = '';
  if (chromium) {
    const { chromium: pw } = await import('playwright-core');
    const b = await pw.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox'] });
    try {
      const kinds: [string, WallKindName][] = [
        ['header heuristics (Akamai-style)', 'headers'],
        ['JS interstitial (Cloudflare)', 'js-challenge'],
        ['fingerprinting (DataDome/BotD-style)', 'fingerprint'],
        ['IP reputation (Imperva-style)', 'ip-reputation'],
        ['429 Retry-After: 2', 'rate-limit'],
        ['consent wall (OneTrust)', 'consent'],
      ];
      for (const [name, kind] of kinds) {
        const w = await wall(kind);
        const page = await b.newPage();
        try {
          await page.goto(w.url, { waitUntil: 'load', timeout: 15_000 }).catch(() => undefined);
          await page.waitForTimeout(3000);
          const html = await page.content().catch(() => '');
          const ok =
            (html.includes(ARTICLE_TEXT) || html.includes('dredging of the inner harbour')) &&
            !/We value your privacy/.test(html);
          plainResults.set(name, ok ? 'pass' : 'FAIL');
          if (kind === 'fingerprint' && w.reports.at(-1)?.fails.length)
            plain = `plain Playwright render of the fingerprinting wall, checks failed: ${w.reports.at(-1)!.fails.join(', ')}`;
        } finally {
          await page.close();
        }
      }
    } finally {
      await b.close();
    }
  }
  await Promise.all(walls.map((w) => w.close()));
  await proxy.close();

  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    `${pad('wall', 40)}${pad('trawl', 7)}${pad('tier', 9)}${pad('ms', 8)}${pad('credits', 9)}${pad('playwright', 12)}note`,
  );
  for (const r of rows)
    console.log(
      `${pad(r.wall, 40)}${pad(r.pass ? 'pass' : 'FAIL', 7)}${pad(r.tier, 9)}${pad(String(r.ms), 8)}${pad(String(r.credits), 9)}${pad(plainResults.get(r.wall) ?? 'n/a', 12)}${r.note}`,
    );
  if (plain) console.log(`\n${plain}`);
  console.log(`\npasses ${rows.filter((r) => r.pass).length}/${rows.length}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
