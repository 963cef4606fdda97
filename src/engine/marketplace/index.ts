/**
 * POST /v1/marketplace's engine side: fetch a marketplace product page with the headers a
 * shopper of its region sends, refuse bot walls (502 blocked; one more try through another
 * proxy when proxies are configured), and read the product record on a document worker.
 */
import type { Action } from '../fetch/actions.js';
import type { PageSetup } from '../fetch/emulation.js';
import { isTrawlError } from '../../errors.js';
import { processDocument } from '../document/process.js';
import type { JobControl } from '../document/processor.js';
import { fetchPage, releasePage, type Fetchers, type RenderMode } from '../fetch/page.js';
import { marketplaceExtraction } from './extraction.js';
import { regionOf } from './registry.js';

export { MARKETPLACE_IDS, isMarketplaceId, marketplaceForUrl, urlBelongsTo, productIdFromUrl } from './registry.js';

export interface MarketplaceOptions {
  marketplace: string;
  url: string;
  mode?: 'basic' | 'rich';
  render?: RenderMode;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Also the page's markdown, from the same parse (monitors watching `markdown`). */
  markdown?: boolean;
  /** A monitor's device, location, headers and cookies (fetch/emulation.ts). */
  setup?: PageSetup;
  /** A monitor's browser steps (fetch/actions.ts), run before the product is read. */
  actions?: Action[];
}

export interface MarketplaceResult {
  marketplace: string;
  product: Record<string, unknown>;
  sources: Record<string, string>;
  /** The page's HTTP status (a monitor's `status_code`). */
  statusCode: number;
  markdown?: string;
}

/** A desktop Chrome's navigation headers, in the region's language. */
function shopperHeaders(language: string): Record<string, string> {
  return {
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
    'accept-language': language,
    'sec-ch-ua': '"Chromium";v="131", "Not_A Brand";v="24"',
    'sec-ch-ua-mobile': '?0',
    'sec-ch-ua-platform': '"Linux"',
    'sec-fetch-dest': 'document',
    'sec-fetch-mode': 'navigate',
    'sec-fetch-site': 'none',
    'sec-fetch-user': '?1',
    'upgrade-insecure-requests': '1',
  };
}

export async function marketplaceProduct(fetchers: Fetchers, options: MarketplaceOptions): Promise<MarketplaceResult> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const region = regionOf(options.marketplace);
  const get = () =>
    fetchPage(fetchers, options.url, {
      render: options.actions?.length ? 'browser' : (options.render ?? 'auto'),
      timeoutMs: Math.max(1000, deadline - Date.now()),
      signal: options.signal,
      headers: shopperHeaders(region.language),
      setup: options.setup,
      actions: options.actions,
    });
  let page;
  try {
    page = await get();
  } catch (e) {
    // Proxies rotate per request: after a wall, one more try goes out through the next one.
    if (!(isTrawlError(e) && e.code === 'blocked' && fetchers.http.proxyCount > 1)) throw e;
    page = await get();
  }
  try {
    const control: JobControl = { signal: options.signal, deadline };
    const doc = await processDocument(
      fetchers.documents,
      page.text ?? '',
      { url: page.url, onlyMainContent: true, markdown: options.markdown ?? false, html: false, links: false },
      marketplaceExtraction(options.marketplace, options.mode ?? 'rich'),
      control,
    );
    return {
      marketplace: options.marketplace,
      product: doc.extracted?.json ?? {},
      sources: doc.extracted?.sources ?? {},
      statusCode: page.status,
      ...(options.markdown ? { markdown: doc.markdown ?? '' } : {}),
    };
  } finally {
    releasePage(page);
  }
}
