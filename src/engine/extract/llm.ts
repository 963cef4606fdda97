/**
 * Optional LLM pass: the fields the deterministic extractor left empty are asked of an
 * OpenAI-compatible chat-completions endpoint with structured output (a JSON Schema of
 * just those fields), over the page's markdown trimmed to a budget. The answer is coerced
 * and validated like any other candidate; a timeout or a bad answer leaves the fields
 * empty and is logged — it never fails the request.
 */
import { TrawlError, isTrawlError } from '../../errors.js';
import type { HttpClient } from '../fetch/http.js';
import { coerce } from './coerce.js';
import { annotate, type FieldHints } from './json-schema.js';
import type { CompiledSchema, SchemaNode, SchemaObject } from './schema.js';

export interface LlmOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  http: HttpClient;
  /** @default 20000 */
  timeoutMs?: number;
  /** Characters of markdown sent (≈ 4 per token). @default 24000 */
  maxChars?: number;
  log?: { warn(obj: object, msg: string): void };
}

export interface FillInput {
  json: Record<string, unknown>;
  sources: Record<string, string>;
  schema: CompiledSchema;
  markdown: string;
  url: string;
  prompt?: string;
  signal?: AbortSignal;
  /** What is left of the request's time budget; the LLM call never outlives it. */
  timeoutMs?: number;
}

export interface AskInput {
  markdown: string;
  url: string;
  /** What to extract, in words: the LLM chooses the fields. */
  prompt: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface LlmClient {
  fill(input: FillInput): Promise<{ json: Record<string, unknown>; sources: Record<string, string> }>;
  /**
   * Extraction from a prompt alone (no schema): the LLM answers a JSON object of its own
   * shape. Unlike `fill`, its failure is the request's (502 fetch_failed, or 504 timeout):
   * without it there is no answer at all.
   */
  ask(input: AskInput): Promise<Record<string, unknown>>;
}

const isEmpty = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.length === 0);

/** The part of the schema whose values are still empty (nested objects partially). */
function missingSchema(schema: SchemaObject, value: Record<string, unknown>): SchemaObject | undefined {
  const out: SchemaObject = {};
  for (const [k, t] of Object.entries(schema)) {
    const v = value?.[k];
    if (typeof t === 'object' && !Array.isArray(t)) {
      const sub = missingSchema(t, (v ?? {}) as Record<string, unknown>);
      if (sub) out[k] = sub;
    } else if (isEmpty(v)) out[k] = t;
  }
  return Object.keys(out).length ? out : undefined;
}

function jsonSchemaOf(node: SchemaNode): Record<string, unknown> {
  if (typeof node === 'string') return { type: [node, 'null'] };
  if (Array.isArray(node)) return { type: 'array', items: jsonSchemaOf(node[0]) };
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(node).map(([k, v]) => [k, jsonSchemaOf(v)])),
    required: Object.keys(node),
    additionalProperties: false,
  };
}

/** Coerce an LLM answer to the schema; whatever does not fit becomes undefined. */
function coerceTo(node: SchemaNode, v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof node === 'string') return coerce(v, node);
  if (Array.isArray(node)) {
    if (!Array.isArray(v)) return undefined;
    return v.map((x) => coerceTo(node[0], x)).filter((x) => x !== undefined);
  }
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, t] of Object.entries(node)) out[k] = coerceTo(t, (v as Record<string, unknown>)[k]);
  return out;
}

function mergeMissing(
  node: SchemaObject,
  base: Record<string, unknown>,
  answer: Record<string, unknown>,
  sources: Record<string, string>,
  prefix: string,
): Record<string, unknown> {
  const out = { ...base };
  for (const [k, t] of Object.entries(node)) {
    const a = answer[k];
    if (typeof t === 'object' && !Array.isArray(t)) {
      if (a && typeof a === 'object')
        out[k] = mergeMissing(
          t,
          (base[k] ?? {}) as Record<string, unknown>,
          a as Record<string, unknown>,
          sources,
          `${prefix}${k}.`,
        );
    } else if (isEmpty(base[k]) && a !== undefined && !isEmpty(a)) {
      out[k] = a;
      sources[`${prefix}${k}`] = 'llm';
    }
  }
  return out;
}

const SYSTEM =
  'You extract data from a web page. Answer only with JSON matching the schema. Use null when the page does not state a value; never guess. Numbers are plain numbers in the page currency.';

export function createLlmClient(options: LlmOptions): LlmClient {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const post = async (body: Record<string, unknown>, signal?: AbortSignal, timeoutMs?: number) => {
    const res = await options.http.request(endpoint, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      timeoutMs: Math.max(500, Math.min(options.timeoutMs ?? 20_000, timeoutMs ?? Infinity)),
      maxBytes: 2 * 1024 * 1024,
      signal,
    });
    if (res.status >= 400) throw new Error(`LLM endpoint answered HTTP ${res.status}`);
    const content = JSON.parse(res.body.toString('utf8'))?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new Error('LLM answer has no message content');
    return JSON.parse(content.replace(/^```(?:json)?\s*|\s*```$/g, '')) as unknown;
  };
  return {
    async ask(input) {
      const page = input.markdown.slice(0, options.maxChars ?? 24_000);
      try {
        const answer = await post(
          {
            model: options.model,
            temperature: 0,
            messages: [
              {
                role: 'system',
                content:
                  'You extract data from a web page as one JSON object whose field names (snake_case) you choose to answer the request. Use null when the page does not state a value; never guess.',
              },
              { role: 'user', content: `URL: ${input.url}\nRequest: ${input.prompt}\n\nPage (markdown):\n${page}` },
            ],
            response_format: { type: 'json_object' },
          },
          input.signal,
          input.timeoutMs,
        );
        if (!answer || typeof answer !== 'object' || Array.isArray(answer))
          throw new Error('the LLM answer is not a JSON object');
        return answer as Record<string, unknown>;
      } catch (e) {
        if (isTrawlError(e)) {
          if (e.code === 'timeout') throw e;
          throw new TrawlError('fetch_failed', `the LLM endpoint could not answer: ${e.detail}`, { cause: e });
        }
        throw new TrawlError('fetch_failed', `the LLM endpoint could not answer: ${(e as Error).message}`, {
          cause: e,
        });
      }
    },
    async fill(input) {
      const missing = missingSchema(input.schema.schema, input.json);
      if (!missing) return { json: input.json, sources: input.sources };
      const page = input.markdown.slice(0, options.maxChars ?? 24_000);
      const body = {
        model: options.model,
        temperature: 0,
        messages: [
          {
            role: 'system',
            content: SYSTEM,
          },
          {
            role: 'user',
            content: `URL: ${input.url}\n${input.prompt ? `Hint: ${input.prompt}\n` : ''}\nPage (markdown):\n${page}`,
          },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'extraction',
            strict: true,
            schema: annotate(jsonSchemaOf(missing), input.schema.hints as FieldHints | undefined),
          },
        },
      };
      try {
        const parsed = await post(body, input.signal, input.timeoutMs);
        const answer = coerceTo(missing, parsed);
        if (!answer || typeof answer !== 'object') throw new Error('LLM answer is not an object');
        const sources = { ...input.sources };
        const json = input.schema.finish(
          mergeMissing(missing, input.json, answer as Record<string, unknown>, sources, ''),
          sources,
        );
        if (!input.schema.validate(json)) throw new Error('LLM answer does not validate against the schema');
        return { json, sources };
      } catch (e) {
        options.log?.warn(
          { err: isTrawlError(e) ? e.detail : (e as Error).message, url: input.url },
          'LLM extraction skipped',
        );
        return { json: input.json, sources: input.sources };
      }
    },
  };
}
