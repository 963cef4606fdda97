/**
 * Walmart's item page (/ip/): everything is in the page's own Next.js state
 * (`__NEXT_DATA__` → props.pageProps.initialData.data): `product` (name, brand, priceInfo with
 * current and was price, availabilityStatus, seller, rating, images, category path, variants)
 * and `idml` (specifications, highlights). The DOM is only the fallback's business.
 */
import type { Document } from '../document/dom.js';
import { scriptText } from '../document/dom.js';
import { first } from './dom-helpers.js';
import type { Found, ReaderContext, Variant } from './product.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a site's untyped JSON

const stripTags = (html: unknown) =>
  typeof html === 'string'
    ? html
        .replace(/<[^>]+>/g, ' ')
        .replace(/&nbsp;/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
    : undefined;
const num = (v: unknown) =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() && Number.isFinite(Number(v))
      ? Number(v)
      : undefined;

/** The page's Next.js state (`<script id="__NEXT_DATA__">`). */
export function nextData(doc: Document): Json | undefined {
  const s = first(doc, (e) => e.name === 'script' && e.attribs.id === '__NEXT_DATA__');
  if (!s) return undefined;
  try {
    return JSON.parse(scriptText(s));
  } catch {
    return undefined;
  }
}

function variantsOf(p: Json, origin: string): Variant[] {
  const map = p.variantsMap as Record<string, Json> | undefined;
  if (!map || typeof map !== 'object') return [];
  // variantCriteria names each dimension and its values' ids (e.g. actual_color-black → "Black").
  const names = new Map<string, [string, string]>();
  for (const c of (p.variantCriteria ?? []) as Json[])
    for (const v of (c.variantList ?? []) as Json[]) if (v.id) names.set(v.id, [c.name ?? c.id, v.name ?? v.id]);
  return Object.values(map).map((v) => ({
    id: v.usItemId ?? v.id ?? null,
    attributes: Object.fromEntries(((v.variants ?? []) as string[]).map((id) => names.get(id) ?? [id, id])),
    price: num(v.priceInfo?.currentPrice?.price) ?? null,
    in_stock: typeof v.availabilityStatus === 'string' ? v.availabilityStatus === 'IN_STOCK' : null,
    url: v.usItemId ? `${origin}/ip/${v.usItemId}` : null,
  }));
}

export function readWalmart(doc: Document, ctx: ReaderContext): Found {
  const values: Found['values'] = {};
  const sources: Record<string, string> = {};
  const data = nextData(doc)?.props?.pageProps?.initialData?.data as Json | undefined;
  const p = data?.product as Json | undefined;
  if (!p) return { values, sources };
  const set = <K extends keyof Found['values']>(k: K, v: Found['values'][K] | undefined, path: string) => {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length)) return;
    values[k] = v;
    sources[k] = `walmart:__NEXT_DATA__.product.${path}`;
  };
  set('id', p.usItemId, 'usItemId');
  set('title', p.name, 'name');
  set('brand', p.brand, 'brand');
  set('price', num(p.priceInfo?.currentPrice?.price), 'priceInfo.currentPrice.price');
  set('currency', p.priceInfo?.currentPrice?.currencyUnit, 'priceInfo.currentPrice.currencyUnit');
  set('list_price', num(p.priceInfo?.wasPrice?.price), 'priceInfo.wasPrice.price');
  if (typeof p.availabilityStatus === 'string') {
    values.availability_text = p.preOrder?.isPreOrder
      ? 'preorder'
      : p.availabilityStatus.replace(/_/g, ' ').toLowerCase();
    sources.availability = 'walmart:__NEXT_DATA__.product.availabilityStatus';
  }
  set('rating', num(p.averageRating), 'averageRating');
  set('review_count', num(p.numberOfReviews), 'numberOfReviews');
  set(
    'images',
    ((p.imageInfo?.allImages ?? []) as Json[]).map((i) => i.url).filter((u): u is string => typeof u === 'string'),
    'imageInfo.allImages',
  );
  set('description', stripTags(p.shortDescription) ?? stripTags(data?.idml?.shortDescription), 'shortDescription');
  set(
    'features',
    ((data?.idml?.productHighlights ?? []) as Json[])
      .map((h) => [h.name, h.value].filter(Boolean).join(': '))
      .filter(Boolean),
    'idml.productHighlights',
  );
  const specs = Object.fromEntries(
    ((data?.idml?.specifications ?? []) as Json[])
      .filter((s) => s.name && s.value)
      .map((s) => [String(s.name), String(s.value)]),
  );
  if (Object.keys(specs).length) {
    values.specifications = specs;
    sources.specifications = 'walmart:__NEXT_DATA__.idml.specifications';
  }
  set(
    'categories',
    ((p.category?.path ?? []) as Json[]).map((c) => c.name).filter((n): n is string => typeof n === 'string'),
    'category.path',
  );
  const seller = p.sellerDisplayName ?? p.sellerName;
  if (seller) {
    values.seller = { name: seller, id: p.sellerId ?? null, rating: num(p.sellerAverageRating) ?? null };
    sources.seller = 'walmart:__NEXT_DATA__.product.sellerDisplayName';
  }
  set('gtin', p.upc, 'upc');
  set('model', p.model, 'model');
  set('mpn', p.manufacturerProductId, 'manufacturerProductId');
  set('condition', p.conditionType, 'conditionType');
  set('variants', variantsOf(p, new URL(ctx.url).origin), 'variantsMap');
  return { values, sources };
}
