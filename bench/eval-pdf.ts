/**
 * npm run eval:pdf — PDF → markdown quality and speed, Trawl next to two open-source
 * converters and plain pdf.js text, all in the same run, scored with the metrics of
 * opendataloader-bench (bench/lib/pdf-metrics.ts): reading order NID (NID-S without tables),
 * table TEDS (TEDS-S), heading MHS (MHS-S), their mean ("Overall"; "Ovr/doc" is the
 * benchmark's own mean of per-document means) and seconds per page.
 *
 * Sets:
 *  - printed: ../shared/fixtures/pdf (100 documents with truth markdown, see its README),
 *    split by sha256(id): the first half is studied, the second only measured;
 *  - real-like: test/fixtures/pdf (made by test/fixtures/pdf/make.ts: two columns, running
 *    headers and footers, unruled tables, hyphenation, lists …);
 *  - `--corpus NAME=DIR` adds any directory of ID.pdf + ID.md (real PDFs held back), split
 *    into NAME-study and NAME-measure by bench/lib/halves.ts.
 * Engines: trawl (src/engine/document/pdf.ts, in this process), pdfjs-text (the text of
 * pdf.js as Trawl gave it before: one paragraph per text block, pages split by ---),
 * pdf2md (@opendocsg/pdf2md under Node 22 from `npx -y node@22`), opendataloader
 * (@opendataloader/pdf, its Java CLI, one JVM for the whole set). Peers' outputs (and
 * times) are cached in node_modules/.cache/trawl-eval by file hash and version; `--fresh`
 * converts everything again.
 * Speed through the API: the compiled service in its own process scrapes every PDF from a
 * local server, one request at a time (`--no-api` skips it).
 * Options: `--set NAME`, `--engine NAME`, `--doc ID` (print each engine's markdown for one
 * document), `--worst N` (Trawl's N worst documents per set), `--slowest N` (Trawl's N slowest
 * documents per set, by wall time a page), `--no-peers`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pdfToMarkdown } from '../src/engine/document/pdf.js';
import { halfOf } from './lib/halves.js';
import { scoreDocument, type DocScores } from './lib/pdf-metrics.js';
import { ROOT, trawlCli, waitHealthy } from './lib/service.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const onlySet = opt('--set');
const onlyEngine = opt('--engine');
const onlyDoc = opt('--doc');
const worst = Number(opt('--worst') ?? 0);
const slowest = Number(opt('--slowest') ?? 0);
const noPeers = args.includes('--no-peers');
const fresh = args.includes('--fresh');
const noApi = args.includes('--no-api') || !!onlyDoc;

interface Doc {
  id: string;
  /** The set and, for the printed set, its half. */
  set: string;
  pdf: string;
  truth: string;
  pages: number;
}

const PRINTED = process.env.TRAWL_PDF_FIXTURES ?? resolve(ROOT, '../shared/fixtures/pdf');
const REAL_LIKE = join(ROOT, 'test/fixtures/pdf');

function corpus(dir: string, set: string | ((id: string, ids: string[]) => string)): Doc[] {
  if (!existsSync(dir)) {
    console.warn(`(no ${dir}: skipped)`);
    return [];
  }
  const ids = readdirSync(dir)
    .filter((f) => f.endsWith('.pdf') && existsSync(join(dir, f.replace(/\.pdf$/, '.md'))))
    .map((f) => f.replace(/\.pdf$/, ''));
  return ids.map((id) => ({
    id,
    set: typeof set === 'string' ? set : set(id, ids),
    pdf: join(dir, `${id}.pdf`),
    truth: readFileSync(join(dir, `${id}.md`), 'utf8'),
    pages: 0,
  }));
}

/** Study half: the first half of the ids sorted by sha256(id); the rest is only measured. */
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
function printedHalf(id: string, ids: string[]): string {
  const order = [...ids].sort((a, b) => (sha(a) < sha(b) ? -1 : 1));
  return order.indexOf(id) < Math.ceil(order.length / 2) ? 'printed-study' : 'printed-measure';
}

const docs: Doc[] = [...corpus(PRINTED, printedHalf), ...corpus(REAL_LIKE, 'real-like')];
// A corpus of one's own is split into halves as every fixture set is (bench/lib/halves.ts):
// rules are written looking at NAME-study, and kept when NAME-measure does not lose.
for (const c of args.flatMap((a, i) => (a === '--corpus' ? [args[i + 1]] : []))) {
  const [name, dir] = c.split('=');
  docs.push(...corpus(resolve(dir), (id) => `${name}-${halfOf(id)}`));
}
const selected = docs.filter((d) => (!onlySet || d.set.startsWith(onlySet)) && (!onlyDoc || d.id === onlyDoc));
if (!selected.length) throw new Error('no documents selected');

interface Output {
  markdown: string;
  seconds: number;
}
type Engine = 'trawl' | 'pdfjs-text' | 'pdf2md' | 'opendataloader';
const ENGINES: Engine[] = ['trawl', 'pdfjs-text', 'pdf2md', 'opendataloader'];
const engines = ENGINES.filter(
  (e) => (!onlyEngine || e === onlyEngine) && (!noPeers || e === 'trawl' || e === 'pdfjs-text'),
);

// ---------- engines ----------

async function runTrawl(list: Doc[]): Promise<Map<string, Output>> {
  const out = new Map<string, Output>();
  // pdf.js loads and compiles on the first documents: not part of any document's time (the
  // API's measure below warms up on three documents too).
  for (const d of list.slice(0, 3)) await pdfToMarkdown(new Uint8Array(readFileSync(d.pdf)));
  const cpu0 = process.cpuUsage();
  for (const d of list) {
    const bytes = new Uint8Array(readFileSync(d.pdf));
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = await pdfToMarkdown(bytes, { maxPages: 10_000 });
    const c = process.cpuUsage(c0);
    out.set(d.pdf, { markdown: r.markdown, seconds: (performance.now() - t0) / 1000 });
    trawlCpuOf.set(d.pdf, (c.user + c.system) / 1e6);
    d.pages = r.pages;
  }
  const cpu = process.cpuUsage(cpu0);
  trawlCpu = (cpu.user + cpu.system) / 1e6 / list.reduce((n, d) => n + d.pages, 0);
  return out;
}

/** Trawl's CPU seconds per page over the whole selection (wall times on a shared machine vary with its load). */
let trawlCpu = 0;
/** Trawl's CPU seconds for each document (pdf.js runs on this thread: all of its work). */
const trawlCpuOf = new Map<string, number>();

/** What Trawl returned for a PDF before this eval existed: pdf.js text, a paragraph per block. */
async function runPdfjsText(list: Doc[]): Promise<Map<string, Output>> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const out = new Map<string, Output>();
  for (const d of list) {
    const t0 = performance.now();
    const doc = await getDocumentProxy(new Uint8Array(readFileSync(d.pdf)));
    const { text } = await extractText(doc, { mergePages: false });
    await doc.destroy();
    const pages = (text as string[]).map((p) =>
      p
        .split(/\n\s*\n/)
        .map((para) => para.replace(/\s*\n\s*/g, ' ').trim())
        .filter(Boolean)
        .join('\n\n'),
    );
    out.set(d.pdf, { markdown: pages.filter(Boolean).join('\n\n---\n\n'), seconds: (performance.now() - t0) / 1000 });
  }
  return out;
}

const CACHE = join(ROOT, 'node_modules/.cache/trawl-eval');
const versionOf = (pkg: string) =>
  JSON.parse(readFileSync(join(ROOT, 'peers/node_modules', pkg, 'package.json'), 'utf8')).version as string;
const fileHash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 32);

/** A peer's outputs, from the cache where it has them, the rest converted by `convert` at once. */
async function cached(
  engine: string,
  version: string,
  list: Doc[],
  convert: (todo: Doc[]) => Promise<Map<string, Output>>,
): Promise<Map<string, Output>> {
  const dir = join(CACHE, `pdf-${engine}-${version}`);
  mkdirSync(dir, { recursive: true });
  const out = new Map<string, Output>();
  const todo: Doc[] = [];
  for (const d of list) {
    const f = join(dir, `${fileHash(d.pdf)}.json`);
    if (!fresh && existsSync(f)) out.set(d.pdf, JSON.parse(readFileSync(f, 'utf8')));
    else todo.push(d);
  }
  if (todo.length) {
    for (const [pdf, o] of await convert(todo)) {
      out.set(pdf, o);
      writeFileSync(join(dir, `${fileHash(pdf)}.json`), JSON.stringify(o));
    }
  }
  return out;
}

async function runPdf2md(list: Doc[]): Promise<Map<string, Output>> {
  return cached('pdf2md', versionOf('@opendocsg/pdf2md'), list, async (todo) => {
    const r = spawnSync('npx', ['-y', 'node@22', join(ROOT, 'bench/lib/pdf2md-runner.mjs')], {
      input: JSON.stringify(todo.map((d) => d.pdf)),
      cwd: ROOT,
      maxBuffer: 1 << 28,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`pdf2md runner failed: ${r.stderr}`);
    const res = JSON.parse(r.stdout) as Record<string, Output & { error?: string }>;
    return new Map(Object.entries(res).map(([k, v]) => [k, { markdown: v.markdown, seconds: v.seconds }]));
  });
}

/**
 * opendataloader-pdf's Java CLI, as the benchmark calls it (markdown, defaults), on all
 * documents in one JVM: its time per page is the run's wall time over the pages, JVM
 * start included once.
 */
async function runOpendataloader(list: Doc[]): Promise<Map<string, Output>> {
  return cached('opendataloader', versionOf('@opendataloader/pdf'), list, async (todo) => {
    const { convert } = await import('@opendataloader/pdf');
    const outDir = mkdtempSync(join(tmpdir(), 'trawl-odl-'));
    // Distinct names: the CLI writes BASENAME.md for each input.
    const inDir = mkdtempSync(join(tmpdir(), 'trawl-odl-in-'));
    const names = new Map<string, Doc>();
    todo.forEach((d, i) => {
      const name = `${i}-${basename(d.pdf)}`;
      writeFileSync(join(inDir, name), readFileSync(d.pdf));
      names.set(name, d);
    });
    const t0 = performance.now();
    await convert(
      [...names.keys()].map((n) => join(inDir, n)),
      { outputDir: outDir, format: 'markdown', quiet: true },
    );
    const seconds = (performance.now() - t0) / 1000;
    const pages = todo.reduce((s, d) => s + (d.pages || 1), 0);
    const out = new Map<string, Output>();
    for (const [name, d] of names) {
      const md = join(outDir, name.replace(/\.pdf$/, '.md'));
      out.set(d.pdf, {
        markdown: existsSync(md) ? readFileSync(md, 'utf8') : '',
        seconds: (seconds * (d.pages || 1)) / pages,
      });
    }
    rmSync(outDir, { recursive: true, force: true });
    rmSync(inDir, { recursive: true, force: true });
    return out;
  });
}

const outputs = new Map<Engine, Map<string, Output>>();
// Trawl first: it counts the pages the others' times are divided by.
outputs.set('trawl', await runTrawl(selected));
for (const e of engines) {
  if (e === 'trawl') continue;
  process.stderr.write(`${e}…\n`);
  outputs.set(
    e,
    e === 'pdfjs-text'
      ? await runPdfjsText(selected)
      : e === 'pdf2md'
        ? await runPdf2md(selected)
        : await runOpendataloader(selected),
  );
}
if (!engines.includes('trawl')) outputs.delete('trawl');

if (onlyDoc) {
  for (const [e, o] of outputs) console.log(`===== ${e}\n${o.get(selected[0].pdf)?.markdown}\n`);
  const d = selected[0];
  for (const [e, o] of outputs)
    console.log(e.padEnd(16), JSON.stringify(scoreDocument(d.truth, o.get(d.pdf)?.markdown ?? '')));
}

// ---------- scores ----------

const scores = new Map<Engine, Map<string, DocScores>>();
for (const [e, o] of outputs)
  scores.set(e, new Map(selected.map((d) => [d.pdf, scoreDocument(d.truth, o.get(d.pdf)?.markdown ?? '')])));

const mean = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
const f2 = (x: number | null) => (x === null ? '  –  ' : x.toFixed(3));

function table(set: string, list: Doc[]): void {
  const pages = list.reduce((s, d) => s + d.pages, 0);
  const has = (k: keyof DocScores) => list.filter((d) => scores.get('trawl')?.get(d.pdf)?.[k] !== null).length;
  console.log(
    `\n${set}: ${list.length} documents, ${pages} pages (${has('teds')} with tables, ${has('mhs')} with headings)`,
  );
  console.log(`${'engine'.padEnd(16)} Overall Ovr/doc   NID   NID-S   TEDS  TEDS-S   MHS   MHS-S  s/page`);
  for (const [e, s] of scores) {
    const rows = list.map((d) => s.get(d.pdf)!);
    const m = (k: keyof DocScores) => mean(rows.map((r) => r[k]));
    const overall = mean([m('nid'), m('teds'), m('mhs')]);
    const secs = list.reduce((t, d) => t + (outputs.get(e)!.get(d.pdf)?.seconds ?? 0), 0) / Math.max(1, pages);
    console.log(
      `${e.padEnd(16)} ${f2(overall)}   ${f2(m('overall'))}  ${f2(m('nid'))}  ${f2(m('nidS'))}  ${f2(m('teds'))}  ${f2(m('tedsS'))}  ${f2(m('mhs'))}  ${f2(m('mhsS'))}  ${secs.toFixed(4)}`,
    );
  }
  if (outputs.has('trawl'))
    console.log(
      `${'trawl CPU'.padEnd(16)} ${(list.reduce((t, d) => t + (trawlCpuOf.get(d.pdf) ?? 0), 0) / Math.max(1, pages)).toFixed(4)} s/page (wall times above vary with the machine's load)`,
    );
  if (slowest && outputs.has('trawl')) {
    const o = outputs.get('trawl')!;
    const perPage = (d: Doc) => (o.get(d.pdf)?.seconds ?? 0) / Math.max(1, d.pages);
    for (const d of [...list].sort((a, b) => perPage(b) - perPage(a)).slice(0, slowest))
      console.log(`  slowest ${d.id}: ${perPage(d).toFixed(4)} s/page over ${d.pages} pages`);
  }
  if (worst && scores.has('trawl')) {
    const s = scores.get('trawl')!;
    const ranked = [...list]
      .sort((a, b) => (s.get(a.pdf)!.overall ?? 1) - (s.get(b.pdf)!.overall ?? 1))
      .slice(0, worst);
    for (const d of ranked) {
      const r = s.get(d.pdf)!;
      console.log(`  worst ${d.id}: overall ${f2(r.overall)} nid ${f2(r.nid)} teds ${f2(r.teds)} mhs ${f2(r.mhs)}`);
    }
  }
}

const sets = [...new Set(selected.map((d) => d.set))];
for (const set of sets)
  table(
    set,
    selected.filter((d) => d.set === set),
  );
// Both halves of a split set together.
const halved = new Set(sets.map((s) => s.replace(/-(study|measure)$/, '')).filter((s) => !sets.includes(s)));
for (const base of halved)
  if (sets.filter((s) => s.startsWith(`${base}-`)).length > 1)
    table(
      `${base} (both halves)`,
      selected.filter((d) => d.set.startsWith(`${base}-`)),
    );

// ---------- speed through the API ----------

console.log(
  `\ntrawl in this process: ${trawlCpu.toFixed(4)} s/page of CPU over all ${selected.reduce((n, d) => n + d.pages, 0)} pages (s/page above: wall time)`,
);
if (!noApi) console.log(await apiSpeed(selected));

/**
 * CPU seconds a process has used (user + system, all threads), from /proc: on a shared
 * machine the wall time of a request says as much about the neighbours as about the
 * service.
 */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Seconds per page of POST /v1/scrape on each PDF, one request at a time, against the
 * compiled service in its own process (fetch, document worker, markdown, HTTP).
 */
async function apiSpeed(list: Doc[]): Promise<string> {
  if (!existsSync(join(ROOT, 'dist/cli/index.js'))) return '(no dist/: run `npm run build` for the API speed)';
  const byPath = new Map(list.map((d, i) => [`/${i}.pdf`, d]));
  const site = createServer((req, res) => {
    const d = byPath.get(req.url ?? '');
    if (!d) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(readFileSync(d.pdf));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const sitePort = (site.address() as AddressInfo).port;
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-eval-pdf-'));
  const port = String(3900 + Math.floor(Math.random() * 90));
  const env = {
    ...process.env,
    TRAWL_DATA_DIR: dataDir,
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    PORT: port,
    HOST: '127.0.0.1',
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
    TRAWL_MAX_CONNECTIONS_PER_IP: '0',
  };
  await trawlCli(['account', 'create', '--email', 'pdf@local', '--credits', '1000000'], env);
  await trawlCli(['account', 'limits', '--email', 'pdf@local', '--rate-limit-ceiling', '1000000'], env);
  const { key } = JSON.parse(
    await trawlCli(['keys', 'create', '--email', 'pdf@local', '--rate-limit', '1000000'], env),
  );
  const server: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin/trawl.js'), 'serve'], { env, stdio: 'ignore' });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base);
    const scrape = async (path: string) => {
      const r = await fetch(`${base}/v1/scrape`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ url: `http://127.0.0.1:${sitePort}${path}`, render: 'http' }),
      });
      if (!r.ok) throw new Error(`scrape ${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as { metadata: { pages?: number } };
    };
    // Warm-up: the worker loads pdf.js on its first PDF.
    for (const p of [...byPath.keys()].slice(0, 3)) await scrape(p);
    let pages = 0;
    const cpu0 = cpuSeconds(server.pid!);
    const t0 = performance.now();
    for (const [p, d] of byPath) pages += (await scrape(p)).metadata.pages ?? d.pages;
    const s = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.pid!) - cpu0;
    return `API (POST /v1/scrape, one at a time, ${byPath.size} PDFs, ${pages} pages): ${(s / pages).toFixed(4)} s/page wall, ${(cpu / pages).toFixed(4)} s/page of the service's CPU (all its threads)`;
  } finally {
    server.kill('SIGTERM');
    site.close();
    setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 500);
  }
}
