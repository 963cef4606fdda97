/** One page or PDF through the pipeline: on the pool when there is one, on this thread otherwise. */
import { timeoutError } from '../../errors.js';
import type { PdfMarkdown, PdfOptions } from './pdf.js';
import type { DocumentProcessor, JobControl, PageExtraction, PooledOptions, Processed } from './processor.js';

/**
 * The pipeline for one page, extraction included when asked: on the pool when there is
 * one, inline when there is none (or when a processor answered without extracting).
 */
export async function processDocument(
  documents: DocumentProcessor | undefined,
  source: string,
  options: PooledOptions,
  extraction?: PageExtraction,
  control?: JobControl,
): Promise<Processed> {
  if (documents) {
    const r = await documents.process(source, options, extraction, control);
    if (!extraction || r.extracted) return r;
  }
  checkControl(control);
  return processHere(source, options, extraction);
}

/** A PDF to markdown: on the pool when there is one, here otherwise (stopping between pages at the deadline). */
export async function processPdf(
  documents: DocumentProcessor | undefined,
  bytes: Uint8Array,
  options: PdfOptions,
  control?: JobControl,
): Promise<PdfMarkdown> {
  if (documents?.processPdf) return documents.processPdf(bytes, options, control);
  checkControl(control);
  return pdfHere(bytes, { ...options, deadline: control?.deadline });
}

/** The PDF reader on this thread, loaded with pdf.js on the first PDF. */
let pdfReader: Promise<typeof import('./pdf.js')> | undefined;
export const pdfHere = async (bytes: Uint8Array, options: PdfOptions) =>
  (await (pdfReader ??= import('./pdf.js'))).pdfToMarkdown(bytes, options);

/** Throws the caller's abort reason, or a timeout once the deadline has passed. */
export function checkControl(control: JobControl | undefined): void {
  if (control?.signal?.aborted) throw abortReason(control.signal);
  if (control?.deadline !== undefined && Date.now() >= control.deadline)
    throw timeoutError('the request used its whole time budget before the page was processed');
}

export const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('the page was no longer wanted');

/** The pipeline's module, loaded when a page is first processed on this thread (pipeline.ts). */
let pipeline: Promise<typeof import('./pipeline.js')> | undefined;

/**
 * The pipeline on this thread, its result copied off the page source: strings the parser
 * cut from the source (a title, a one-paragraph markdown, an extracted value) would
 * otherwise keep the whole page alive for as long as the result is kept — a crawl keeps a
 * thousand. A worker's results need no copy: they crossed a thread (copying them again cost
 * a crawl ~25 MB).
 */
export async function processHere(
  source: string,
  options: PooledOptions,
  extraction?: PageExtraction,
): Promise<Processed> {
  const { runPipeline } = await (pipeline ??= import('./pipeline.js'));
  return structuredClone(runPipeline(source, options, extraction));
}
