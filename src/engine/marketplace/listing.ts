/**
 * Search-results and category pages of the marketplaces: `products: [...]`, basic fields each,
 * in page order. Amazon's result cards (`data-component-type="s-search-result"` with
 * `data-asin`), eBay's `li.s-item` cards, Walmart's `__NEXT_DATA__` search result stacks; other
 * marketplaces (and pages these find nothing on) through the generic extractor's repeated-card
 * reading.
 */
import type { Document } from '../document/dom.js';
import { absoluteUrl } from '../document/dom.js';
import { nextData } from './walmart.js';
import { extractFromDocument } from '../extract/index.js';
import { compileSchema, type CompiledSchema } from '../extract/schema.js';
import { currencyFromText } from '../extract/currency.js';
import { all, attr, first, hasClass, parsePrice, text } from './dom-helpers.js';
import { availabilityOf } from './product.js';
import { marketplaceName, productIdFromUrl, regionOf } from './registry.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a site's untyped JSON

export interface ListedProduct {
  id: string | null;
  url: string | null;
  title: string | null;
  price: number | null;
  currency: string | null;
  availability: ReturnType<typeof availabilityOf>;
  in_stock: boolean | null;
}

const LISTING_PATHS: Record<string, RegExp> = {
  amazon: /^\/(?:s(?:\/|$)|b(?:\/|$)|gp\/browse\.html)/,
  ebay: /^\/(?:sch\/|b\/)/,
  walmart: /^\/(?:search(?:\/|$)|browse\/|cp\/)/,
  etsy: /^(?:\/[a-z]{2})?\/(?:search(?:\/|$)|c\/|market\/)/,
  target: /^\/(?:s(?:\/|$)|c\/)/,
  bestbuy: /^\/(?:site\/searchpage\.jsp|site\/[^/]+\/pcmcat\d+|(?:[a-z]{2}-[a-z]{2}\/)?(?:search|category)(?:\/|$))/,
};

/** Whether `url` is a search-results or category page of marketplace `id`. */
export function isListingUrl(id: string, url: string): boolean {
  try {
    const u = new URL(url);
    return LISTING_PATHS[marketplaceName(id)]?.test(u.pathname) ?? false;
  } catch {
    return false;
  }
}

const stock = (words: string | undefined): Pick<ListedProduct, 'availability' | 'in_stock'> => {
  const availability = availabilityOf(words?.replace(/_/g, ' '));
  return {
    availability,
    in_stock:
      availability === 'in_stock' || availability === 'limited' ? true : availability === 'out_of_stock' ? false : null,
  };
};

function amazonCards(doc: Document, url: string, decimal: '.' | ','): ListedProduct[] {
  return all(
    doc,
    (e) =>
      e.attribs['data-component-type'] === 's-search-result' && /^[A-Z0-9]{10}$/.test(e.attribs['data-asin'] ?? ''),
  ).map((card) => {
    const h2 = first(card, (e) => e.name === 'h2');
    const link = first(h2 ?? card, (e) => e.name === 'a' && !!e.attribs.href);
    const priceEl = all(card, (e) => hasClass(e, 'a-price') && !hasClass(e, 'a-text-price'))
      .map((p) => first(p, (e) => hasClass(e, 'a-offscreen')))
      .find(Boolean);
    const shown = text(priceEl);
    const note =
      /currently unavailable|temporarily out of stock|derzeit nicht verfügbar|actuellement indisponible|non disponibile|no disponible/i.exec(
        text(card),
      )?.[0];
    return {
      id: card.attribs['data-asin'],
      url: link ? (absoluteUrl(attr(link, 'href'), url) ?? null) : null,
      title: text(h2) || null,
      price: parsePrice(shown, decimal) ?? null,
      currency: shown ? (currencyFromText(shown, url) ?? null) : null,
      ...stock(note),
    };
  });
}

function ebayCards(doc: Document, url: string, decimal: '.' | ','): ListedProduct[] {
  return all(doc, (e) => e.name === 'li' && hasClass(e, 's-item'))
    .map((card) => {
      const link = first(card, (e) => e.name === 'a' && hasClass(e, 's-item__link'));
      const href = link ? absoluteUrl(attr(link, 'href'), url) : undefined;
      const clean = href?.replace(/\?.*$/, '') ?? null;
      const shown = text(first(card, (e) => hasClass(e, 's-item__price')));
      return {
        id: clean ? (productIdFromUrl('ebay_us', clean) ?? null) : null,
        url: clean,
        title: text(first(card, (e) => hasClass(e, 's-item__title'))).replace(/^New listing\s*/i, '') || null,
        price: parsePrice(shown, decimal) ?? null,
        currency: shown ? (currencyFromText(shown, url) ?? null) : null,
        ...stock(undefined),
      };
    })
    .filter((p) => p.id); // eBay's first card is a template ("Shop on eBay") without an item
}

function walmartStacks(doc: Document, url: string): ListedProduct[] {
  const data = nextData(doc);
  const stacks = (data?.props?.pageProps?.initialData?.searchResult?.itemStacks ?? []) as { items?: Json[] }[];
  return stacks
    .flatMap((st) => st.items ?? [])
    .filter((i) => i.usItemId && i.name)
    .map((i) => {
      const price = typeof i.price === 'number' ? i.price : (i.priceInfo?.currentPrice?.price ?? null);
      return {
        id: String(i.usItemId),
        url: i.canonicalUrl ? (absoluteUrl(i.canonicalUrl, url) ?? null) : null,
        title: String(i.name),
        price: typeof price === 'number' ? price : null,
        currency:
          typeof price === 'number'
            ? (i.priceInfo?.currentPrice?.currencyUnit ?? regionOf('walmart_us').currency)
            : null,
        ...stock(i.availabilityStatusV2?.value ?? i.availabilityStatusDisplayValue),
      };
    });
}

let genericSchema: CompiledSchema | undefined;

export function readListing(
  doc: Document,
  ctx: { marketplace: string; url: string; html: string },
): { products: ListedProduct[]; source: string } {
  const region = regionOf(ctx.marketplace);
  const name = marketplaceName(ctx.marketplace);
  const site =
    name === 'amazon'
      ? amazonCards(doc, ctx.url, region.decimal)
      : name === 'ebay'
        ? ebayCards(doc, ctx.url, region.decimal)
        : name === 'walmart'
          ? walmartStacks(doc, ctx.url)
          : [];
  if (site.length) return { products: site, source: `${name}:result cards` };
  const g = extractFromDocument(doc, {
    schema: (genericSchema ??= compileSchema({
      products: [{ title: 'string', url: 'string', price: 'number', currency: 'string', in_stock: 'boolean' }],
    })),
    url: ctx.url,
    html: ctx.html,
  });
  const items = (g.json.products ?? []) as Record<string, unknown>[];
  return {
    products: items.map((p) => {
      const u = typeof p.url === 'string' ? p.url : null;
      const inStock = typeof p.in_stock === 'boolean' ? p.in_stock : null;
      return {
        id: u ? (productIdFromUrl(ctx.marketplace, u) ?? null) : null,
        url: u,
        title: typeof p.title === 'string' ? p.title : null,
        price: typeof p.price === 'number' ? p.price : null,
        currency: typeof p.currency === 'string' ? p.currency : typeof p.price === 'number' ? region.currency : null,
        availability: inStock === true ? 'in_stock' : inStock === false ? 'out_of_stock' : 'unknown',
        in_stock: inStock,
      };
    }),
    source: g.sources.products ?? 'generic',
  };
}
