/**
 * The marketplace product reader as a document-pipeline extraction (runs on a document worker
 * on the page's one parsed tree, like schema extraction). One reader module per marketplace;
 * a marketplace without one yet is read by the generic layers alone.
 */
import type { PageExtraction } from '../document/processor.js';
import { readAmazon } from './amazon.js';
import { readEbay } from './ebay.js';
import { readWalmart } from './walmart.js';
import { readTarget } from './target.js';
import { readEtsy } from './etsy.js';
import { readBestBuy } from './bestbuy.js';
import { readProduct, type SiteReader } from './product.js';
import { isListingUrl, readListing } from './listing.js';
import { marketplaceName } from './registry.js';

const READERS: Record<string, SiteReader> = {
  amazon: readAmazon,
  ebay: readEbay,
  walmart: readWalmart,
  target: readTarget,
  etsy: readEtsy,
  bestbuy: readBestBuy,
};

export function marketplaceExtraction(marketplace: string, mode: 'basic' | 'rich'): PageExtraction {
  return {
    schema: {},
    marketplace: { id: marketplace, mode },
    here: (doc, _baseUrl, source, url) => {
      if (isListingUrl(marketplace, url)) {
        const { products, source: from } = readListing(doc, { marketplace, url, html: source });
        return { json: { products }, sources: { products: from } };
      }
      const { product, sources } = readProduct(
        doc,
        { marketplace, url, html: source },
        READERS[marketplaceName(marketplace)],
        mode,
      );
      return { json: product, sources };
    },
  };
}
