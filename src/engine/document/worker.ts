/**
 * A document pool's worker thread: runs the pipeline on pages posted to it, and extraction
 * too when a job carries a schema (loaded on first use, so crawls that only want markdown
 * do not pay for the extractor's modules).
 */
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

parentPort!.on('message', (m: Job) => {
  if (!m.schema) return answer(m.id, () => runPipeline(m.source, m.options));
  loadExtractor().then(
    (extraction) => answer(m.id, () => runPipeline(m.source, m.options, extraction(m.schema!))),
    (e: Error) => parentPort!.postMessage({ id: m.id, error: e.message }),
  );
});

// Compile the pipeline before real pages need it (see warm-up.ts); pages posted meanwhile
// are answered between passes.
const passes = (workerData as { warmUpPasses?: number } | undefined)?.warmUpPasses ?? 0;
if (passes > 0) void warmUp(passes).then((ms) => parentPort!.postMessage({ warm: ms }));
else parentPort!.postMessage({ warm: 0 });

function answer(id: number, work: () => Processed): void {
  try {
    parentPort!.postMessage({ id, result: work() });
  } catch (e) {
    parentPort!.postMessage({ id, error: (e as Error).message });
  }
}
