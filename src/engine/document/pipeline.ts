/**
 * The pipeline for one page, and extraction on the same parsed tree when asked: what a
 * document worker runs, and what the pool runs inline when it has no worker. Kept apart
 * from pool.ts so a process whose pages all go to workers never loads the parser and the
 * converters on its main thread.
 */
import type { ExtractOutput } from '../extract/output.js';
import { processHtml } from './index.js';
import type { PageExtraction, PooledOptions, Processed } from './processor.js';

export function runPipeline(source: string, options: PooledOptions, extraction?: PageExtraction): Processed {
  if (!extraction) return processHtml(source, options);
  let extracted: ExtractOutput | undefined;
  const result = processHtml(source, {
    ...options,
    onDocument: (doc, baseUrl) => (extracted = extraction.here(doc, baseUrl, source, options.url)),
  });
  return { ...result, extracted };
}
