/**
 * A document pool's worker thread: runs the pipeline on pages posted to it, and extraction
 * too when a job carries a schema (loaded on first use, so crawls that only want markdown
 * do not pay for the extractor's modules).
 */
import { parentPort } from 'node:worker_threads';
import type { ExtractOutput } from '../extract/index.js';
import type { CompiledSchema, SchemaObject } from '../extract/schema.js';
import { processHtml } from './index.js';
import type { PooledOptions } from './pool.js';

interface Job {
  id: number;
  source: string;
  options: PooledOptions;
  schema?: SchemaObject;
}

type Extractor = { extract: typeof import('../extract/index.js').extractFromDocument; compile: (s: SchemaObject) => CompiledSchema };
let extractor: Promise<Extractor> | undefined;
const loadExtractor = () =>
  (extractor ??= Promise.all([import('../extract/index.js'), import('../extract/schema.js')]).then(([e, s]) => ({ extract: e.extractFromDocument, compile: (x: SchemaObject) => s.compileSchema(x) })));

parentPort!.on('message', (m: Job) => {
  if (!m.schema) return answer(m.id, () => ({ result: processHtml(m.source, m.options) }));
  loadExtractor().then(
    (x) =>
      answer(m.id, () => {
        const schema = x.compile(m.schema!);
        let extracted: ExtractOutput | undefined;
        const result = processHtml(m.source, { ...m.options, onDocument: (doc, baseUrl) => (extracted = x.extract(doc, { schema, url: m.options.url, baseUrl, html: m.source })) });
        return { result, extracted };
      }),
    (e: Error) => parentPort!.postMessage({ id: m.id, error: e.message }),
  );
});

function answer(id: number, work: () => { result: unknown; extracted?: ExtractOutput }): void {
  try {
    parentPort!.postMessage({ id, ...work() });
  } catch (e) {
    parentPort!.postMessage({ id, error: (e as Error).message });
  }
}
