/**
 * Firecrawl's `summary` format, written by the configured LLM through the extractor's own LLM
 * pass: one string field asked of the page's markdown. The pass never fails a request by itself
 * (it logs and leaves the field empty), so an empty answer is reported here as the upstream
 * failure it is.
 */
import { compileSchema } from '../../engine/index.js';
import type { LlmClient } from '../../engine/extract/llm.js';
import { TrawlError } from '../../errors.js';

const SUMMARY = compileSchema({ summary: 'string' });
const ASK =
  'Fill "summary" with a faithful summary of the whole page in 3 to 5 sentences, in the language of the page.';

export async function summarize(
  llm: LlmClient,
  page: { url: string; markdown: string },
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string> {
  const r = await llm.fill({
    json: { summary: null },
    sources: {},
    schema: SUMMARY,
    markdown: page.markdown,
    url: page.url,
    prompt: ASK,
    signal,
    timeoutMs,
  });
  const s = r.json.summary;
  if (typeof s !== 'string' || !s.trim())
    throw new TrawlError('fetch_failed', 'summary: the configured LLM wrote no summary of this page');
  return s.trim();
}
