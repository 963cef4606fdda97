/**
 * npm run eval:content — main-content quality on the scrapinghub article-extraction-benchmark
 * pages, Trawl's pipeline next to Mozilla Readability (jsdom) + Turndown, same pages, same run.
 * `--worst N` lists our N lowest-F1 pages; `--page ID` prints our text for one page.
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { processHtml } from '../src/engine/document/index.js';
import { aebPages } from './lib/fixtures.js';
import { markdownToText, scores, shingleMatch, type TpFpFn } from './lib/shingles.js';

const args = process.argv.slice(2);
const worst = args.includes('--worst') ? Number(args[args.indexOf('--worst') + 1]) : 0;
const only = args.includes('--page') ? args[args.indexOf('--page') + 1] : undefined;
const skipPeer = args.includes('--no-peer');

const pages = aebPages().filter((p) => !only || p.id.startsWith(only));
const ours: TpFpFn[] = [];
const peer: TpFpFn[] = [];
const perPage: { id: string; f1: number; p: number; r: number }[] = [];
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
const quiet = new VirtualConsole();

let oursMs = 0;
for (const page of pages) {
  const t0 = performance.now();
  const md = processHtml(page.html, { url: page.url }).markdown ?? '';
  oursMs += performance.now() - t0;
  const m = shingleMatch(page.articleBody ?? '', markdownToText(md));
  ours.push(m);
  const s = scores([m]);
  perPage.push({ id: page.id, f1: s.f1, p: s.precision, r: s.recall });
  if (only) console.log(markdownToText(md));
  if (!skipPeer) {
    let text = '';
    try {
      const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
      const article = new Readability(dom.window.document).parse();
      text = article?.content ? markdownToText(turndown.turndown(article.content)) : '';
      dom.window.close();
    } catch {
      text = '';
    }
    peer.push(shingleMatch(page.articleBody ?? '', text));
  }
}

const fmt = (s: { precision: number; recall: number; f1: number }) =>
  `precision=${s.precision.toFixed(3)} recall=${s.recall.toFixed(3)} F1=${s.f1.toFixed(3)}`;
console.log(`pages: ${pages.length} (scrapinghub article-extraction-benchmark, shared part)`);
console.log(`trawl                  ${fmt(scores(ours))}  (${(oursMs / pages.length).toFixed(1)} ms/page)`);
if (!skipPeer) console.log(`readability+turndown   ${fmt(scores(peer))}`);
if (!skipPeer) console.log(`F1 difference: ${(scores(ours).f1 - scores(peer).f1 >= 0 ? '+' : '')}${(scores(ours).f1 - scores(peer).f1).toFixed(3)}`);
// A second, independent check against over-fitting: the Readability regression corpus,
// whose expected.html is Readability's own output (so only ours is scored there).
if (!only) {
  const { readFileSync, readdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { FIXTURES } = await import('./lib/fixtures.js');
  const { parseHtml } = await import('../src/engine/document/dom.js');
  const { textOf } = await import('../src/engine/document/dom.js');
  const dir = join(FIXTURES, 'content/readability');
  const items: TpFpFn[] = [];
  for (const id of readdirSync(dir).sort()) {
    const html = readFileSync(join(dir, id, 'source.html'), 'utf8');
    const expected = textOf(parseHtml(readFileSync(join(dir, id, 'expected.html'), 'utf8')));
    const md = processHtml(html, { url: `http://fakehost/test/${id}/` }).markdown ?? '';
    items.push(shingleMatch(expected, markdownToText(md)));
  }
  console.log(`also: trawl vs Readability's expected output on its own corpus (${items.length} pages): ${fmt(scores(items))}`);

  // Article metadata through the extractor (schema fields named as users name them) against
  // the same corpus's expected-metadata.json: agreement where both answer, and who answers.
  const { extractFromDocument } = await import('../src/engine/extract/index.js');
  const { compileSchema } = await import('../src/engine/extract/schema.js');
  const schema = compileSchema({ title: 'string', author: 'string', published_at: 'string', site_name: 'string', description: 'string' });
  const expectedKey: Record<string, string> = { title: 'title', author: 'byline', published_at: 'publishedTime', site_name: 'siteName', description: 'excerpt' };
  const same = (field: string, a: string, b: string) => {
    const n = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
    // Dates: the same instant (Readability keeps the page's spelling; we answer ISO 8601).
    if (field === 'published_at') return Date.parse(a) === Date.parse(b) || n(a).slice(0, 10) === n(b).slice(0, 10);
    // Readability keeps a byline's "By "; we answer the name.
    if (field === 'author') return n(a).replace(/^(?:posted by|written by|by|par|von)\s+/, '') === n(b).replace(/^(?:posted by|written by|by|par|von)\s+/, '');
    return n(a) === n(b);
  };
  const tally: Record<string, { agree: number; both: number; onlyTruth: number; onlyOurs: number }> = {};
  for (const id of readdirSync(dir).sort()) {
    const html = readFileSync(join(dir, id, 'source.html'), 'utf8');
    const meta = JSON.parse(readFileSync(join(dir, id, 'expected-metadata.json'), 'utf8')) as Record<string, string | null>;
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
  console.log(`also: article metadata through the extractor vs Readability's expected-metadata (${readdirSync(dir).length} pages): ${line}`);
}
if (worst) {
  perPage.sort((a, b) => a.f1 - b.f1);
  for (const p of perPage.slice(0, worst)) console.log(`${p.id.slice(0, 12)}  F1=${p.f1.toFixed(3)} P=${p.p.toFixed(3)} R=${p.r.toFixed(3)}`);
}
