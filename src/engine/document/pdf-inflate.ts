/**
 * pdf.js with a budget on the bytes a document's streams inflate to. pdf.js has no limit of its
 * own: a 204 KB PDF whose one FlateDecode stream inflates to 200 MB took 600 MB of ArrayBuffers
 * to read (a 1 GB one, 1.5 GB), outside any worker's heap cap. pdf.js offers no hook, so its
 * bundle (unpdf's) is loaded with small changes, each checked when it loads:
 *  - every decoding stream's buffer growth (DecodeStream.ensureBuffer: Flate, LZW, RunLength,
 *    ASCII85, ASCIIHex, predictors, a page's concatenated contents) reports the bytes it adds
 *    (the buffer doubles: what is counted is the memory taken, up to twice the data);
 *  - the Brotli decoder reports each 16 KiB block it writes;
 *  - Flate and Brotli inflate in JavaScript, not through DecompressionStream: after a 100 MB
 *    bomb that path left the process 200 MB larger once collected (its 16 KiB chunks stay in
 *    malloc's arenas; the JavaScript path's buffers went back: 311 vs 115 MB RSS), and it was
 *    no faster on the PDF corpus (3.2–3.8 vs 3.3–5.0 s, loaded machine, noise either way);
 *  - (for speed, not memory) the operator list carries no glyphs: a page's text is read from
 *    its text content, the operator list gives only its drawing (rulings, bullets) and loads
 *    its fonts (their names tell bold), yet pdf.js mapped every character to a glyph object
 *    and copied them all from its worker to the page — 18 % of a worker's PDF time through
 *    the API (charsToGlyphs and the structured clone of the operator list, profiled).
 * The bytes count against the budget of the document being read (found through
 * AsyncLocalStorage: a thread may read several PDFs at once); past it decoding throws, and
 * the budget remembers it (pdf.js swallows most errors and reads on).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What one document may inflate to, and how much it has. */
export class InflateBudget {
  inflated = 0;
  exceeded = false;
  constructor(readonly max: number) {}
}

const budgets = new AsyncLocalStorage<InflateBudget>();

/** Where the patched bundle reports (a global: the bundle is a module of its own, loaded from source). */
const HOOK = 'trawl.pdfjs.inflated';

(globalThis as Record<symbol, unknown>)[Symbol.for(HOOK)] = (bytes: number) => {
  const budget = budgets.getStore();
  // (Outside a budget — a caller of pdf.js that set none — nothing is counted.)
  if (!budget) return;
  budget.inflated += bytes;
  if (budget.inflated > budget.max) {
    budget.exceeded = true;
    throw new Error(`the document inflates to more than ${budget.max} bytes`);
  }
};

/** Runs `work` (reading one document) against `budget`. */
export const withinBudget = <T>(budget: InflateBudget, work: () => Promise<T>): Promise<T> => budgets.run(budget, work);

const report = `globalThis[Symbol.for(${JSON.stringify(HOOK)})]`;

/** The changes to pdf.js's bundle; each must match exactly once, or pdf.js is not loaded at all. */
const PATCHES: { what: string; find: RegExp; replace: (m: string, ...groups: string[]) => string }[] = [
  {
    what: 'DecodeStream.ensureBuffer',
    find: /ensureBuffer\((\w+)\)\{const (\w+)=this\.buffer;if\(\1<=\2\.byteLength\)return \2;let (\w+)=this\.minBufferLength;for\(;\3<\1;\)\3\*=2;/g,
    replace: (m, _requested, buffer, size) => `${m}${report}?.(${size}-${buffer}.byteLength);`,
  },
  {
    what: 'the Brotli decoder',
    find: /for\(;;\)\{let (\w+)=new Int8Array\(16384\);if\((\w+)\.push\(\1\),/g,
    replace: (m) => `${m}${report}?.(16384),`,
  },
  {
    what: 'FlateStream through DecompressionStream',
    find: /p\(this,"FlateStream"\)\}#(\w+)=!0;/g,
    replace: (_m, field) => `p(this,"FlateStream")}#${field}=!1;`,
  },
  {
    what: 'BrotliStream through DecompressionStream',
    find: /p\(this,"BrotliStream"\)\}#(\w+)=!0;/g,
    replace: (_m, field) => `p(this,"BrotliStream")}#${field}=!1;`,
  },
  {
    // (the original stays, renamed, so that the match is checked like the others)
    what: 'the operator list without glyphs',
    find: /handleText\((\w+),(\w+)\)\{const (\w+)=\2\.font,/g,
    replace: (m) => `handleText(){return[]}${m.replace('handleText', 'handleTextGlyphs')}`,
  },
];

/** unpdf's pdf.js bundle with the changes above, as a module's source. */
export function guardedSource(): string {
  const file = join(dirname(createRequire(import.meta.url).resolve('unpdf')), 'pdfjs.mjs');
  let source = readFileSync(file, 'utf8');
  for (const p of PATCHES) {
    const found = source.match(p.find)?.length ?? 0;
    if (found !== 1)
      throw new Error(`pdf.js (${file}) is not the build Trawl knows: ${p.what} found ${found} times, not once`);
    source = source.replace(p.find, p.replace);
  }
  // Loaded from a data: URL, the module resolves what it requires from where the bundle lives.
  return source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href));
}

let loaded: Promise<unknown> | undefined;

/** The guarded pdf.js module, loaded once per thread. */
export function loadGuardedPdfJs(): Promise<unknown> {
  return (loaded ??= import(`data:text/javascript;base64,${Buffer.from(guardedSource()).toString('base64')}`));
}
