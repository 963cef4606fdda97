/**
 * npm run eval:ordinary — main content of ordinary pages, generated (bench/lib/ordinary-pages.ts:
 * home, about, pricing, docs, FAQ, blog post, changelog, contact, recipe, event, landing and
 * short pages; semantic, div-soup and page-builder markup; each with one harmless element
 * added), Trawl next to Defuddle and Readability.js + Turndown on the same pages in the same
 * run. Per markup style and overall: blocks kept (the share of the truth's headings,
 * paragraphs, list items, table rows and captions found in the answer), precision (truth
 * characters over truth plus chrome characters found), pages that lose a block, pages with
 * chrome, and "almost no text" warnings (Trawl's `scant`; a peer's empty answer).
 *
 * The pages come from seeds the metamorphic tests never use (those use 1–36).
 * Options: `--pages N` (default 300), `--no-peer`, `--worst N` (print N of Trawl's losing pages).
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { Readability } from '@mozilla/readability';
import { Defuddle } from 'defuddle/node';
import TurndownService from 'turndown';
import { processHtml } from '../src/engine/document/index.js';
import {
  judge,
  KINDS,
  ordinaryPage,
  PERTURBATIONS,
  STYLES,
  type Judged,
  type OrdinaryPage,
  type Style,
} from './lib/ordinary-pages.js';
import { markdownToPlain } from './lib/shingles.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const count = Number(opt('--pages') ?? 300);
const worst = Number(opt('--worst') ?? 0);
const skipPeer = args.includes('--no-peer');
/** Seeds of this report: far from the tests' 1–36. */
const FIRST_SEED = 10_001;

type Tool = 'trawl' | 'defuddle' | 'readability';
const TOOLS: Tool[] = skipPeer ? ['trawl'] : ['trawl', 'defuddle', 'readability'];
const quiet = new VirtualConsole();
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });

/** Every style, kind and added element in turn (13 elements against 36 style × kind pairs: all pairs meet). */
function pages(): OrdinaryPage[] {
  return Array.from({ length: count }, (_, i) =>
    ordinaryPage(
      KINDS[Math.floor(i / STYLES.length) % KINDS.length],
      STYLES[i % STYLES.length],
      PERTURBATIONS[(i * 5) % PERTURBATIONS.length],
      FIRST_SEED + i,
    ),
  );
}

interface Answer {
  plain: string;
  /** The tool's "almost no text" signal: Trawl's scant flag, a peer's empty answer. */
  warned: boolean;
}

function trawl(page: OrdinaryPage): Answer {
  const r = processHtml(page.html, { url: page.url, onlyMainContent: true, markdown: true, html: false, links: false });
  return { plain: markdownToPlain(r.markdown ?? ''), warned: !!r.scant };
}

/** Peers put the page's title beside the content, not in it: it is given back as the answer's first line. */
function readability(page: OrdinaryPage): Answer {
  const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
  try {
    const a = new Readability(dom.window.document).parse();
    const md = a?.content ? turndown.turndown(a.content) : '';
    return { plain: markdownToPlain(`${a?.title ?? ''}\n\n${md}`), warned: !md.trim() };
  } finally {
    dom.window.close();
  }
}

async function defuddle(page: OrdinaryPage): Promise<Answer> {
  const { error, log, warn } = console;
  console.error = console.log = console.warn = () => undefined;
  const dom = new JSDOM(page.html, { url: page.url, virtualConsole: quiet });
  try {
    const r = await Defuddle(dom.window.document, page.url, { markdown: true, useAsync: false });
    const md = r.content ?? '';
    return { plain: markdownToPlain(`${r.title ?? ''}\n\n${md}`), warned: !md.trim() };
  } finally {
    dom.window.close();
    Object.assign(console, { error, log, warn });
  }
}

interface Tally {
  pages: number;
  kept: number;
  total: number;
  keptChars: number;
  leakedChars: number;
  losing: number;
  leaking: number;
  warned: number;
}
const empty = (): Tally => ({
  pages: 0,
  kept: 0,
  total: 0,
  keptChars: 0,
  leakedChars: 0,
  losing: 0,
  leaking: 0,
  warned: 0,
});
const add = (t: Tally, j: Judged, warned: boolean) => {
  t.pages++;
  t.kept += j.kept;
  t.total += j.total;
  t.keptChars += j.keptChars;
  t.leakedChars += j.leakedChars;
  if (j.missing.length) t.losing++;
  if (j.leaked.length) t.leaking++;
  if (warned) t.warned++;
};

const tallies = new Map<string, Tally>();
const tally = (tool: Tool, group: string) => {
  const key = `${tool}|${group}`;
  if (!tallies.has(key)) tallies.set(key, empty());
  return tallies.get(key)!;
};
const losers: { page: OrdinaryPage; j: Judged; warned: boolean }[] = [];
let trawlMs = 0;

for (const page of pages()) {
  for (const tool of TOOLS) {
    const t0 = performance.now();
    const a = tool === 'trawl' ? trawl(page) : tool === 'readability' ? readability(page) : await defuddle(page);
    if (tool === 'trawl') trawlMs += performance.now() - t0;
    const j = judge(page, a.plain);
    for (const group of [page.style, 'all']) add(tally(tool, group), j, a.warned);
    if (tool === 'trawl' && (j.missing.length || j.leaked.length || a.warned))
      losers.push({ page, j, warned: a.warned });
  }
}

const f3 = (x: number) => x.toFixed(3);
console.log(
  `\nordinary pages (${count} generated, seeds ${FIRST_SEED}–${FIRST_SEED + count - 1}): blocks kept / precision`,
);
console.log(
  `${'markup'.padEnd(14)}${TOOLS.map((t) => t.padEnd(34)).join('')}\n${' '.repeat(14)}${TOOLS.map(() => 'kept  prec   losing leaking warned   ').join('')}`,
);
for (const group of [...STYLES, 'all'] as (Style | 'all')[]) {
  const cells = TOOLS.map((tool) => {
    const t = tally(tool, group);
    const prec = t.keptChars / Math.max(1, t.keptChars + t.leakedChars);
    return `${f3(t.kept / Math.max(1, t.total))} ${f3(prec)}  ${String(t.losing).padStart(4)} ${String(t.leaking).padStart(6)} ${String(t.warned).padStart(6)}     `;
  });
  console.log(`${group.padEnd(14)}${cells.join('')}`);
}
console.log(`\ntrawl: ${(trawlMs / count).toFixed(2)} ms/page`);
for (const { page, j, warned } of losers.slice(0, worst))
  console.log(
    `  ${page.id}: lost ${JSON.stringify(j.missing)}${j.leaked.length ? ` chrome ${JSON.stringify(j.leaked)}` : ''}${warned ? ' WARNED' : ''}`,
  );
const all = tally('trawl', 'all');
console.log(
  `summary: trawl kept ${f3(all.kept / all.total)}, ${all.losing} pages losing a block, ${all.leaking} with chrome, ${all.warned} warned`,
);
