/**
 * A document pool's worker thread: runs the pipeline on pages posted to it, and extraction
 * too when a job carries a schema (loaded on first use, so crawls that only want markdown
 * do not pay for the extractor's modules).
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { SchemaObject } from '../extract/schema.js';
import { runPipeline } from './pipeline.js';
import type { PageExtraction, Processed } from './processor.js';
import type { WorkerJob } from './pool-tuning.js';
import { warmUp } from './warm-up.js';

let extractor: Promise<(schema: SchemaObject) => PageExtraction> | undefined;
const loadExtractor = () =>
  (extractor ??= Promise.all([import('../extract/index.js'), import('../extract/schema.js')]).then(
    ([e, s]) =>
      (schema: SchemaObject) =>
        e.pageExtraction(s.compileSchema(schema)),
  ));

// Jobs run as they arrive, one message at a time. (A job the pool cancels after posting it
// is small — large pages are only posted to an idle worker — and its answer is ignored.)
let marketplaceReader: Promise<typeof import('../marketplace/extraction.js')> | undefined;

// PDFs are read one after another (the reader awaits pdf.js between pages); pages
// posted meanwhile are answered in between.
let pdfReader: Promise<typeof import('./pdf.js')> | undefined;
let pdfQueue: Promise<unknown> = Promise.resolve();

/**
 * What a PDF left this worker holding: its heap, and the memory outside it (pdf.js's inflated
 * streams are ArrayBuffers, beyond the heap's cap), collected or not — the pool replaces a
 * worker a large document grew.
 */
const afterPdf = () => ({ heap: getHeapStatistics().total_heap_size, external: process.memoryUsage().external });

parentPort!.on('message', (m: WorkerJob) => {
  if (m.pdf) {
    const { bytes, options } = m.pdf;
    pdfQueue = pdfQueue.then(async () => {
      try {
        const result = await (await (pdfReader ??= import('./pdf.js'))).pdfToMarkdown(bytes, options);
        parentPort!.postMessage({ id: m.id, result, ...afterPdf() });
      } catch (e) {
        parentPort!.postMessage({ id: m.id, error: (e as Error)?.message ?? String(e), ...afterPdf() });
      }
    });
    return;
  }
  if (m.marketplace) {
    const { id, mode } = m.marketplace;
    return void (marketplaceReader ??= import('../marketplace/extraction.js')).then(
      (mod) =>
        answer(m.id, m.source.length, () => runPipeline(m.source, m.options, mod.marketplaceExtraction(id, mode))),
      (e: Error) => parentPort!.postMessage({ id: m.id, error: e.message }),
    );
  }
  if (!m.schema) return answer(m.id, m.source.length, () => runPipeline(m.source, m.options));
  loadExtractor().then(
    (extraction) => answer(m.id, m.source.length, () => runPipeline(m.source, m.options, extraction(m.schema!))),
    (e: Error) => parentPort!.postMessage({ id: m.id, error: e.message }),
  );
});

// Compile the pipeline before real pages need it (see warm-up.ts); pages posted meanwhile
// are answered between passes.
const passes = (workerData as { warmUpPasses?: number } | undefined)?.warmUpPasses ?? 0;
// (Its heap then is what a fresh worker holds: the pool replaces one grown well past it.)
const warmed = (ms: number) => parentPort!.postMessage({ warm: ms, heap: getHeapStatistics().total_heap_size });
if (passes > 0) void warmUp(passes).then(warmed);
else warmed(0);

let answered = 0;

/**
 * An answer says how large this worker's heap has grown after a large page (and every 64th
 * answer), so the pool can replace a grown worker once it is idle.
 */
function answer(id: number, size: number, work: () => Processed): void {
  // (256 KiB: what the pool calls a large page, SMALL_BYTES in pool.ts.)
  const heap = size > 256 * 1024 || ++answered % 64 === 0 ? () => getHeapStatistics().total_heap_size : () => undefined;
  try {
    const result = work();
    parentPort!.postMessage({ id, result, heap: heap() });
  } catch (e) {
    parentPort!.postMessage({ id, error: (e as Error).message, heap: heap() });
  }
}
