/** What every tool receives: the API client for the call, a log line writer (stderr), a page cache. */
import { createHash } from 'node:crypto';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { TrawlApi } from './client.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolContext {
  /** The client for this call: the caller's own key when it sent one over HTTP, else the server's. */
  api(extra: Extra): Promise<TrawlApi>;
  /** A line for the operator (stderr: stdout carries only MCP messages in stdio mode). */
  log(msg: string): void;
  pages: PageCache;
}

/** The key a call's cache entries are kept under: whose key it was, never the key itself. */
export const callerOf = (extra: Extra) =>
  extra.authInfo?.token ? createHash('sha256').update(extra.authInfo.token).digest('hex').slice(0, 16) : 'server';

/**
 * Recent scrape answers, so a model reading a long page on (`offset`) gets the rest of the
 * copy it started with, without fetching it again or paying another credit. Small and short-lived.
 */
export class PageCache {
  readonly #entries = new Map<string, { at: number; value: unknown }>();

  constructor(
    readonly maxEntries = 16,
    readonly ttlMs = 10 * 60_000,
  ) {}

  get<T>(key: string): T | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    if (Date.now() - e.at > this.ttlMs) return undefined;
    this.#entries.set(key, e); // most recent last
    return e.value as T;
  }

  set(key: string, value: unknown): void {
    this.#entries.delete(key);
    this.#entries.set(key, { at: Date.now(), value });
    while (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
