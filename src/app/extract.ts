/**
 * Schema-guided data from 1–20 URLs for an account (/v1/extract, /firecrawl extract): the engine's
 * options built from the request's page options in one place.
 */
import type { CompiledSchema } from '../engine/index.js';
import type { ExtractOptions } from '../engine/extract-urls.js';
import { extract } from '../engine/index.js';
import {
  checkPageOptions,
  checkPreparingActions,
  enginePageOptions,
  pageSetupOf,
  type PageOptionsBody,
} from '../contract/page-options.js';
import type { ExtractBody } from '../contract/schemas.js';
import { schemaOrPrompt } from '../contract/validation.js';
import { withinBudget, type Work } from './budget.js';
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

/**
 * An extract request checked as the API checks it (a schema, or a prompt with an LLM; page
 * options; preparing actions only) and held to its time budget: /v1/extract and the dashboard.
 */
export function extractWork(ctx: AppContext, body: ExtractBody): Work<Awaited<ReturnType<typeof extract>>> {
  const schema = schemaOrPrompt(body.schema, body.prompt, !!ctx.engine.llm);
  checkPageOptions(body, 60_000);
  checkPreparingActions(body.actions, 'extract');
  return withinBudget(body.timeout_ms ?? 60_000, (signal, engine) =>
    extract(engine, extractOptionsFor(ctx, { ...body, schema }, signal)),
  );
}
