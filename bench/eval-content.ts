/**
 * npm run eval:content — main-content quality on three corpora, Trawl's pipeline next to
 * Mozilla Readability (jsdom) + Turndown on the same pages in the same run:
 *  - scrapinghub article-extraction-benchmark: 4-gram shingle F1 of the article body;
 *  - trafilatura's evaluation corpus: snippets that must / must not appear in the content
 *    (whitespace-normalised substring match on the markdown with its syntax stripped);
 *  - Readability's regression corpus: agreement with Readability's own expected output.
 * Every figure is printed for all pages and for each half of the fixed study/measure split
 * (bench/lib/halves.ts): rules are written looking at the study half; the measure half
 * stands in for unseen pages.
 * Options: `--set aeb|trafilatura|readability` (one corpus), `--half study|measure`,
 * `--no-peer` (skip Readability.js), `--worst N` (our N worst study-half pages per corpus),
 * `--page ID` (print our text for one page).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { processHtml } from '../src/engine/document/index.js';
import { parseHtml, textOf } from '../src/engine/document/dom.js';
import { aebPages, FIXTURES, trafilaturaPages, type ContentPage } from './lib/fixtures.js';
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
const set = opt('--set');
const onlyHalf = halfArg(args);
const skipPeer = args.includes('--no-peer');
const wanted = (name: string) => !set || set === name;
const inHalf = (p: { id: string }) => (!onlyHalf || halfOf(p.id) === onlyHalf) && (!only || p.id.startsWith(only));

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
const quiet = new VirtualConsole();
const { version: readabilityVersion } = JSON.parse(
  readFileSync(new URL('../node_modules/@mozilla/readability/package.json', import.meta.url), 'utf8'),
);
// Readability's output depends only on the page and its version: kept between runs.
const peerCache = join(
  new URL('../node_modules/.cache/trawl-eval', import.meta.url).pathname,
  `readability-${readabilityVersion}`,
);
mkdirSync(peerCache, { recursive: true });

/** Readability.js + Turndown: the article's markdown ('' when it finds none). */
function peerMarkdown(page: ContentPage): string {
  const file = join(
    peerCache,
    createHash('sha256').update(page.url).update('\0').update(page.html).digest('hex').slice(0, 32),
  );
  if (existsSync(file)) return readFileSync(file, 'utf8');
  let md: string;
  try {
    const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
    const article = new Readability(dom.window.document).parse();
    md = article?.content ? turndown.turndown(article.content) : '';
    dom.window.close();
  } catch {
    md = '';
  }
  writeFileSync(file, md);
  return md;
}

let oursMs = 0;
let oursPages = 0;
function ourMarkdown(page: ContentPage): string {
  const t0 = performance.now();
  const md = processHtml(page.html, { url: page.url }).markdown ?? '';
  oursMs += performance.now() - t0;
  oursPages++;
  if (only) console.log(`--- ${page.id}\n${md}`);
  return md;
}

const halves: (Half | 'all')[] = onlyHalf ? [onlyHalf] : ['all', 'study', 'measure'];
const f3 = (x: number) => x.toFixed(3);
const fmt = (s: { precision: number; recall: number; f1: number }) =>
  `P=${f3(s.precision)} R=${f3(s.recall)} F1=${f3(s.f1)}`;
const pick = <T extends { id: string }>(rows: T[], h: Half | 'all') =>
  rows.filter((r) => h === 'all' || halfOf(r.id) === h);
const summary: string[] = [];
/** `--save FILE`: per-page scores as JSON, to compare two runs page by page. */
const perPage: Record<string, number> = {};
const save = opt('--save');

if (wanted('aeb')) {
  const pages = aebPages().filter(inHalf);
  const rows = pages.map((page) => ({
    id: page.id,
    ours: shingleMatch(page.articleBody ?? '', markdownToText(ourMarkdown(page))),
    peer: skipPeer ? undefined : shingleMatch(page.articleBody ?? '', markdownToText(peerMarkdown(page))),
  }));
  for (const r of rows) perPage[`aeb/${r.id}`] = scores([r.ours]).f1;
  console.log(`\nscrapinghub article-extraction-benchmark (shared pages), shingle F1 of the article body`);
  for (const h of halves) {
    const r = pick(rows, h);
    const o = scores(r.map((x) => x.ours));
    const p = skipPeer ? undefined : scores(r.map((x) => x.peer as TpFpFn));
    console.log(
      `  ${h.padEnd(7)} ${String(r.length).padStart(3)} pages  trawl ${fmt(o)}${p ? `   readability.js ${fmt(p)}   diff ${o.f1 - p.f1 >= 0 ? '+' : ''}${f3(o.f1 - p.f1)}` : ''}`,
    );
    summary.push(`aeb/${h}: ${f3(o.f1)}${p ? ` (readability.js ${f3(p.f1)})` : ''}`);
  }
  if (worst) {
    const list = rows
      .filter((r) => halfOf(r.id) === 'study')
      .map((r) => ({ id: r.id, s: scores([r.ours]) }))
      .sort((a, b) => a.s.f1 - b.s.f1);
    for (const w of list.slice(0, worst)) console.log(`    ${w.id.slice(0, 16)}  ${fmt(w.s)}`);
  }
}

if (wanted('trafilatura')) {
  const pages = trafilaturaPages().filter(inHalf);
  const tally = (md: string, page: (typeof pages)[number]): SnippetTally =>
    snippetScores(markdownToPlain(md), page.with, page.without);
  const rows = pages.map((page) => ({
    id: page.id,
    ours: tally(ourMarkdown(page), page),
    peer: skipPeer ? undefined : tally(peerMarkdown(page), page),
  }));
  const sum = (ts: SnippetTally[]) =>
    ts.reduce((a, t) => ({ tp: a.tp + t.tp, fn: a.fn + t.fn, fp: a.fp + t.fp, tn: a.tn + t.tn }), {
      tp: 0,
      fn: 0,
      fp: 0,
      tn: 0,
    });
  const prf = (t: SnippetTally) => {
    const precision = t.tp / Math.max(1, t.tp + t.fp);
    const recall = t.tp / Math.max(1, t.tp + t.fn);
    return {
      precision,
      recall,
      f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
      accuracy: (t.tp + t.tn) / Math.max(1, t.tp + t.tn + t.fp + t.fn),
    };
  };
  for (const r of rows)
    perPage[`trafilatura/${r.id}`] =
      (r.ours.tp + r.ours.tn) / Math.max(1, r.ours.tp + r.ours.tn + r.ours.fp + r.ours.fn);
  console.log(
    `\ntrafilatura evaluation corpus (shared pages), snippet precision/recall/F1 (with = must appear, without = must not)`,
  );
  for (const h of halves) {
    const r = pick(rows, h);
    const o = prf(sum(r.map((x) => x.ours)));
    const p = skipPeer ? undefined : prf(sum(r.map((x) => x.peer as SnippetTally)));
    console.log(
      `  ${h.padEnd(7)} ${String(r.length).padStart(3)} pages  trawl ${fmt(o)} acc=${f3(o.accuracy)}${p ? `   readability.js ${fmt(p)} acc=${f3(p.accuracy)}   diff ${o.f1 - p.f1 >= 0 ? '+' : ''}${f3(o.f1 - p.f1)}` : ''}`,
    );
    summary.push(`trafilatura/${h}: ${f3(o.f1)}${p ? ` (readability.js ${f3(p.f1)})` : ''}`);
  }
  if (worst) {
    const list = rows
      .filter((r) => halfOf(r.id) === 'study')
      .map((r) => ({ id: r.id, bad: r.ours.fn + r.ours.fp, t: r.ours }))
      .filter((r) => r.bad > 0)
      .sort((a, b) => b.bad - a.bad);
    for (const w of list.slice(0, worst))
      console.log(`    ${w.id}  missed ${w.t.fn} of ${w.t.tp + w.t.fn}, kept ${w.t.fp} of ${w.t.fp + w.t.tn} unwanted`);
  }
}

if (wanted('readability')) {
  const dir = join(FIXTURES, 'content/readability');
  const ids = existsSync(dir)
    ? readdirSync(dir)
        .sort()
        .filter((id) => inHalf({ id }))
    : [];
  const rows = ids.map((id) => {
    const page = { id, html: readFileSync(join(dir, id, 'source.html'), 'utf8'), url: `http://fakehost/test/${id}/` };
    const expected = textOf(parseHtml(readFileSync(join(dir, id, 'expected.html'), 'utf8')));
    return {
      id,
      ours: shingleMatch(expected, markdownToText(ourMarkdown(page))),
      peer: skipPeer ? undefined : shingleMatch(expected, markdownToText(peerMarkdown(page))),
    };
  });
  for (const r of rows) perPage[`readability/${r.id}`] = scores([r.ours]).f1;
  console.log(
    `\nReadability's regression corpus (its expected output is Readability's own: the peer's row is its agreement with itself)`,
  );
  for (const h of halves) {
    const r = pick(rows, h);
    const o = scores(r.map((x) => x.ours));
    const p = skipPeer ? undefined : scores(r.map((x) => x.peer as TpFpFn));
    console.log(
      `  ${h.padEnd(7)} ${String(r.length).padStart(3)} pages  trawl ${fmt(o)}${p ? `   readability.js ${readabilityVersion} ${fmt(p)}` : ''}`,
    );
    summary.push(`readability/${h}: ${f3(o.f1)}`);
  }
  if (worst) {
    const list = rows
      .filter((r) => halfOf(r.id) === 'study')
      .map((r) => ({ id: r.id, s: scores([r.ours]) }))
      .sort((a, b) => a.s.f1 - b.s.f1);
    for (const w of list.slice(0, worst)) console.log(`    ${w.id}  ${fmt(w.s)}`);
  }

  if (!only && !onlyHalf) await metadataCheck(dir, ids);
}

if (save) writeFileSync(save, JSON.stringify(perPage, null, 1));
console.log(`\ntrawl: ${(oursMs / Math.max(1, oursPages)).toFixed(1)} ms/page over ${oursPages} conversions`);
console.log(`summary: ${summary.join('; ')}`);

/**
 * Article metadata through the extractor (schema fields named as users name them) against
 * the Readability corpus's expected-metadata.json: agreement where both answer, and who answers.
 */
async function metadataCheck(dir: string, ids: string[]): Promise<void> {
  const { extractFromDocument } = await import('../src/engine/extract/index.js');
  const { compileSchema } = await import('../src/engine/extract/schema.js');
  const schema = compileSchema({
    title: 'string',
    author: 'string',
    published_at: 'string',
    site_name: 'string',
    description: 'string',
  });
  const expectedKey: Record<string, string> = {
    title: 'title',
    author: 'byline',
    published_at: 'publishedTime',
    site_name: 'siteName',
    description: 'excerpt',
  };
  const same = (field: string, a: string, b: string) => {
    const n = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
    // Dates: the same instant (Readability keeps the page's spelling; we answer ISO 8601).
    if (field === 'published_at') return Date.parse(a) === Date.parse(b) || n(a).slice(0, 10) === n(b).slice(0, 10);
    // Readability keeps a byline's "By "; we answer the name.
    const byline = /^(?:posted by|written by|by|par|von)\s+/;
    if (field === 'author') return n(a).replace(byline, '') === n(b).replace(byline, '');
    return n(a) === n(b);
  };
  const tally: Record<string, { agree: number; both: number; onlyTruth: number; onlyOurs: number }> = {};
  for (const id of ids) {
    const html = readFileSync(join(dir, id, 'source.html'), 'utf8');
    const meta = JSON.parse(readFileSync(join(dir, id, 'expected-metadata.json'), 'utf8')) as Record<
      string,
      string | null
    >;
    const { json } = extractFromDocument(parseHtml(html), { schema, url: `http://fakehost/test/${id}/`, html });
    for (const [field, key] of Object.entries(expectedKey)) {
      const t = (tally[field] ??= { agree: 0, both: 0, onlyTruth: 0, onlyOurs: 0 });
      const truth = meta[key];
      const ours = json[field] as string | null;
      if (truth && ours) {
        t.both++;
        if (same(field, truth, ours)) t.agree++;
      } else if (truth) t.onlyTruth++;
      else if (ours) t.onlyOurs++;
    }
  }
  const line = Object.entries(tally)
    .map(([f, t]) => `${f} ${t.agree}/${t.both} agree (${t.onlyTruth} only Readability, ${t.onlyOurs} only ours)`)
    .join('; ');
  console.log(
    `\narticle metadata through the extractor vs Readability's expected-metadata (${ids.length} pages): ${line}`,
  );
}
