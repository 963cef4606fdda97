/**
 * Target's product page (/p/…/A-<TCIN>): Target ships no JSON-LD on it; the DOM's `data-test`
 * hooks are stable and name what they hold: product-title, product-price,
 * product-regular-price, rating-stars (its aria-label has rating and count), shopAllBrandLink,
 * the breadcrumb links, the image gallery, the fulfilment buttons (add to cart, or a disabled
 * button / an out-of-stock message), item-details-description.
 */
import type { Document, Element } from '../document/dom.js';
import { currencyFromText } from '../extract/currency.js';
import { all, attr, first, parsePrice, text } from './dom-helpers.js';
import type { Found, ReaderContext } from './product.js';

export function readTarget(doc: Document, ctx: ReaderContext): Found {
  const values: Found['values'] = {};
  const sources: Record<string, string> = {};
  const byTest = new Map<string, Element[]>();
  for (const el of all(doc, (e) => e.attribs['data-test'] !== undefined)) {
    const k = el.attribs['data-test'];
    byTest.set(k, [...(byTest.get(k) ?? []), el]);
  }
  const one = (k: string) => byTest.get(k)?.[0];
  const set = <K extends keyof Found['values']>(k: K, v: Found['values'][K] | undefined, hook: string) => {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length) || values[k] !== undefined) return;
    values[k] = v;
    sources[k] = `target:[data-test=${hook}]`;
  };
  set('title', text(one('product-title')) || undefined, 'product-title');
  const shown = text(one('product-price'));
  set('price', parsePrice(shown, '.'), 'product-price');
  set('currency', shown ? currencyFromText(shown, ctx.url) : undefined, 'product-price');
  set('list_price', parsePrice(text(one('product-regular-price')), '.'), 'product-regular-price');
  const stars = attr(one('rating-stars') ?? ({ attribs: {} } as Element), 'aria-label') ?? '';
  const r = /([\d.]+) out of 5 stars(?: with ([\d,]+) reviews?)?/i.exec(stars);
  if (r) {
    set('rating', Number(r[1]), 'rating-stars');
    if (r[2]) set('review_count', Number(r[2].replace(/,/g, '')), 'rating-stars');
  }
  set('brand', text(one('shopAllBrandLink')).replace(/^shop all\s+/i, '') || undefined, 'shopAllBrandLink');
  set(
    'categories',
    (byTest.get('@web/Breadcrumbs/BreadcrumbLink') ?? []).map((a) => text(a)).filter(Boolean),
    '@web/Breadcrumbs/BreadcrumbLink',
  );
  set('description', text(one('item-details-description')) || undefined, 'item-details-description');
  const images = [...byTest.entries()]
    .filter(([k]) => /^image-gallery-item-\d+$/.test(k))
    .flatMap(([, els]) => els)
    .map((el) => {
      const img = first(el, (e) => e.name === 'img');
      const bg = /url\(["']?([^"')]+)["']?\)/.exec(
        JSON.stringify(el.attribs) +
          (first(el, (e) => /background-image/.test(e.attribs.style ?? ''))?.attribs.style ?? ''),
      )?.[1];
      return (img && (attr(img, 'src') ?? attr(img, 'data-src'))) || bg;
    })
    .filter((u): u is string => !!u && /^https?:/.test(u))
    .map((u) => u.replace(/\?.*$/, ''));
  set('images', images, 'image-gallery-item');
  // Stock: an enabled add-to-cart on any fulfilment button; an out-of-stock message says otherwise.
  const buttons = ['orderPickupButton', 'shippingButton', 'scheduledDeliveryButton', 'shipItButton'].flatMap(
    (k) => byTest.get(k) ?? [],
  );
  const soldOut = text(one('outOfStockMessage') ?? one('soldOutMessage') ?? one('NonbuyableSection'));
  if (soldOut) {
    values.availability_text = 'out of stock';
    sources.availability = 'target:[data-test=outOfStockMessage]';
  } else if (buttons.length) {
    const enabled = buttons.some(
      (b) => /add to cart/i.test(text(b)) && b.attribs.disabled === undefined && b.attribs['aria-disabled'] !== 'true',
    );
    values.availability_text = enabled ? 'in stock' : 'out of stock';
    sources.availability = `target:[data-test=${buttons[0].attribs['data-test']}]`;
  }
  const tcin = /A-(\d{5,12})/.exec(ctx.url)?.[1];
  if (tcin && ctx.html.includes(tcin) && values.id === undefined) {
    values.id = tcin;
    sources.id = 'url';
  }
  return { values, sources };
}
