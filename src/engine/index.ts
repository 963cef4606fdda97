/**
 * The engine's surface: capabilities (scrape, …) and the shared fetchers they use. Pure of
 * HTTP and billing; the server, the CLI and workers all call these same functions.
 */
import type { Config } from '../config.js';
import { ChromiumPool, type BrowserPool } from './fetch/browser.js';
import { HttpClient } from './fetch/http.js';
import type { Fetchers } from './fetch/page.js';

export { scrape, documentFromPage, resolveFormats, FORMATS, type Format, type ScrapeOptions, type ScrapeResult } from './scrape.js';
export { compileSchema, type CompiledSchema, type SchemaObject } from './extract/schema.js';
export { HttpClient } from './fetch/http.js';
export type { Fetchers } from './fetch/page.js';

export interface Engine extends Fetchers {
  http: HttpClient;
  browser?: BrowserPool;
  close(): Promise<void>;
}

export function createEngine(config: Pick<Config, 'allowPrivateNetwork' | 'resolve' | 'proxyUrls' | 'chromiumPath'>): Engine {
  const http = new HttpClient({ allowPrivateNetwork: config.allowPrivateNetwork, resolve: config.resolve, proxyUrls: config.proxyUrls });
  const browser = new ChromiumPool({ executablePath: config.chromiumPath, http });
  let closing: Promise<void> | undefined;
  return {
    http,
    browser,
    close: () => (closing ??= Promise.all([browser.close(), http.close()]).then(() => undefined)),
  };
}
