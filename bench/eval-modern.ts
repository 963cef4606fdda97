/**
 * npm run eval:modern — main content of modern pages of every kind (content/wceb-2026:
 * articles, forum threads, service pages, products, collections, listings, documentation),
 * Trawl's pipeline next to Defuddle and Readability.js + Turndown on the same pages in the
 * same run. Scored like the article-extraction benchmark (eval-content.ts): 4-gram shingle
 * precision and recall of the page's main text, averaged per page, F1 of the means; and like
 * trafilatura's corpus: `with` snippets that must appear, `without` ones that must not.
 *
 * Trawl's side is what POST /v1/scrape answers for markdown with only_main_content (the
 * route's own call of the document pipeline). Every figure is printed per page kind and for
 * each half of the fixed study/measure split (bench/lib/halves.ts, keyed by the page's URL so
 * two captures of one URL share a half): rules are written looking at the study half only.
 *
 * Options: `--half study|measure`, `--type KIND`, `--no-peer` (skip Defuddle and
 * Readability.js), `--worst N` (our N worst study-half pages), `--page ID` (print our
 * markdown for one page), `--save FILE` (per-page F1 as JSON, to compare two runs),
 * `--reviewed` (only pages whose truth the set does not flag `truth_needs_review`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { Defuddle } from 'defuddle/node';
import TurndownService from 'turndown';
import { processHtml } from '../src/engine/document/index.js';
import { modernPages, PAGE_TYPES, type ModernPage } from './lib/fixtures.js';
import { halfArg, halfOf, type Half } from './lib/halves.js';
import {
  markdownToPlain,
  markdownToText,
  scores,
  shingleMatch,
  snippetScores,
  type SnippetTally,
  type TpFpFn,
} from './lib/shingles.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const worst = Number(opt('--worst') ?? 0);
const only = opt('--page');
const onlyType = opt('--type');
const onlyHalf = halfArg(args);
const skipPeer = args.includes('--no-peer');
const save = opt('--save');
if (onlyType && !(PAGE_TYPES as readonly string[]).includes(onlyType))
  throw new Error(`--type: one of ${PAGE_TYPES.join(', ')}`);

/** A page's half: by URL, so the two captures of one URL are never split. */
const half = (p: ModernPage): Half => halfOf(p.url);

type Tool = 'trawl' | 'defuddle' | 'readability';
const TOOLS: Tool[] = skipPeer ? ['trawl'] : ['trawl', 'defuddle', 'readability'];

const quiet = new VirtualConsole();
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
const versionOf = (pkg: string) =>
  JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version as string;
const cacheRoot = new URL('../node_modules/.cache/trawl-eval', import.meta.url).pathname;
// A peer's output depends only on the page and the peer's version: kept between runs.
const caches: Record<Exclude<Tool, 'trawl'>, string> = {
  readability: join(cacheRoot, `readability-${versionOf('@mozilla/readability')}`),
  defuddle: join(cacheRoot, `defuddle-${versionOf('defuddle')}`),
};
for (const dir of Object.values(caches)) mkdirSync(dir, { recursive: true });
const cacheFile = (tool: Exclude<Tool, 'trawl'>, page: ModernPage) =>
  join(caches[tool], createHash('sha256').update(page.url).update('\0').update(page.html).digest('hex').slice(0, 32));

/** Readability.js + Turndown: the article's markdown ('' when it finds none). Same cache as eval:content. */
async function readabilityMarkdown(page: ModernPage): Promise<string> {
  try {
    const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
    try {
      const article = new Readability(dom.window.document).parse();
      return article?.content ? turndown.turndown(article.content) : '';
    } finally {
      dom.window.close();
    }
  } catch {
    return '';
  }
}

/** Defuddle (its own markdown output) on a jsdom document; never fetching anything (useAsync off). */
async function defuddleMarkdown(page: ModernPage): Promise<string> {
  // It reports the pages' broken JSON-LD on the console: not this report's business.
  const { error, log, warn } = console;
  console.error = console.log = console.warn = () => undefined;
  try {
    const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
    try {
      const r = await Defuddle(dom.window.document, page.url, { markdown: true, useAsync: false });
      return r.content ?? '';
    } finally {
      dom.window.close();
    }
  } catch {
    return '';
  } finally {
    Object.assign(console, { error, log, warn });
  }
}

const PEERS = { readability: readabilityMarkdown, defuddle: defuddleMarkdown };
/** A peer's cached markdown; '' (and counted empty) when its child process could not make it. */
const peerOutput = (tool: Exclude<Tool, 'trawl'>, page: ModernPage) => {
  const file = cacheFile(tool, page);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

/**
 * The peers' markdown for pages not yet in the cache, made in child processes of a few pages
 * each: jsdom windows are not all given back, and one process through 400 pages ran out of heap.
 */
function fillPeerCache(pages: ModernPage[]): void {
  const missing = pages.filter((p) => Object.keys(PEERS).some((t) => !existsSync(cacheFile(t as 'defuddle', p))));
  const CHUNK = 20;
  for (let i = 0; i < missing.length; i += CHUNK) {
    const ids = missing.slice(i, i + CHUNK).map((p) => p.id);
    process.stderr.write(`peers: pages ${i + 1}-${i + ids.length} of ${missing.length} not cached yet\n`);
    const r = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--fill', ids.join(',')],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 30 * 60_000,
      },
    );
    if (r.status !== 0) process.stderr.write(`peers: a child ended with ${r.status ?? r.signal}\n`);
  }
}

// A child: the given pages' peer outputs into the cache, then exit.
if (opt('--fill')) {
  const ids = new Set(opt('--fill')!.split(','));
  for (const page of modernPages().filter((p) => ids.has(p.id)))
    for (const [tool, run] of Object.entries(PEERS)) {
      const file = cacheFile(tool as 'defuddle', page);
      if (!existsSync(file)) writeFileSync(file, await run(page));
    }
  process.exit(0);
}

let oursMs = 0;
const sources = new Map<string, number>();
const detected: { truth: string; ours: string; half: Half }[] = [];
/** What /v1/scrape answers for `formats: ["markdown"]`, only_main_content true (engine/scrape.ts). */
function trawlMarkdown(page: ModernPage): string {
  const t0 = performance.now();
  const r = processHtml(page.html, {
    url: page.url,
    onlyMainContent: true,
    markdown: true,
    html: false,
    links: false,
  });
  oursMs += performance.now() - t0;
  const meta = r.metadata as unknown as Record<string, unknown>;
  const source = typeof meta.content_source === 'string' ? meta.content_source : 'main';
  if (source !== 'main') sources.set(`${source} (${half(page)})`, (sources.get(`${source} (${half(page)})`) ?? 0) + 1);
  if (typeof meta.page_type === 'string')
    detected.push({ truth: page.pageType, ours: meta.page_type, half: half(page) });
  if (only) console.log(`--- ${page.id} (${page.pageType}, ${half(page)}, ${source})\n${r.markdown ?? ''}\n---`);
  return r.markdown ?? '';
}

interface Row {
  page: ModernPage;
  half: Half;
  shingles: Partial<Record<Tool, TpFpFn>>;
  snippets: Partial<Record<Tool, SnippetTally>>;
  empty: Partial<Record<Tool, boolean>>;
}

/** Fewer words than this is no usable answer (a title, a button label). */
const EMPTY_WORDS = 10;
const words = (s: string) => (s.match(/[\p{L}\p{N}_]+/gu) ?? []).length;

const reviewed = args.includes('--reviewed');
const pages = modernPages().filter(
  (p) =>
    (!onlyHalf || half(p) === onlyHalf) &&
    (!onlyType || p.pageType === onlyType) &&
    (!only || p.id.startsWith(only)) &&
    (!reviewed || !p.truthNeedsReview),
);
if (!skipPeer) fillPeerCache(pages);
const rows: Row[] = [];
for (const page of pages) {
  const row: Row = { page, half: half(page), shingles: {}, snippets: {}, empty: {} };
  for (const tool of TOOLS) {
    const md = tool === 'trawl' ? trawlMarkdown(page) : peerOutput(tool, page);
    row.shingles[tool] = shingleMatch(page.articleBody, markdownToText(md));
    const plain = markdownToPlain(md);
    row.snippets[tool] = snippetScores(plain, page.with, page.without);
    row.empty[tool] = words(plain) < EMPTY_WORDS;
  }
  rows.push(row);
}

const f3 = (x: number) => x.toFixed(3);
const cell = (s: { precision: number; recall: number; f1: number }) =>
  `${f3(s.f1)} (${f3(s.precision)}/${f3(s.recall)})`;
const halves: (Half | 'all')[] = onlyHalf ? [onlyHalf] : ['study', 'measure', 'all'];
const kinds = [...(onlyType ? [onlyType] : PAGE_TYPES), 'all'] as const;
const summary: string[] = [];

for (const h of halves) {
  const inHalf = rows.filter((r) => h === 'all' || r.half === h);
  if (!inHalf.length) continue;
  console.log(
    `\n${h === 'all' ? 'both halves' : `${h} half`}: shingle F1 (P/R) of the main text; empty = under ${EMPTY_WORDS} words`,
  );
  console.log(
    `  ${'kind'.padEnd(14)} ${'pages'.padStart(5)}  ${TOOLS.map((t) => t.padEnd(21)).join('  ')}  empty ${TOOLS.join('/')}`,
  );
  for (const kind of kinds) {
    const r = inHalf.filter((x) => kind === 'all' || x.page.pageType === kind);
    if (!r.length) continue;
    const line = TOOLS.map((t) => cell(scores(r.map((x) => x.shingles[t]!))).padEnd(21)).join('  ');
    const empties = TOOLS.map((t) => r.filter((x) => x.empty[t]).length).join('/');
    console.log(`  ${kind.padEnd(14)} ${String(r.length).padStart(5)}  ${line}  ${empties}`);
    if (kind === 'all')
      summary.push(
        `${h}: ${TOOLS.map((t) => `${t} ${f3(scores(r.map((x) => x.shingles[t]!)).f1)}`).join(', ')}; empty ${empties}`,
      );
  }
  const snip = TOOLS.map((t) => {
    const s = r2(inHalf.map((x) => x.snippets[t]!));
    return `${t} P=${f3(s.precision)} R=${f3(s.recall)} F1=${f3(s.f1)}`;
  });
  console.log(`  snippets (with must appear, without must not): ${snip.join('   ')}`);
}

/** Snippet tallies summed → precision, recall, F1 (trafilatura's evaluation). */
function r2(ts: SnippetTally[]) {
  const t = ts.reduce((a, x) => ({ tp: a.tp + x.tp, fn: a.fn + x.fn, fp: a.fp + x.fp, tn: a.tn + x.tn }), {
    tp: 0,
    fn: 0,
    fp: 0,
    tn: 0,
  });
  const precision = t.tp / Math.max(1, t.tp + t.fp);
  const recall = t.tp / Math.max(1, t.tp + t.fn);
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}

if (sources.size)
  console.log(
    `\ntrawl content sources other than the main-content pick: ${[...sources]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
if (detected.length) {
  for (const h of halves) {
    const d = detected.filter((x) => h === 'all' || x.half === h);
    const right = d.filter((x) => x.ours === x.truth).length;
    const confusion = new Map<string, number>();
    for (const x of d)
      if (x.ours !== x.truth) confusion.set(`${x.truth}→${x.ours}`, (confusion.get(`${x.truth}→${x.ours}`) ?? 0) + 1);
    console.log(
      `metadata.page_type (${h}): ${right}/${d.length} as the truth; ${[...confusion]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );
  }
}

if (worst) {
  const list = rows
    .filter((r) => r.half === 'study')
    .map((r) => ({ r, s: scores([r.shingles.trawl!]) }))
    .sort((a, b) => a.s.f1 - b.s.f1);
  console.log(`\nworst study-half pages (trawl${skipPeer ? '' : ' | defuddle | readability'})`);
  for (const { r, s } of list.slice(0, worst))
    console.log(
      `  ${r.page.id} ${r.page.pageType.padEnd(13)} ${cell(s)}${skipPeer ? '' : ` | ${f3(scores([r.shingles.defuddle!]).f1)} | ${f3(scores([r.shingles.readability!]).f1)}`}  ${r.page.url.slice(0, 70)}`,
    );
}

if (save) {
  const out: Record<string, number> = {};
  for (const r of rows) out[r.page.id] = scores([r.shingles.trawl!]).f1;
  writeFileSync(save, JSON.stringify(out, null, 1));
}
console.log(`\ntrawl: ${(oursMs / Math.max(1, rows.length)).toFixed(1)} ms/page over ${rows.length} pages`);
console.log(`summary: ${summary.join('; ')}`);
