/**
 * extract: schema-guided JSON from 1–20 URLs, fetched concurrently through the same
 * pipeline as scrape. Per-URL results are kept; `data` merges them field by field (the
 * first non-null value in URL order; arrays concatenated without duplicates).
 */
import { TrawlError, isTrawlError } from '../errors.js';
import type { CompiledSchema } from './extract/schema.js';
import type { LlmClient } from './extract/llm.js';
import type { Action } from './fetch/actions.js';
import type { PageSetup } from './fetch/emulation.js';
import { fetchPage, type Fetchers, type RenderMode } from './fetch/page.js';
import { documentFromPage } from './scrape.js';

export interface ExtractOptions {
  urls: string[];
  /** Without one, `prompt` and `llm` are required: the LLM chooses the fields. */
  schema?: CompiledSchema;
  /** A hint for the LLM pass (ignored by the deterministic extractor); what to extract when there is no schema. */
  prompt?: string;
  /** @default 'auto' */
  render?: RenderMode;
  /** Budget for the whole call. @default 60000 */
  timeoutMs?: number;
  signal?: AbortSignal;
  llm?: LlmClient;
  /** Device, location, and the caller's headers and cookies (each to its URL's own site). */
  setup?: PageSetup;
  /** Browser steps run on each page before it is read (their outputs are not returned). */
  actions?: Action[];
}

export type ExtractResult =
  | { url: string; status: 'ok'; json: Record<string, unknown>; sources?: Record<string, string>; warnings?: string[] }
  | { url: string; status: 'error'; error: string; detail: string };

export interface ExtractResponse {
  data: Record<string, unknown>;
  results: ExtractResult[];
}

export async function extract(fetchers: Fetchers, options: ExtractOptions): Promise<ExtractResponse> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let stepsRan = false;
  const results = await Promise.all(
    options.urls.map(async (url): Promise<ExtractResult> => {
      try {
        const page = await fetchPage(fetchers, url, {
          render: options.actions?.length ? 'browser' : options.render,
          timeoutMs,
          signal: options.signal,
          setup: options.setup,
          actions: options.actions,
        });
        const schema = options.schema;
        if (!schema) {
          // A prompt alone: the LLM reads the page's markdown and answers in its own shape.
          const doc = await documentFromPage(page, new Set(['markdown']), {
            onlyMainContent: true,
            documents: fetchers.documents,
            control: { signal: options.signal, deadline },
          });
          const json = await options.llm!.ask({
            markdown: doc.markdown ?? '',
            url: doc.url,
            prompt: options.prompt ?? '',
            signal: options.signal,
            timeoutMs: deadline - Date.now(),
          });
          const sources = Object.fromEntries(Object.keys(json).map((k) => [k, 'llm']));
          return {
            url,
            status: 'ok',
            json,
            sources,
            ...(page.warnings ? { warnings: page.warnings } : {}),
          };
        }
        const doc = await documentFromPage(page, new Set(['json', ...(options.llm ? (['markdown'] as const) : [])]), {
          schema,
          onlyMainContent: true,
          // Parsing and extraction run on a document worker when there is one.
          documents: fetchers.documents,
          control: { signal: options.signal, deadline },
        });
        let json = doc.json ?? schema.empty();
        let sources = doc.sources ?? {};
        if (options.llm)
          ({ json, sources } = await options.llm.fill({
            json,
            sources,
            schema,
            markdown: doc.markdown ?? '',
            url: doc.url,
            prompt: options.prompt,
            signal: options.signal,
            timeoutMs: deadline - Date.now(),
          }));
        return {
          url,
          status: 'ok',
          json,
          ...(Object.keys(sources).length ? { sources } : {}),
          ...(page.warnings ? { warnings: page.warnings } : {}),
        };
      } catch (e) {
        if (!isTrawlError(e) || e.code === 'internal_error') throw e;
        stepsRan ||= e.charged;
        return { url, status: 'error', error: e.code, detail: e.detail };
      }
    }),
  );
  const ok = results.filter((r): r is Extract<ExtractResult, { status: 'ok' }> => r.status === 'ok');
  if (!ok.length) {
    const first = results[0] as Extract<ExtractResult, { status: 'error' }>;
    const detail =
      results.length === 1 ? first.detail : `all ${results.length} URLs failed; first: ${first.url}: ${first.detail}`;
    // Every page failed for one reason the caller must fix — a step (422) or a private address
    // (403) — that reason, as scrape answers it; any other mix is the contract's 502 fetch_failed.
    const codes = new Set(results.map((r) => (r.status === 'error' ? r.error : '')));
    const [only] = codes;
    const code = codes.size === 1 && (only === 'action_failed' || only === 'forbidden_target') ? only : 'fetch_failed';
    // (Charged when the caller's steps ran on any page: TrawlError.charged.)
    throw new TrawlError(code, detail, { charged: stepsRan });
  }
  return {
    data: mergeResults(
      ok.map((r) => r.json),
      options.schema,
    ),
    results,
  };
}

export function mergeResults(items: Record<string, unknown>[], schema?: CompiledSchema): Record<string, unknown> {
  const merged = mergeInto(schema ? schema.empty() : shapeOf(items), items);
  return merged as Record<string, unknown>;
}

/** The empty shape of answers without a schema: every key any of them has (arrays [], objects by their keys). */
function shapeOf(items: unknown[]): unknown {
  const first = items.find((v) => v !== null && v !== undefined);
  if (Array.isArray(first)) return [];
  if (!first || typeof first !== 'object') return null;
  const out: Record<string, unknown> = {};
  for (const it of items)
    if (it && typeof it === 'object' && !Array.isArray(it))
      for (const k of Object.keys(it)) if (!(k in out) && k !== '__proto__') out[k] = undefined;
  for (const k of Object.keys(out))
    out[k] = shapeOf(items.map((i) => (i && typeof i === 'object' ? (i as Record<string, unknown>)[k] : undefined)));
  return out;
}

function mergeInto(base: unknown, items: unknown[]): unknown {
  if (Array.isArray(base)) {
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (const it of items)
      for (const v of Array.isArray(it) ? it : []) {
        const k = JSON.stringify(v);
        if (!seen.has(k)) {
          seen.add(k);
          out.push(v);
        }
      }
    return out;
  }
  if (base && typeof base === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(base)) {
      const sub = base as Record<string, unknown>;
      out[k] = mergeInto(
        sub[k],
        items.map((i) => (i && typeof i === 'object' ? (i as Record<string, unknown>)[k] : undefined)),
      );
    }
    // A nested object that no item filled stays as the schema's empty shape.
    return out;
  }
  for (const it of items) if (it !== null && it !== undefined) return it;
  return null;
}
