/**
 * npm run bench:markdown-ab -- --base DIR — the document pipeline of this checkout against
 * another built checkout of Trawl (DIR, e.g. a `git worktree` of an earlier commit after
 * `npm run build` there), on the pages bench:markdown reads (or `--set modern`: wceb-2026).
 * Each side runs in processes of its own, alternated three times (two builds in one process
 * share the parser's code and slow each other unevenly); a process times each page six times
 * and keeps its fastest, so what is printed is the pipeline's cost, not the machine's mood.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allContentPages, modernPages } from './lib/fixtures.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const set = opt('--set') ?? 'content';
const child = opt('--child');

if (child) {
  const { processHtml } = (await import(
    resolve(child, 'dist/engine/document/index.js')
  )) as typeof import('../src/engine/document/index.js');
  const pages = set === 'modern' ? modernPages() : allContentPages();
  const time = (p: { html: string; url: string }) => {
    const t = performance.now();
    processHtml(p.html, { url: p.url });
    return performance.now() - t;
  };
  for (const p of pages) time(p);
  const best = pages.map(() => Infinity);
  for (let round = 0; round < 6; round++) pages.forEach((p, i) => (best[i] = Math.min(best[i], time(p))));
  console.log(JSON.stringify({ pages: pages.length, ms: best.reduce((a, b) => a + b, 0) }));
} else {
  const base = opt('--base');
  if (!base) throw new Error('--base DIR: a built checkout of Trawl to compare with');
  const head = fileURLToPath(new URL('..', import.meta.url));
  const run = (dir: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir, '--set', set],
        {
          encoding: 'utf8',
        },
      ),
    ) as { pages: number; ms: number };
  const times: Record<'base' | 'head', number[]> = { base: [], head: [] };
  let pages = 0;
  for (let i = 0; i < 3; i++)
    for (const side of ['base', 'head'] as const) {
      const r = run(side === 'base' ? resolve(base) : head);
      times[side].push(r.ms);
      pages = r.pages;
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  const [b, h] = [median(times.base), median(times.head)];
  console.log(`${pages} pages (${set}), sum of each page's fastest of 6 runs, median of 3 processes a side:`);
  console.log(`  base ${resolve(base)}: ${b.toFixed(0)} ms (${times.base.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`  this checkout:        ${h.toFixed(0)} ms (${times.head.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`  ratio this / base: ${(h / b).toFixed(3)} (${h <= b * 1.1 ? 'within' : 'beyond'} 10 %)`);
}
