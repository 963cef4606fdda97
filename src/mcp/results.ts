/**
 * What a tool answers: readable text for the model (`content`) beside the same facts as
 * `structuredContent` (validated against the tool's output schema), or a tool error whose text
 * is the API's error body — `{"error","detail"}` — never a stack trace.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, type ApiErrorBody } from './client.js';

export function ok(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function toolError(body: ApiErrorBody): CallToolResult {
  // No structuredContent: a client validates it against the output schema even on errors.
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** Runs a tool's body; an API error (or a bug) becomes a tool error the model can read. */
export async function guarded(
  log: (msg: string) => void,
  tool: string,
  fn: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ApiError) return toolError(e.body);
    // A bug of this server: its message only (to stderr with the tool's name), no stack to the model.
    const message = e instanceof Error ? e.message : String(e);
    log(`tool ${tool} failed: ${message}`);
    return toolError({ error: 'internal_error', detail: `the Trawl MCP server failed in ${tool}: ${message}` });
  }
}

/** `?a=1&b=x` from the defined entries. */
export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Drops undefined entries, so request bodies carry only what the model gave. */
export const defined = <T extends Record<string, unknown>>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
