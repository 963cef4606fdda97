/**
 * npm run eval:search — how well /v1/search's re-ranking and highlights answer a query, on
 * real article pages (the shared AEB fixtures) served by a local server.
 *
 * Each query is four content words of one sentence of one article (its "answer"); a
 * stand-in provider returns that article among the 4 other articles that match the query
 * best (hard distractors). Two provider behaviours:
 *   noisy — the answer at a random position (the provider's order carries no signal),
 *   good  — the answer first (re-ranking must not spoil a good order).
 * Printed: MRR of the answer page for Trawl's fused ranking, for the provider's order, and
 * for a naive re-ranker (BM25 over each whole page) in the same run; how often Trawl's first
 * highlight of the answer page contains the answer sentence; and whether every highlight is
 * quotable (appears verbatim in the returned markdown).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { aebPages } from './lib/fixtures.js';
import { search } from '../src/engine/search/search.js';
import { Bm25, tokens } from '../src/engine/search/bm25.js';
import { plainText } from '../src/engine/search/passages.js';
import { HttpClient } from '../src/engine/fetch/http.js';
import { processHtml } from '../src/engine/document/index.js';
import type { ProviderResult, SearchProvider } from '../src/engine/search/provider.js';

const QUERIES = Number(process.env.EVAL_QUERIES ?? 100);
const PER_QUERY = 5;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}
const random = rng(42);
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];

const STOP = new Set(
  'the and for that with this from have has had was were are but not you your they their them his her its our out who what when where which will would there been into than then also more most some such only over other about after before said says can could just like'.split(
    ' ',
  ),
);

const pages = aebPages().filter((p) => (p.articleBody ?? '').length > 1500);
const site = createServer((req, res) => {
  const i = Number(/^\/a\/(\d+)/.exec(req.url ?? '')?.[1]);
  const p = pages[i];
  if (!p) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(p.html);
});
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
const titles = pages.map((p) => processHtml(p.html, { url: p.url, markdown: false }).metadata.title ?? 'Untitled');

interface Query {
  text: string;
  sentence: string;
  answer: number;
  others: number[];
}
const corpusTexts = pages.map((p) => p.articleBody ?? '');
const corpus = Object.assign(new Bm25(corpusTexts), { map: <T>(f: (t: string, i: number) => T) => corpusTexts.map(f) });
const queries: Query[] = [];
while (queries.length < QUERIES) {
  const answer = Math.floor(random() * pages.length);
  const sentences = (pages[answer].articleBody ?? '')
    .split(/(?<=[.!?])\s+/)
    .filter((s) => s.length >= 80 && s.length <= 300);
  if (!sentences.length) continue;
  const sentence = pick(sentences.slice(1, -1).length ? sentences.slice(1, -1) : sentences);
  const words = [...new Set(tokens(sentence).filter((w) => w.length >= 4 && !STOP.has(w) && !/^\d+$/.test(w)))];
  if (words.length < 4) continue;
  // A person's query: a handful of the sentence's words, in their order.
  const text = words
    .filter((_, i) => i % Math.ceil(words.length / 4) === 0)
    .slice(0, 4)
    .join(' ');
  // Hard distractors: the other pages that match the query best, as a search engine's would.
  const others = corpus
    .map((_, i) => ({ i, s: i === answer ? -1 : corpus.score(text, i) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, PER_QUERY - 1)
    .map((x) => x.i);
  queries.push({ text, sentence, answer, others });
}

const http = new HttpClient({ allowPrivateNetwork: true });
const rr = (rank: number) => (rank > 0 ? 1 / rank : 0);
const norm = (s: string) =>
  s
    .replace(/[*_`\\[\]()#>]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

for (const mode of ['noisy', 'good'] as const) {
  let ours = 0;
  let provider = 0;
  let naive = 0;
  let highlightHits = 0;
  let quotable = 0;
  let highlightCount = 0;
  let ms = 0;
  for (const q of queries) {
    const order = [...q.others];
    const at = mode === 'good' ? 0 : Math.floor(random() * PER_QUERY);
    order.splice(at, 0, q.answer);
    const results: ProviderResult[] = order.map((i) => ({ title: titles[i], url: `${base}/a/${i}`, snippet: '' }));
    const stub: SearchProvider = { name: 'stub', search: async () => results };
    const t0 = performance.now();
    const r = await search({ http }, stub, { query: q.text, limit: PER_QUERY });
    ms += performance.now() - t0;
    const answerUrl = `${base}/a/${q.answer}`;
    const pos = r.results.findIndex((x) => x.url === answerUrl) + 1;
    ours += rr(pos);
    provider += rr(at + 1);
    // Naive peer: BM25 over each page's whole text, no passages, no provider rank.
    const whole = new Bm25(r.results.map((x) => plainText(x.markdown ?? '')));
    const naiveOrder = r.results.map((x, i) => ({ url: x.url, s: whole.score(q.text, i) })).sort((a, b) => b.s - a.s);
    naive += rr(naiveOrder.findIndex((x) => x.url === answerUrl) + 1);
    const hit = r.results.find((x) => x.url === answerUrl);
    const first = hit?.highlights[0]?.text ?? '';
    const sentenceWords = tokens(q.sentence);
    const covered = sentenceWords.filter((w) => tokens(first).includes(w)).length / Math.max(1, sentenceWords.length);
    if (covered >= 0.8) highlightHits++;
    for (const x of r.results) {
      const md = norm(plainText(x.markdown ?? ''));
      for (const h of x.highlights) {
        highlightCount++;
        if (md.includes(norm(h.text))) quotable++;
      }
    }
  }
  const n = queries.length;
  console.log(
    `${mode.padEnd(5)} provider order: MRR trawl ${(ours / n).toFixed(3)} | provider order ${(provider / n).toFixed(3)} | whole-page BM25 ${(naive / n).toFixed(3)}   ` +
      `answer sentence in first highlight ${((100 * highlightHits) / n).toFixed(0)}%   highlights quotable ${((100 * quotable) / Math.max(1, highlightCount)).toFixed(1)}%   ${(ms / n).toFixed(0)} ms/query`,
  );
}
console.log(
  `${queries.length} queries over ${pages.length} shared AEB article pages, ${PER_QUERY} results each, pages fetched from a local server`,
);
await http.close();
site.close();
