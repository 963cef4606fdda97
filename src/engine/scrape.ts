/**
 * scrape: one URL → markdown / cleaned html / raw html / links / schema JSON + metadata.
 * Pure of HTTP and billing: options in, data out, or a TrawlError thrown.
 */
import { TrawlError } from '../errors.js';
import { parseHtml } from './document/index.js';
import { processDocument, processPdf, type DocumentProcessor, type JobControl } from './document/pool.js';
import type { CompiledSchema } from './extract/schema.js';
import type { LlmClient } from './extract/llm.js';
import { extractFromDocument, pageExtraction } from './extract/index.js';
import { fetchPage, releasePage, type Fetchers, type Page, type RenderMode } from './fetch/page.js';

export type Format = 'markdown' | 'json' | 'html' | 'raw_html' | 'links';
export const FORMATS: readonly Format[] = ['markdown', 'json', 'html', 'raw_html', 'links'];

export interface ScrapeOptions {
  url: string;
  /** @default ['markdown'] (plus 'json' when a schema is given) */
  formats?: Format[];
  schema?: CompiledSchema;
  /** @default true */
  onlyMainContent?: boolean;
  /** @default 'auto' */
  render?: RenderMode;
  /** @default 30000 */
  timeoutMs?: number;
  waitFor?: string | number;
  signal?: AbortSignal;
  /** Fills the JSON fields the deterministic pass left empty. */
  llm?: LlmClient;
  /** A hint for the LLM pass (ignored by the deterministic extractor). */
  prompt?: string;
  /** PDF reading: at most `maxPages` pages (default 200). */
  pdf?: { maxPages?: number };
}

export interface ScrapeMetadata {
  title: string | null;
  description: string | null;
  language: string | null;
  status_code: number;
  content_type: string;
  source_url: string;
  canonical_url?: string | null;
  /** Pages of a PDF document. */
  pages?: number;
}

export interface ScrapeResult {
  url: string;
  markdown?: string;
  json?: Record<string, unknown>;
  html?: string;
  raw_html?: string;
  links?: string[];
  metadata: ScrapeMetadata;
  /** Per JSON field, where its value came from (json-ld:offers.price, meta:og:title …). */
  sources?: Record<string, string>;
  /** Present when the answer is not all it could be (a JavaScript page without a browser …). */
  warnings?: string[];
}

export function resolveFormats(formats: Format[] | undefined, hasSchema: boolean): Set<Format> {
  const set = new Set<Format>(formats?.length ? formats : ['markdown']);
  if (!formats?.length && hasSchema) set.add('json');
  return set;
}

export async function scrape(fetchers: Fetchers, options: ScrapeOptions): Promise<ScrapeResult> {
  const formats = resolveFormats(options.formats, !!options.schema);
  if (formats.has('json') && !options.schema) throw new TrawlError('invalid_schema', 'schema: is required when formats includes "json"');
  const started = Date.now();
  // One deadline for the whole request: fetch, render, processing and extraction.
  const deadline = started + (options.timeoutMs ?? 30_000);
  const page = await fetchPage(fetchers, options.url, {
    render: options.render,
    timeoutMs: options.timeoutMs,
    waitFor: options.waitFor,
    signal: options.signal,
  });
  const useLlm = !!options.llm && !!options.schema && formats.has('json');
  // The LLM reads the page as markdown, even when markdown was not asked for.
  const result = await documentFromPage(page, useLlm ? new Set([...formats, 'markdown']) : formats, { ...options, documents: fetchers.documents, control: { signal: options.signal, deadline } });
  if (useLlm && result.json) {
    const filled = await options.llm!.fill({
      json: result.json,
      sources: result.sources ?? {},
      schema: options.schema!,
      markdown: result.markdown ?? '',
      url: result.url,
      prompt: options.prompt,
      signal: options.signal,
      timeoutMs: (options.timeoutMs ?? 30_000) - (Date.now() - started),
    });
    result.json = filled.json;
    result.sources = filled.sources;
    if (!formats.has('markdown')) delete result.markdown;
  }
  if (page.warnings?.length) result.warnings = [...page.warnings, ...(result.warnings ?? [])];
  return result;
}

/** Turn a fetched page into the requested formats (shared by scrape and extract); its admission slot is let go after. */
export async function documentFromPage(
  page: Page,
  formats: Set<Format>,
  options: { onlyMainContent?: boolean; schema?: CompiledSchema; documents?: DocumentProcessor; control?: JobControl; pdf?: { maxPages?: number } },
): Promise<ScrapeResult> {
  try {
    return await convertPage(page, formats, options);
  } finally {
    releasePage(page);
  }
}

async function convertPage(
  page: Page,
  formats: Set<Format>,
  options: { onlyMainContent?: boolean; schema?: CompiledSchema; documents?: DocumentProcessor; control?: JobControl; pdf?: { maxPages?: number } },
): Promise<ScrapeResult> {
  const base = {
    status_code: page.status,
    content_type: page.contentType.split(';')[0].trim() || (page.kind === 'pdf' ? 'application/pdf' : 'text/html'),
    source_url: page.sourceUrl,
  };
  if (page.kind === 'pdf') {
    const { markdown, title, pages, warnings } = await processPdf(options.documents, page.bytes!, { maxPages: options.pdf?.maxPages }, options.control).catch((e) => {
      // (a time limit or a cancellation is what it is; anything else is the document's fault)
      if (e instanceof TrawlError || options.control?.signal?.aborted) throw e;
      throw new TrawlError('fetch_failed', `${page.url} could not be read as a PDF: ${(e as Error)?.message ?? e}`, { cause: e, retryable: false });
    });
    const result: ScrapeResult = { url: page.url, metadata: { title, description: null, language: null, ...base, pages } };
    if (warnings.length) result.warnings = warnings;
    if (formats.has('markdown')) result.markdown = markdown;
    if (formats.has('links')) result.links = [];
    if (formats.has('json') && options.schema) Object.assign(result, extractFromText(markdown, options.schema));
    return result;
  }
  if (page.kind === 'text') {
    const text = page.text ?? '';
    const ct = base.content_type;
    const markdown = ct.includes('json') || ct.includes('xml') ? `\`\`\`${ct.includes('json') ? 'json' : 'xml'}\n${text.trim()}\n\`\`\`` : text.trim();
    const result: ScrapeResult = { url: page.url, metadata: { title: null, description: null, language: null, ...base } };
    if (formats.has('markdown')) result.markdown = markdown;
    if (formats.has('raw_html')) result.raw_html = text;
    if (formats.has('links')) result.links = [];
    if (formats.has('json') && options.schema) Object.assign(result, extractFromText(text, options.schema));
    return result;
  }
  const doc = await processDocument(
    options.documents,
    page.text ?? '',
    { url: page.url, onlyMainContent: options.onlyMainContent ?? true, markdown: formats.has('markdown'), html: formats.has('html'), links: formats.has('links') },
    formats.has('json') && options.schema ? pageExtraction(options.schema) : undefined,
    options.control,
  );
  const extracted = doc.extracted;
  const result: ScrapeResult = {
    url: page.url,
    metadata: {
      title: doc.metadata.title,
      description: doc.metadata.description,
      language: doc.metadata.language,
      ...base,
      canonical_url: doc.metadata.canonical_url,
    },
  };
  if (formats.has('markdown')) result.markdown = doc.markdown ?? '';
  if (extracted) {
    result.json = extracted.json;
    result.sources = extracted.sources;
  }
  if (formats.has('html')) result.html = doc.html ?? '';
  if (formats.has('raw_html')) result.raw_html = page.text ?? '';
  if (formats.has('links')) result.links = doc.links ?? [];
  return result;
}

function extractFromText(text: string, schema: CompiledSchema): { json: Record<string, unknown>; sources: Record<string, string> } {
  // Plain text and PDFs have no markup: only "Label: value" lines can answer.
  return extractFromDocument(parseHtml(''), { schema, url: 'about:blank', text });
}
