/**
 * Schema-guided data from 1–20 URLs for an account (/v1/extract, /firecrawl extract): the engine's
 * options built from the request's page options in one place.
 */
import type { CompiledSchema } from '../engine/index.js';
import type { ExtractOptions } from '../engine/extract-urls.js';
import { enginePageOptions, pageSetupOf, type PageOptionsBody } from '../contract/page-options.js';
import type { AppContext } from './context.js';

export interface ExtractRequest extends Omit<PageOptionsBody, 'url' | 'urls'> {
  urls: string[];
  /** Absent: the prompt alone, through the LLM (the route checks there is one). */
  schema?: CompiledSchema;
  prompt?: string;
  render?: 'auto' | 'http' | 'browser';
}

export function extractOptionsFor(ctx: AppContext, p: ExtractRequest, signal?: AbortSignal): ExtractOptions {
  return {
    urls: p.urls,
    schema: p.schema,
    prompt: p.prompt,
    render: p.render,
    timeoutMs: p.timeout_ms,
    signal,
    llm: ctx.engine.llm,
    setup: pageSetupOf(p),
    actions: enginePageOptions(p).actions,
  };
}
