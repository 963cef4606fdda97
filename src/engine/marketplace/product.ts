/**
 * The product record of POST /v1/marketplace, read layer by layer: the marketplace's own
 * reader (its page structure and embedded state) first, then the generic extractor (JSON-LD,
 * microdata, meta, app state, DOM names) for whatever is left. Every field records its source;
 * what no layer found is null (arrays: []), never guessed.
 */
import type { Document } from '../document/dom.js';
import { extractFromDocument } from '../extract/index.js';
import { compileSchema, type CompiledSchema } from '../extract/schema.js';
import { normaliseCurrency } from '../extract/currency.js';
import { coerceBoolean } from '../extract/coerce.js';
import { productIdFromUrl, regionOf, type Region } from './registry.js';

export type Availability = 'in_stock' | 'out_of_stock' | 'preorder' | 'limited' | 'unknown';

export interface Variant {
  id: string | null;
  attributes: Record<string, string>;
  price: number | null;
  in_stock: boolean | null;
  url: string | null;
}

export interface ProductRecord {
  id: string | null;
  url: string;
  title: string | null;
  price: number | null;
  currency: string | null;
  availability: Availability;
  in_stock: boolean | null;
  brand: string | null;
  list_price: number | null;
  discount_percent: number | null;
  rating: number | null;
  review_count: number | null;
  images: string[];
  description: string | null;
  features: string[];
  specifications: Record<string, string> | null;
  categories: string[];
  seller: { name: string | null; id: string | null; rating: number | null } | null;
  variants: Variant[];
  gtin: string | null;
  mpn: string | null;
  sku: string | null;
  model: string | null;
  condition: string | null;
  shipping: string | null;
}

export const BASIC_FIELDS = ['id', 'url', 'title', 'price', 'currency', 'availability', 'in_stock'] as const;

/** The record's single-valued fields (what a monitor on a marketplace page can watch). */
export const PRODUCT_SCALAR_FIELDS = [
  'id',
  'title',
  'price',
  'currency',
  'availability',
  'in_stock',
  'brand',
  'list_price',
  'discount_percent',
  'rating',
  'review_count',
  'description',
  'gtin',
  'mpn',
  'sku',
  'model',
  'condition',
  'shipping',
] as const;

/** What a reader found: any subset of the record, with the source of each field. */
export interface Found {
  values: Partial<ProductRecord> & { availability_text?: string };
  sources: Record<string, string>;
}

export interface ReaderContext {
  marketplace: string;
  url: string;
  html: string;
  region: Region;
}

export type SiteReader = (doc: Document, ctx: ReaderContext) => Found;

/** The generic extractor's view of a product (fields it can answer from any page). */
const GENERIC_SCHEMA = {
  title: 'string',
  price: 'number',
  currency: 'string',
  availability: 'string',
  in_stock: 'boolean',
  brand: 'string',
  list_price: 'number',
  rating: 'number',
  review_count: 'integer',
  images: ['string'],
  description: 'string',
  categories: ['string'],
  gtin: 'string',
  mpn: 'string',
  sku: 'string',
  model: 'string',
  condition: 'string',
} as const;
let generic: CompiledSchema | undefined;

/**
 * Availability words and schema.org states → the contract's enum: the two states only this enum
 * has (pre-order, few left) first, then the extractor's own in/out-of-stock reading.
 */
export function availabilityOf(text: string | undefined | null, inStock?: boolean | null): Availability {
  const t = (text ?? '').toLowerCase();
  if (t) {
    if (
      /preorder|pre-order|presale|pre-sale|backorder|vorbestell|précommande|precommande|preordina|reserva|予約/.test(t)
    )
      return 'preorder';
    if (
      /limitedavailability|only \d+ left|nur noch \d+|plus que \d+|solo \d+|sólo quedan \d+|quedan \d+|rimang|il en reste|limited stock|low stock|few left/.test(
        t,
      )
    )
      return 'limited';
    const read = /instoreonly/.test(t) || coerceBoolean(t);
    if (read !== undefined) return read ? 'in_stock' : 'out_of_stock';
  }
  if (inStock === true) return 'in_stock';
  if (inStock === false) return 'out_of_stock';
  return 'unknown';
}

const EMPTY: Omit<ProductRecord, 'url'> = {
  id: null,
  title: null,
  price: null,
  currency: null,
  availability: 'unknown',
  in_stock: null,
  brand: null,
  list_price: null,
  discount_percent: null,
  rating: null,
  review_count: null,
  images: [],
  description: null,
  features: [],
  specifications: null,
  categories: [],
  seller: null,
  variants: [],
  gtin: null,
  mpn: null,
  sku: null,
  model: null,
  condition: null,
  shipping: null,
};

const ROOT_CRUMB = /^(?:home|startseite|accueil|inicio|home page|página de inicio|pagina iniziale)$/i;

/** schema.org conditions and the shops' words for them → the page's word, or undefined when it is not a condition. */
export function conditionOf(raw: string): string | undefined {
  const t = raw.trim();
  const schema = /^(?:https?:\/\/schema\.org\/)?(New|Used|Refurbished|Damaged)Condition$/i.exec(t);
  if (schema) return schema[1].toLowerCase();
  return /^(?:brand[- ]new|new|used|pre-?owned|refurbished|renewed|certified refurbished|open[- ]box|like new|very good|good|acceptable|for parts(?: or not working)?|damaged|new with(?:out)? tags|new with(?:out)? box|new other|neu|gebraucht|neuf|occasion|reconditionné|nuovo|usato|ricondizionato|nuevo|usado|reacondicionado)\b/i.test(
    t,
  ) && t.length <= 60
    ? t
    : undefined;
}

const present = (v: unknown) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0) && v !== '';

/**
 * The record for a page: the site reader's values win, the generic extractor fills the rest,
 * then the fields that depend on others are derived (availability ↔ in_stock, discount).
 */
export function readProduct(
  doc: Document,
  ctx: { marketplace: string; url: string; html: string },
  site: SiteReader | undefined,
  mode: 'basic' | 'rich',
): { product: Record<string, unknown>; sources: Record<string, string> } {
  const region = regionOf(ctx.marketplace);
  const rc: ReaderContext = { ...ctx, region };
  const found: Found = site ? site(doc, rc) : { values: {}, sources: {} };
  const out: Record<string, unknown> = { ...EMPTY, url: ctx.url };
  const sources: Record<string, string> = {};
  const { availability_text: availabilityText, ...siteValues } = found.values;
  for (const [k, v] of Object.entries(siteValues)) {
    if (!present(v)) continue;
    out[k] = v;
    if (found.sources[k]) sources[k] = found.sources[k];
  }
  const g = extractFromDocument(doc, {
    schema: (generic ??= compileSchema(GENERIC_SCHEMA)),
    url: ctx.url,
    html: ctx.html,
  });
  for (const [k, v] of Object.entries(g.json)) {
    if (k === 'availability' || !present(v) || present(out[k]) || !(k in out)) continue;
    out[k] = v;
    if (g.sources[k]) sources[k] = g.sources[k];
  }
  // The id the URL carries, confirmed by the page (or the page's own when the URL has none).
  const fromUrl = productIdFromUrl(ctx.marketplace, ctx.url);
  if (!present(out.id) && fromUrl && ctx.html.includes(fromUrl)) {
    out.id = fromUrl;
    sources.id = 'url';
  }
  // Availability: the site's words, else the generic reading (schema.org state or words), else in_stock.
  const words = availabilityText ?? (typeof g.json.availability === 'string' ? g.json.availability : undefined);
  const inStockKnown = typeof out.in_stock === 'boolean' ? (out.in_stock as boolean) : undefined;
  out.availability = availabilityOf(words, inStockKnown);
  if (words) sources.availability = found.sources.availability ?? g.sources.availability ?? 'text';
  if (typeof found.values.in_stock !== 'boolean') {
    out.in_stock =
      out.availability === 'in_stock' || out.availability === 'limited'
        ? true
        : out.availability === 'out_of_stock' || out.availability === 'preorder'
          ? false
          : (inStockKnown ?? null);
    if (out.in_stock === null) delete sources.in_stock;
    else if (words) sources.in_stock = sources.availability;
  }
  if (typeof out.currency === 'string') out.currency = normaliseCurrency(out.currency, ctx.url) ?? null;
  if (out.price !== null && !out.currency) {
    out.currency = region.currency;
    sources.currency = 'region';
  }
  const price = out.price as number | null;
  const list = out.list_price as number | null;
  if (price !== null && list !== null && list > price) {
    out.discount_percent = Math.round(((list - price) / list) * 100);
    sources.discount_percent = 'derived';
  } else if (list !== null && (price === null || list <= price)) {
    // A "list price" not above the price is not a was-price.
    out.list_price = null;
    delete sources.list_price;
  }
  // A count read off a loose element match that is only the rating's own number ("4.3 out of 5") is not a count.
  const rating = out.rating as number | null;
  if (
    typeof out.review_count === 'number' &&
    sources.review_count?.startsWith('css:') &&
    rating !== null &&
    out.review_count === Math.floor(rating)
  ) {
    out.review_count = null;
    delete sources.review_count;
  }
  // A condition is one of the words shops use for it; anything else a name-match found is not one.
  if (typeof out.condition === 'string') {
    const c = conditionOf(out.condition);
    if (c) out.condition = c;
    else {
      out.condition = null;
      delete sources.condition;
    }
  }
  // The root crumb names the site, not a category.
  const host = new URL(ctx.url).hostname.replace(/^www\./, '').split('.')[0];
  out.categories = (out.categories as string[]).filter(
    (c, i) => !(i === 0 && (ROOT_CRUMB.test(c) || c.toLowerCase().replace(/\s+/g, '') === host)),
  );
  out.images = [...new Set(out.images as string[])];
  if (mode === 'basic') {
    const basic: Record<string, unknown> = {};
    for (const k of BASIC_FIELDS) basic[k] = out[k];
    for (const k of Object.keys(sources)) if (!(BASIC_FIELDS as readonly string[]).includes(k)) delete sources[k];
    return { product: basic, sources };
  }
  return { product: out, sources };
}
