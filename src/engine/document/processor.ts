/**
 * The document processor port: what a page job takes (options, an extraction to run on the parsed
 * tree, its limits) and gives. The pool (pool.ts) implements it; process.ts runs a page on it or,
 * without one, on this thread.
 */
import type { ExtractOutput } from '../extract/output.js';
import type { SchemaObject } from '../extract/schema.js';
import type { Document } from './dom.js';
import type { DocumentOptions, DocumentResult } from './index.js';
import type { PdfMarkdown, PdfOptions } from './pdf.js';

export type PooledOptions = Omit<DocumentOptions, 'onDocument'>;

/** A processed page, with what extraction found when a schema was asked for. */
export interface Processed extends DocumentResult {
  extracted?: ExtractOutput;
}

/** A job's limits: its caller's cancellation and its request's deadline (epoch ms), and whose it is. */
export interface JobControl {
  signal?: AbortSignal;
  deadline?: number;
  /** Whose job (an opaque key: the server's owners are accounts); the pool shares its workers fairly between owners. */
  owner?: string;
}

export interface DocumentProcessor {
  /** Runs the pipeline on a page; with an extraction, that too (on the same parsed tree). */
  process(
    source: string,
    options: PooledOptions,
    extraction?: PageExtraction,
    control?: JobControl,
  ): Promise<Processed>;
  /** Converts a PDF to markdown (pdf.ts), under the same limits as a page. */
  processPdf?(bytes: Uint8Array, options: PdfOptions, control?: JobControl): Promise<PdfMarkdown>;
  close(): Promise<void>;
}

/**
 * The processor as one owner's work sees it: its jobs carry `owner`, so the pool shares its
 * workers fairly between owners. Closing it leaves the pool alone (the pool is its maker's).
 */
export function ownedBy(documents: DocumentProcessor, owner: string): DocumentProcessor {
  const processPdf = documents.processPdf?.bind(documents);
  return {
    process: (source, options, extraction, control) =>
      documents.process(source, options, extraction, { ...control, owner }),
    processPdf: processPdf && ((bytes, options, control) => processPdf(bytes, options, { ...control, owner })),
    close: async () => undefined,
  };
}

/**
 * Extraction to run on a page's parsed tree: its schema (sent to a worker as data) and how
 * to run it on this thread. The extractor lives above this module; it hands itself in.
 */
export interface PageExtraction {
  schema: SchemaObject;
  /** A marketplace's product reader instead of the schema (marketplace/index.ts), sent as data. */
  marketplace?: { id: string; mode: 'basic' | 'rich' };
  /** `baseUrl`: where the page's links resolve (its `<base href>`); `url`: the page's own. */
  here(doc: Document, baseUrl: string, source: string, url: string): ExtractOutput;
}
