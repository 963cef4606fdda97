/**
 * npm run bench:markdown — throughput of main content + markdown over every page in
 * ../shared/fixtures/content: Trawl's pipeline vs Mozilla Readability (jsdom) + Turndown,
 * each measured in its own child process (so peak RSS is its own), same pages, same run.
 * A third row runs Trawl's pipeline as the service does: in one warmed-up document worker
 * (src/engine/document/pool.ts), 16 pages in flight as from concurrent requests, results
 * copied back to the main thread.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { allContentPages } from './lib/fixtures.js';

/** A compiled module (npm run bench:markdown builds first), typed by its source. */
const compiled = <T>(path: string): Promise<T> => import(new URL(`../dist/${path}`, import.meta.url).href);

type Result = { name: string; pages: number; bytes: number; ms: number; maxRssMb: number; outChars: number };

async function runPipeline(name: string): Promise<Result> {
  const pages = allContentPages();
  let convert: (html: string, url: string) => string;
  if (name === 'trawl') {
    // The compiled pipeline, as the service runs it (npm run bench:markdown builds first).
    const { processHtml } =
      await compiled<typeof import('../src/engine/document/index.js')>('engine/document/index.js');
    convert = (html, url) => processHtml(html, { url }).markdown ?? '';
  } else {
    const { JSDOM, VirtualConsole } = await import('jsdom');
    const { Readability } = await import('@mozilla/readability');
    const { default: TurndownService } = await import('turndown');
    const { gfm } = await import('@joplin/turndown-plugin-gfm');
    const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
    td.use(gfm);
    const vc = new VirtualConsole();
    convert = (html, url) => {
      const dom = new JSDOM(html, { url, virtualConsole: vc });
      try {
        const a = new Readability(dom.window.document).parse();
        return a?.content ? td.turndown(a.content) : '';
      } finally {
        dom.window.close();
      }
    };
  }
  const bytes = pages.reduce((n, p) => n + Buffer.byteLength(p.html), 0);
  if (name === 'trawl-worker') return runPooled(pages, bytes);
  // One warm-up pass over a few pages, then the timed pass over all of them.
  for (const p of pages.slice(0, 5)) convert(p.html, p.url);
  let outChars = 0;
  const t0 = performance.now();
  for (const p of pages) {
    try {
      outChars += convert(p.html, p.url).length;
    } catch {
      // A converter crash counts as an empty page, not a benchmark failure.
    }
  }
  const ms = performance.now() - t0;
  return { name, pages: pages.length, bytes, ms, maxRssMb: process.resourceUsage().maxRSS / 1024, outChars };
}

async function runPooled(pages: ReturnType<typeof allContentPages>, bytes: number): Promise<Result> {
  const { DocumentPool } = await compiled<typeof import('../src/engine/document/pool.js')>('engine/document/pool.js');
  const pool = new DocumentPool({ size: 1 });
  // As a service started before its requests: the worker has loaded and warmed up.
  await pool.process('<p>ready</p>', { url: 'https://example.com/' });
  await pool.ready();
  let outChars = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < pages.length) {
        const p = pages[next++];
        outChars += ((await pool.process(p.html, { url: p.url }).catch(() => undefined))?.markdown ?? '').length;
      }
    }),
  );
  const ms = performance.now() - t0;
  await pool.close();
  return {
    name: 'trawl (document worker)',
    pages: pages.length,
    bytes,
    ms,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    outChars,
  };
}

function child(name: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = fork(fileURLToPath(import.meta.url), ['--child', name], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    p.on('message', (m) => resolve(m as Result));
    p.on('exit', (code) => code && reject(new Error(`${name} exited with ${code}`)));
  });
}

if (process.argv[2] === '--child') {
  runPipeline(process.argv[3]).then((r) => {
    process.send!(r);
    process.exit(0);
  });
} else {
  const line = (r: Result) =>
    `${r.name.padEnd(24)} ${(r.pages / (r.ms / 1000)).toFixed(1).padStart(7)} pages/s  ${(r.bytes / 1e6 / (r.ms / 1000)).toFixed(2).padStart(6)} MB/s  ${(r.ms / r.pages).toFixed(1).padStart(6)} ms/page  peak RSS ${r.maxRssMb.toFixed(0)} MB`;
  const ours = await child('trawl');
  const pooled = await child('trawl-worker');
  const peer = await child('readability+turndown');
  console.log(`pages: ${ours.pages} (${(ours.bytes / 1e6).toFixed(1)} MB) from shared/fixtures/content`);
  console.log(line(ours));
  console.log(line(pooled));
  console.log(line(peer));
  console.log(
    `speed ratio (trawl / readability+turndown): ${(peer.ms / ours.ms).toFixed(2)}x; in a document worker: ${(peer.ms / pooled.ms).toFixed(2)}x`,
  );
}
