/** How a fetched page (HTML, text or PDF) becomes the formats asked for: shared by scrape, extract and crawls. */
import { TrawlError } from '../errors.js';
import { parseHtml } from './document/index.js';
import { processDocument, processPdf } from './document/process.js';
import type { DocumentProcessor, JobControl } from './document/processor.js';
import type { CompiledSchema } from './extract/schema.js';
import { extractFromDocument, pageExtraction } from './extract/index.js';
import { releasePage, type Page } from './fetch/page.js';
import { SCANT_WARNING, type Format, type ScrapeResult } from './scrape-model.js';

/** How a fetched page becomes a document: main content only, a schema to extract, where it is processed, its limits. */
interface ConvertOptions {
  onlyMainContent?: boolean;
  schema?: CompiledSchema;
  documents?: DocumentProcessor;
  control?: JobControl;
  pdf?: { maxPages?: number };
}

/** Turn a fetched page into the requested formats (shared by scrape and extract); its admission slot is let go after. */
export async function documentFromPage(
  page: Page,
  formats: Set<Format>,
  options: ConvertOptions,
): Promise<ScrapeResult> {
  try {
    return await convertPage(page, formats, options);
  } finally {
    releasePage(page);
  }
}

async function convertPage(page: Page, formats: Set<Format>, options: ConvertOptions): Promise<ScrapeResult> {
  const base = {
    status_code: page.status,
    content_type: page.contentType.split(';')[0].trim() || (page.kind === 'pdf' ? 'application/pdf' : 'text/html'),
    source_url: page.sourceUrl,
    ...(page.proxyUsed ? { proxy_used: page.proxyUsed } : {}),
  };
  if (page.kind === 'pdf') {
    const { markdown, title, pages, warnings } = await processPdf(
      options.documents,
      page.bytes!,
      { maxPages: options.pdf?.maxPages },
      options.control,
    ).catch((e) => {
      // (a time limit or a cancellation is what it is; anything else is the document's fault)
      if (e instanceof TrawlError || options.control?.signal?.aborted) throw e;
      throw new TrawlError('fetch_failed', `${page.url} could not be read as a PDF: ${(e as Error)?.message ?? e}`, {
        cause: e,
        retryable: false,
      });
    });
    const result: ScrapeResult = {
      url: page.url,
      metadata: { title, description: null, language: null, ...base, pages },
    };
    if (warnings.length) result.warnings = warnings;
    if (formats.has('markdown')) result.markdown = markdown;
    if (formats.has('links')) result.links = [];
    if (formats.has('json') && options.schema) Object.assign(result, extractFromText(markdown, options.schema));
    return result;
  }
  if (page.kind === 'text') {
    const text = page.text ?? '';
    const ct = base.content_type;
    const markdown =
      ct.includes('json') || ct.includes('xml')
        ? `\`\`\`${ct.includes('json') ? 'json' : 'xml'}\n${text.trim()}\n\`\`\``
        : text.trim();
    const result: ScrapeResult = {
      url: page.url,
      metadata: { title: null, description: null, language: null, ...base },
    };
    if (formats.has('markdown')) result.markdown = markdown;
    if (formats.has('raw_html')) result.raw_html = text;
    if (formats.has('links')) result.links = [];
    if (formats.has('json') && options.schema) Object.assign(result, extractFromText(text, options.schema));
    return result;
  }
  const doc = await processDocument(
    options.documents,
    page.text ?? '',
    {
      url: page.url,
      onlyMainContent: options.onlyMainContent ?? true,
      markdown: formats.has('markdown'),
      html: formats.has('html'),
      links: formats.has('links'),
    },
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
      // (A page rendered because its HTML was a script shell: its content is the browser's.)
      ...(doc.metadata.content_source
        ? {
            content_source:
              page.shell && doc.metadata.content_source === 'main' ? 'browser' : doc.metadata.content_source,
          }
        : {}),
      ...(doc.metadata.page_type ? { page_type: doc.metadata.page_type } : {}),
    },
  };
  if (doc.scant) result.warnings = [SCANT_WARNING];
  if (formats.has('markdown')) result.markdown = doc.markdown ?? '';
  if (extracted) {
    result.json = options.schema ? options.schema.finish(extracted.json, extracted.sources) : extracted.json;
    result.sources = extracted.sources;
  }
  if (formats.has('html')) result.html = doc.html ?? '';
  if (formats.has('raw_html')) result.raw_html = page.text ?? '';
  if (formats.has('links')) result.links = doc.links ?? [];
  return result;
}

function extractFromText(
  text: string,
  schema: CompiledSchema,
): { json: Record<string, unknown>; sources: Record<string, string> } {
  // Plain text and PDFs have no markup: only "Label: value" lines can answer.
  const out = extractFromDocument(parseHtml(''), { schema, url: 'about:blank', text });
  return { json: schema.finish(out.json, out.sources), sources: out.sources };
}
