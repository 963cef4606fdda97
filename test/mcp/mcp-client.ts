/**
 * The official MCP SDK client against `trawl mcp` (the compiled CLI, so run `npm run build`
 * first): over stdio as a child process, collecting its stderr and any client-side error (a line
 * on stdout that is not an MCP message would be one).
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const BIN = join(import.meta.dirname, '../../bin/trawl.js');

export interface StdioSession {
  client: Client;
  stderr(): string;
  clientErrors: Error[];
  close(): Promise<void>;
}

export async function connectStdio(env: Record<string, string>): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    // Only what the test gives (plus the SDK's safe defaults): no TRAWL_API_URL leaks in.
    env: { LOG_LEVEL: 'warn', ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => (err = (err + d).slice(-20_000)));
  const client = new Client({ name: 'trawl-test', version: '1.0.0' });
  const clientErrors: Error[] = [];
  client.onerror = (e) => clientErrors.push(e);
  await client.connect(transport);
  return { client, stderr: () => err, clientErrors, close: () => client.close() };
}

export type ToolAnswer = CallToolResult & { structuredContent?: any };

export const textOf = (r: CallToolResult) =>
  (r.content as { type: string; text: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** The contract's error body a failed tool answered with. */
export function errorOf(r: CallToolResult): { error: string; detail?: string; retry_after?: number } {
  if (!r.isError) throw new Error(`expected a tool error, got: ${textOf(r).slice(0, 500)}`);
  return JSON.parse(textOf(r));
}
