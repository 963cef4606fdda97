/** Input pieces several tools share, described once for the model. */
import { z } from 'zod';
import type { Extra, ToolContext } from '../context.js';
import { defined } from '../results.js';

/** The token budget of a tool's text (~4 characters a token). */
export const maxTokens = (fallback: number, what: string) =>
  z
    .number()
    .int()
    .min(100)
    .max(100_000)
    .optional()
    .describe(
      `Most tokens (~4 characters each) of ${what} to return (default ${fallback}); longer text is cut at a paragraph boundary and the answer says how to get more.`,
    );

export const schemaObject = z
  .record(z.string(), z.unknown())
  .describe(
    'Schema of the JSON wanted, as a JSON Schema ({"type":"object","properties":{"title":{"type":"string"},"price":{"type":"number"}}}: objects, arrays, string/number/integer/boolean, enum, format, description) or the short form: an object whose keys are output field names and whose values are "string", "number", "integer", "boolean", a nested schema object, or a one-element array [T] for a list; e.g. {"title":"string","price":"number","in_stock":"boolean","authors":["string"]}.',
  );

export const renderMode = z
  .enum(['auto', 'http', 'browser'])
  .optional()
  .describe('How to fetch: "auto" (default: a browser only for JavaScript-only pages), "http", or "browser".');

export const timeoutMs = (max: number, fallback: number) =>
  z.number().int().min(1000).max(max).optional().describe(`Time budget in ms (default ${fallback}).`);

/** A tool's call of the API: its arguments as the body (unset ones left out), the call's client and signal. */
export const postApi = async <T>(ctx: ToolContext, extra: Extra, path: string, body: Record<string, unknown>) =>
  (await ctx.api(extra)).post<T>(path, defined(body), extra.signal);
