/**
 * The engine's surface: capabilities (scrape, …) and the shared fetchers they use. Pure of
 * HTTP and billing; the server, the CLI and workers all call these same functions.
 */
import type { Config } from '../config.js';
import { ChromiumPool, type BrowserPool } from './fetch/browser.js';
import { HttpClient } from './fetch/http.js';
import type { Fetchers } from './fetch/page.js';
import { createLlmClient, type LlmClient } from './extract/llm.js';

export { scrape, documentFromPage, resolveFormats, FORMATS, type Format, type ScrapeOptions, type ScrapeResult } from './scrape.js';
export { compileSchema, type CompiledSchema, type SchemaObject } from './extract/schema.js';
export { HttpClient } from './fetch/http.js';
export type { Fetchers } from './fetch/page.js';
export { extract, type ExtractOptions, type ExtractResponse } from './extract-urls.js';
export { crawl, type CrawlOptions, type CrawlResult } from './crawl/index.js';

export interface Engine extends Fetchers {
  http: HttpClient;
  browser?: BrowserPool;
  /** Present when LLM_BASE_URL and LLM_MODEL are configured. */
  llm?: LlmClient;
  close(): Promise<void>;
}

export type EngineConfig = Pick<Config, 'allowPrivateNetwork' | 'resolve' | 'proxyUrls' | 'chromiumPath'> &
  Partial<Pick<Config, 'llmBaseUrl' | 'llmApiKey' | 'llmModel'>>;

export function createEngine(config: EngineConfig, log?: { warn(obj: object, msg: string): void }): Engine {
  const http = new HttpClient({ allowPrivateNetwork: config.allowPrivateNetwork, resolve: config.resolve, proxyUrls: config.proxyUrls });
  const browser = new ChromiumPool({ executablePath: config.chromiumPath, http });
  // The LLM endpoint is operator configuration (often a model server on the LAN), so its
  // client may reach private addresses; user-supplied URLs never travel through it.
  const llmHttp = config.llmBaseUrl ? new HttpClient({ allowPrivateNetwork: true, proxyUrls: [] }) : undefined;
  const llm =
    config.llmBaseUrl && llmHttp
      ? createLlmClient({ baseUrl: config.llmBaseUrl, apiKey: config.llmApiKey, model: config.llmModel ?? 'gpt-4o-mini', http: llmHttp, log })
      : undefined;
  let closing: Promise<void> | undefined;
  return {
    http,
    browser,
    llm,
    close: () => (closing ??= Promise.all([browser.close(), http.close(), llmHttp?.close()]).then(() => undefined)),
  };
}
