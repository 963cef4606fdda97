/**
 * A document pool's worker thread: runs the pipeline on pages posted to it, and extraction
 * too when a job carries a schema (loaded on first use, so crawls that only want markdown
 * do not pay for the extractor's modules).
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { SchemaObject } from '../extract/schema.js';
import { runPipeline } from './pipeline.js';
import type { PageExtraction, PooledOptions, Processed } from './pool.js';
import { warmUp } from './warm-up.js';

interface Job {
  id: number;
  source: string;
  options: PooledOptions;
  schema?: SchemaObject;
}

let extractor: Promise<(schema: SchemaObject) => PageExtraction> | undefined;
const loadExtractor = () =>
  (extractor ??= Promise.all([import('../extract/index.js'), import('../extract/schema.js')]).then(([e, s]) => (schema: SchemaObject) => e.pageExtraction(s.compileSchema(schema))));

// Jobs run one per event-loop turn, so a cancel posted for a job waiting here is read first.
const waiting: Job[] = [];
let running = false;

parentPort!.on('message', (m: Job | { cancel: number }) => {
  if ('cancel' in m) {
    const i = waiting.findIndex((j) => j.id === m.cancel);
    if (i >= 0) waiting.splice(i, 1);
    return;
  }
  waiting.push(m);
  if (!running) next();
});

function next(): void {
  running = true;
  setImmediate(() => {
    const m = waiting.shift();
    if (!m) {
      running = false;
      return;
    }
    const done = () => (waiting.length ? next() : (running = false));
    if (!m.schema) {
      answer(m.id, () => runPipeline(m.source, m.options));
      return done();
    }
    loadExtractor().then(
      (extraction) => answer(m.id, () => runPipeline(m.source, m.options, extraction(m.schema!))),
      (e: Error) => parentPort!.postMessage({ id: m.id, error: e.message }),
    ).finally(done);
  });
}

// Compile the pipeline before real pages need it (see warm-up.ts); pages posted meanwhile
// are answered between passes.
const passes = (workerData as { warmUpPasses?: number } | undefined)?.warmUpPasses ?? 0;
if (passes > 0) void warmUp(passes).then((ms) => parentPort!.postMessage({ warm: ms }));
else parentPort!.postMessage({ warm: 0 });

/** Each answer says how large this worker's heap has grown, so the pool can recycle it when idle. */
function answer(id: number, work: () => Processed): void {
  try {
    const result = work();
    parentPort!.postMessage({ id, result, heap: getHeapStatistics().total_heap_size });
  } catch (e) {
    parentPort!.postMessage({ id, error: (e as Error).message, heap: getHeapStatistics().total_heap_size });
  }
}
