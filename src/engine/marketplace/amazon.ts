/**
 * Amazon's product page (every region): the DOM blocks Amazon has kept stable for years —
 * #productTitle, the core price blocks (and older #priceblock_*), #availability, #bylineInfo,
 * #acrPopover / #acrCustomerReviewText, #feature-bullets, the detail and technical tables,
 * #wayfinding-breadcrumbs, the seller box — and, when its scripts are there, the image block
 * (colorImages) and the twister's variation data. Amazon ships no JSON-LD on /dp/ pages.
 */
import type { Document, Element } from '../document/dom.js';
import { scriptText } from '../document/dom.js';
import { currencyFromText } from '../extract/currency.js';
import { all, attr, clean, first, hasClass, indexIds, labelRows, parsePrice, text } from './dom-helpers.js';
import type { Found, ReaderContext, Variant } from './product.js';

const PRICE_IDS = [
  'corePrice_feature_div',
  'corePriceDisplay_desktop_feature_div',
  'corePrice_desktop',
  'apex_desktop',
  'priceblock_dealprice',
  'priceblock_saleprice',
  'priceblock_ourprice',
  'price_inside_buybox',
  'newBuyBoxPrice',
  'kindle-price',
  'price',
];

/** "Visit the SainSmart Store", "Brand: X", "Besuche den X-Store", "Visitez la boutique X", "Visita lo Store di X", "Visita la tienda de X". */
export function brandFromByline(s: string): string | undefined {
  const t = s.replace(/\s+/g, ' ').trim();
  const patterns = [
    /^Visit the (.+?) Store$/i,
    /^(?:Brand|Marke|Marque|Marca|Marchio|ブランド)\s*[:：]\s*(.+)$/i,
    /^Besuche den (.+?)-Store$/i,
    /^Visite[zr] la boutique (.+)$/i,
    /^Visita lo Store di (.+)$/i,
    /^Visita la tienda de (.+)$/i,
  ];
  for (const re of patterns) {
    const m = re.exec(t);
    if (m) return m[1].trim();
  }
  return t && t.length <= 60 && !/\b(?:visit|store|shop)\b/i.test(t) ? t : undefined;
}

/** The first price text inside a price block, skipping struck-through (was/list) prices. */
function priceIn(el: Element): { current?: string; was?: string } {
  const offscreen = all(el, (e) => hasClass(e, 'a-offscreen'));
  let current: string | undefined;
  let was: string | undefined;
  for (const o of offscreen) {
    const holder = o.parent as Element | null;
    const struck = holder && (hasClass(holder, 'a-text-price') || attr(holder, 'data-a-strike') === 'true');
    const t = text(o);
    if (!/\d/.test(t)) continue;
    if (struck) was ??= t;
    else current ??= t;
  }
  if (!current && !offscreen.length && /\d/.test(text(el))) current = text(el);
  return { current, was };
}

function largestImage(dynamic: string | undefined): string | undefined {
  if (!dynamic) return undefined;
  try {
    const sizes = JSON.parse(dynamic) as Record<string, [number, number]>;
    return Object.entries(sizes).sort((a, b) => b[1][0] * b[1][1] - a[1][0] * a[1][1])[0]?.[0];
  } catch {
    return undefined;
  }
}

/** hiRes (else large) URLs of the image block's initial images, from its script. */
function colorImages(doc: Document): string[] {
  for (const s of all(doc, (e) => e.name === 'script')) {
    const src = scriptText(s);
    const i = src.indexOf("'colorImages'");
    if (i < 0) continue;
    const block = src.slice(i, i + 200_000);
    const urls: string[] = [];
    for (const m of block.matchAll(/"hiRes":(?:"([^"]+)"|null),"thumb":"[^"]*","large":"([^"]+)"/g))
      urls.push(m[1] ?? m[2]);
    if (urls.length) return urls;
  }
  return [];
}

/** The twister's variations: ASIN → dimension values, and the dimension names. */
function variants(doc: Document, pageUrl: string): Variant[] {
  for (const s of all(doc, (e) => e.name === 'script')) {
    const src = scriptText(s);
    const d = /"dimensionValuesDisplayData"\s*:\s*(\{[^}]*\})/.exec(src);
    if (!d) continue;
    const names = /"dimensionsDisplay"\s*:\s*(\[[^\]]*\])/.exec(src);
    try {
      const values = JSON.parse(d[1]) as Record<string, string[]>;
      const dims = names ? (JSON.parse(names[1]) as string[]) : [];
      const origin = new URL(pageUrl).origin;
      return Object.entries(values).map(([asin, vals]) => ({
        id: asin,
        attributes: Object.fromEntries(vals.map((v, i) => [dims[i] ?? `option ${i + 1}`, v])),
        price: null,
        in_stock: null,
        url: `${origin}/dp/${asin}`,
      }));
    } catch {
      return [];
    }
  }
  return [];
}

const SPEC_KEYS: [RegExp, 'brand' | 'model' | 'mpn' | 'gtin'][] = [
  [/^(?:brand|marke|marque|marca|marchio|brand name)$/i, 'brand'],
  [
    /^(?:item model number|model number|model name|modellnummer|numéro du modèle de l'article|numéro du modèle|numero modello articolo|numero modello|número de modelo del producto|número de modelo)$/i,
    'model',
  ],
  [
    /^(?:manufacturer part number|part number|herstellerreferenz|référence fabricant|numero parte|número de pieza)$/i,
    'mpn',
  ],
  [/^(?:ean|upc|gtin|isbn-13|ean-13|upc-a)$/i, 'gtin'],
];

export function readAmazon(doc: Document, ctx: ReaderContext): Found {
  const ids = indexIds(doc);
  const values: Found['values'] = {};
  const sources: Record<string, string> = {};
  const set = <K extends keyof Found['values']>(k: K, v: Found['values'][K] | undefined, source: string) => {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length)) return;
    if (values[k] !== undefined) return;
    values[k] = v;
    sources[k] = `amazon:${source}`;
  };

  const asin = attr(ids.get('ASIN') ?? ({ attribs: {} } as Element), 'value');
  set('id', asin && /^[A-Z0-9]{10}$/.test(asin) ? asin : undefined, 'input#ASIN');
  set('title', text(ids.get('productTitle')) || undefined, '#productTitle');

  for (const id of PRICE_IDS) {
    const el = ids.get(id);
    if (!el) continue;
    const { current, was } = priceIn(el);
    const price = parsePrice(current, ctx.region.decimal);
    if (price !== undefined && price > 0) {
      set('price', price, `#${id}`);
      set('currency', currencyFromText(current!, ctx.url), `#${id}`);
      const list = parsePrice(was, ctx.region.decimal);
      set('list_price', list, `#${id} .a-text-price`);
      break;
    }
  }
  if (values.list_price === undefined) {
    for (const id of ['listPrice', 'priceblock_ourprice_lbl', 'corePriceDisplay_desktop_feature_div']) {
      const el = ids.get(id);
      const was = el && first(el, (e) => hasClass(e, 'a-text-price'));
      const list = parsePrice(
        text(was ? (first(was, (e) => hasClass(e, 'a-offscreen')) ?? was) : undefined),
        ctx.region.decimal,
      );
      if (list) {
        set('list_price', list, `#${id}`);
        break;
      }
    }
  }

  const availability = ids.get('availability') ?? ids.get('outOfStock');
  const availabilityText = text(availability);
  if (availabilityText) {
    values.availability_text = availabilityText;
    sources.availability = `amazon:#${attr(availability!, 'id')}`;
  } else if (ids.get('add-to-cart-button') || ids.get('buy-now-button')) {
    values.availability_text = 'add to cart';
    sources.availability = 'amazon:#add-to-cart-button';
  }

  set('brand', brandFromByline(text(ids.get('bylineInfo'))), '#bylineInfo');
  const rating = ids.get('acrPopover');
  set(
    'rating',
    parsePrice(attr(rating ?? ({ attribs: {} } as Element), 'title') ?? text(rating), ctx.region.decimal),
    '#acrPopover',
  );
  const reviews = text(ids.get('acrCustomerReviewText'));
  const count = /[\d.,\s\u00a0]+/.exec(reviews)?.[0].replace(/[^\d]/g, '');
  set('review_count', count ? Number(count) : undefined, '#acrCustomerReviewText');

  const main = largestImage(
    attr(ids.get('landingImage') ?? ids.get('imgBlkFront') ?? ({ attribs: {} } as Element), 'data-a-dynamic-image'),
  );
  const images = [...colorImages(doc)];
  if (main && !images.length) images.push(main);
  set('images', images, images.length > 1 ? 'colorImages' : '#landingImage');

  const bullets = all(ids.get('feature-bullets'), (e) => e.name === 'li' && !attr(e, 'id'))
    .map((li) => text(li))
    .filter((t) => t && !/^(?:make sure this fits|see more product details)/i.test(t));
  set('features', bullets, '#feature-bullets');
  set('description', text(ids.get('productDescription')) || undefined, '#productDescription');

  const specs: Record<string, string> = {};
  for (const id of [
    'productDetails_techSpec_section_1',
    'productDetails_techSpec_section_2',
    'productDetails_detailBullets_sections1',
    'detailBullets_feature_div',
    'technicalSpecifications_section_1',
    'prodDetails',
  ]) {
    for (const [k, v] of labelRows(ids.get(id))) if (!(k in specs) && k.length <= 80 && v.length <= 500) specs[k] = v;
  }
  if (Object.keys(specs).length) {
    values.specifications = specs;
    sources.specifications = 'amazon:#productDetails';
    for (const [k, v] of Object.entries(specs)) {
      for (const [re, field] of SPEC_KEYS)
        if (re.test(clean(k))) set(field, field === 'gtin' ? v.split(/[\s,]+/)[0] : v, `#productDetails:${clean(k)}`);
    }
  }

  const crumbs = all(ids.get('wayfinding-breadcrumbs_feature_div'), (e) => e.name === 'a')
    .map((a) => text(a))
    .filter(Boolean);
  set('categories', crumbs, '#wayfinding-breadcrumbs_feature_div');

  const sellerLink = ids.get('sellerProfileTriggerId');
  const merchant = text(ids.get('merchant-info'));
  if (sellerLink) {
    const sid = /[?&]seller=([A-Z0-9]+)/.exec(attr(sellerLink, 'href') ?? '')?.[1] ?? null;
    values.seller = { name: text(sellerLink) || null, id: sid, rating: null };
    sources.seller = 'amazon:#sellerProfileTriggerId';
  } else if (/amazon/i.test(merchant)) {
    values.seller = { name: /amazon\.[a-z.]+/i.exec(merchant)?.[0] ?? 'Amazon', id: null, rating: null };
    sources.seller = 'amazon:#merchant-info';
  }

  // A page whose only offer is in the used buy box sells a used item.
  const usedOnly = ids.get('usedbuyBox') && !ids.get('add-to-cart-button');
  set(
    'condition',
    usedOnly ? 'used' : ids.get('add-to-cart-button') ? 'new' : undefined,
    usedOnly ? '#usedbuyBox' : '#add-to-cart-button',
  );
  const delivery =
    ids.get('mir-layout-DELIVERY_BLOCK') ?? ids.get('deliveryBlockMessage') ?? ids.get('delivery-message');
  const shipping = text(delivery).slice(0, 300);
  set('shipping', shipping || undefined, '#DELIVERY_BLOCK');

  const v = variants(doc, ctx.url);
  if (v.length) {
    values.variants = v;
    sources.variants = 'amazon:twister';
  }
  if (values.id && !values.sku) set('sku', values.id, 'input#ASIN');
  return { values, sources };
}
