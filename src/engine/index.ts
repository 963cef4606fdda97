/**
 * The engine's surface: capabilities (scrape, …) and the shared fetchers they use. Pure of
 * HTTP and billing; the server, the CLI and workers all call these same functions.
 */
import type { Config } from '../config.js';
import { ChromiumPool, type BrowserPool } from './fetch/browser.js';
import { HttpClient } from './fetch/http.js';
import { DocumentPool } from './document/pool.js';
import { ownedBy } from './document/processor.js';
import { LargePageGate } from './fetch/large-pages.js';
import type { Fetchers } from './fetch/page.js';
import { OwnerSlots } from './fetch/owner-slots.js';
import { createLlmClient, type LlmClient } from './extract/llm.js';
import { createSearchProvider, type SearchProvider } from './search/index.js';

export {
  scrape,
  documentFromPage,
  resolveFormats,
  needsBrowser,
  FORMATS,
  SCRAPE_FORMATS,
  type Format,
  type ScrapeFormat,
  type ScrapeOptions,
  type ScrapeResult,
  type FileSink,
  type ScrapeCache,
} from './scrape.js';
export type { Action } from './fetch/actions.js';
export type { Cookie, Location, Viewport, PageSetup } from './fetch/emulation.js';
export { compileSchema, type CompiledSchema, type SchemaObject } from './extract/schema.js';
export { HttpClient } from './fetch/http.js';
export type { Fetchers } from './fetch/page.js';
export { FREE_STEALTH } from './fetch/page.js';
export { extract, type ExtractOptions, type ExtractResponse } from './extract-urls.js';
export { crawl, mapSite, type CrawlOptions, type CrawlResult, type MapResult } from './crawl/index.js';
export { search, type SearchOptions, type SearchResult } from './search/index.js';

/** A body past this is a large page (admission: fetch/large-pages.ts). */
const LARGE_PAGE_BYTES = 1024 * 1024;

export interface Engine extends Fetchers {
  http: HttpClient;
  browser?: BrowserPool;
  /** Present when LLM_BASE_URL and LLM_MODEL are configured. */
  llm?: LlmClient;
  /** The configured web search provider (undefined when its configuration is incomplete). */
  searchProvider?: SearchProvider;
  /** Why there is no search provider, for the error a caller gets. */
  searchProviderError?: string;
  /** Pages in flight per owner (an account); forOwner() hands out one owner's share. */
  ownerSlots: OwnerSlots;
  close(): Promise<void>;
}

/** The engine as one owner's work sees it: its page fetches take that owner's slots, its documents its share of the workers. */
export function forOwner(engine: Engine, owner: string): Engine {
  return {
    ...engine,
    slots: engine.ownerSlots.for(owner),
    documents: engine.documents && ownedBy(engine.documents, owner),
  };
}

export type EngineConfig = Pick<Config, 'allowPrivateNetwork' | 'resolve' | 'proxyUrls' | 'chromiumPath'> &
  Partial<Pick<Config, 'stealthProxyUrls' | 'userAgentToken' | 'browserEndpoint'>> &
  Partial<
    Pick<
      Config,
      | 'documentWorkers'
      | 'documentBudgetMs'
      | 'largePages'
      | 'pageBytesBudget'
      | 'accountConcurrency'
      | 'pdfMaxInflatedBytes'
      | 'screenshotMaxBytes'
      | 'answerMaxBytes'
    >
  > &
  Partial<
    Pick<
      Config,
      | 'llmBaseUrl'
      | 'llmApiKey'
      | 'llmModel'
      | 'searchProvider'
      | 'searxngUrl'
      | 'braveApiKey'
      | 'braveApiUrl'
      | 'duckduckgoUrl'
    >
  >;

export function createEngine(config: EngineConfig, log?: { warn(obj: object, msg: string): void }): Engine {
  const http = new HttpClient({
    allowPrivateNetwork: config.allowPrivateNetwork,
    resolve: config.resolve,
    proxyUrls: config.proxyUrls,
    stealthProxyUrls: config.stealthProxyUrls,
    userAgentToken: config.userAgentToken,
  });
  const browser = new ChromiumPool({
    executablePath: config.chromiumPath,
    endpoint: config.browserEndpoint,
    userAgentToken: config.userAgentToken,
    http,
    screenshotMaxBytes: config.screenshotMaxBytes,
    maxSnapshotBytes: config.answerMaxBytes,
  });
  const documents = new DocumentPool({
    size: config.documentWorkers,
    jobTimeoutMs: config.documentBudgetMs,
    pdfMaxInflatedBytes: config.pdfMaxInflatedBytes,
  });
  const largePages = new LargePageGate(LARGE_PAGE_BYTES, config.largePages ?? 2, config.pageBytesBudget ?? Infinity);
  // Endpoints the operator configured (an LLM or a SearXNG on the LAN) may be private
  // addresses, so they get their own client; user-supplied URLs never travel through it.
  const trustedHttp = new HttpClient({ allowPrivateNetwork: true, proxyUrls: [] });
  const llm = config.llmBaseUrl
    ? createLlmClient({
        baseUrl: config.llmBaseUrl,
        apiKey: config.llmApiKey,
        model: config.llmModel ?? 'gpt-4o-mini',
        http: trustedHttp,
        log,
      })
    : undefined;
  let searchProvider: SearchProvider | undefined;
  let searchProviderError: string | undefined;
  try {
    searchProvider = createSearchProvider(config, trustedHttp);
  } catch (e) {
    searchProviderError = (e as Error).message;
  }
  let closing: Promise<void> | undefined;
  return {
    http,
    browser,
    documents,
    largePages,
    llm,
    searchProvider,
    searchProviderError,
    ownerSlots: new OwnerSlots(config.accountConcurrency ?? Infinity),
    close: () =>
      (closing ??= Promise.all([browser.close(), http.close(), trustedHttp.close(), documents.close()]).then(
        () => undefined,
      )),
  };
}
