/**
 * Best Buy's product page. Canada: the page's own state (`window.__INITIAL_STATE__` →
 * product.product: name, brand, price before and savings, model, rating, images, specs; and
 * product.availability.shipping). United States: the price block's test hooks
 * (`data-testid="price-block-customer-price"`, `…-regular-price` "The price was $…"), the rating
 * line ("Rating 4.7 out of 5 stars with 166 reviews"), the "Model:" / "SKU:" line and the
 * add-to-cart button's `data-button-state`.
 */
import type { Document } from '../document/dom.js';
import { scriptText } from '../document/dom.js';
import { currencyFromText } from '../extract/currency.js';
import { balancedJson } from '../extract/sources/app-state.js';
import { all, attr, first, parsePrice, text } from './dom-helpers.js';
import type { Found, ReaderContext } from './product.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a site's untyped JSON

/** The JSON object assigned after `marker` in the page's scripts (`window.__INITIAL_STATE__ = {…}`). */
function stateAfter(doc: Document, marker: string): Json | undefined {
  for (const s of all(doc, (e) => e.name === 'script')) {
    const src = scriptText(s);
    const i = src.indexOf(marker);
    if (i < 0) continue;
    try {
      return JSON.parse(balancedJson(src, src.indexOf('{', i)) ?? '');
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function readBestBuy(doc: Document, ctx: ReaderContext): Found {
  const values: Found['values'] = {};
  const sources: Record<string, string> = {};
  const set = <K extends keyof Found['values']>(k: K, v: Found['values'][K] | undefined, source: string) => {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length) || values[k] !== undefined) return;
    values[k] = v;
    sources[k] = `bestbuy:${source}`;
  };
  const state = stateAfter(doc, 'window.__INITIAL_STATE__');
  const p = state?.product?.product as Json | undefined;
  if (p) {
    set('title', p.name, '__INITIAL_STATE__.product.name');
    set('brand', p.brandName, '__INITIAL_STATE__.product.brandName');
    set('id', p.sku ? String(p.sku) : undefined, '__INITIAL_STATE__.product.sku');
    set('sku', p.sku ? String(p.sku) : undefined, '__INITIAL_STATE__.product.sku');
    const price = num(p.priceWithoutEhf) ?? num(p.salePrice) ?? num(p.regularPrice);
    set('price', price, '__INITIAL_STATE__.product.priceWithoutEhf');
    if (price !== undefined) set('currency', ctx.region.currency, 'region');
    const saving = num(p.saving);
    if (price !== undefined && saving && saving > 0)
      set('list_price', Math.round((price + saving) * 100) / 100, '__INITIAL_STATE__.product.saving');
    set('model', p.modelNumber, '__INITIAL_STATE__.product.modelNumber');
    set('mpn', p.modelNumber, '__INITIAL_STATE__.product.modelNumber');
    set(
      'gtin',
      Array.isArray(p.upcs) && p.upcs.length ? String(p.upcs[0]) : undefined,
      '__INITIAL_STATE__.product.upcs',
    );
    set('rating', num(p.customerRating), '__INITIAL_STATE__.product.customerRating');
    set('review_count', num(p.customerRatingCount), '__INITIAL_STATE__.product.customerRatingCount');
    set(
      'description',
      typeof p.shortDescription === 'string'
        ? p.shortDescription
            .replace(/<[^>]+>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
        : undefined,
      '__INITIAL_STATE__.product.shortDescription',
    );
    const images = [p.productImage, ...((p.additionalImages ?? []) as unknown[])].filter(
      (u): u is string => typeof u === 'string' && /^https?:/.test(u),
    );
    set('images', images, '__INITIAL_STATE__.product.additionalImages');
    if (p.isMarketplace && p.seller?.name)
      set(
        'seller',
        { name: String(p.seller.name), id: p.seller.id ? String(p.seller.id) : null, rating: null },
        '__INITIAL_STATE__.product.seller',
      );
    const shipping = state?.product?.availability?.shipping as Json | undefined;
    if (typeof shipping?.status === 'string') {
      values.availability_text = p.isPreorderable
        ? 'preorder'
        : shipping.purchasable === false && /instock/i.test(shipping.status)
          ? 'out of stock'
          : shipping.status.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
      sources.availability = 'bestbuy:__INITIAL_STATE__.product.availability.shipping.status';
    }
  }
  // The US page's DOM.
  const customer = first(doc, (e) => e.attribs['data-testid'] === 'price-block-customer-price');
  if (customer) {
    const shown = text(first(customer, (e) => (e.attribs.class ?? '').includes('sr-only')) ?? customer);
    set('price', parsePrice(shown, '.'), '[data-testid=price-block-customer-price]');
    set('currency', currencyFromText(shown, ctx.url), '[data-testid=price-block-customer-price]');
    const was = text(first(doc, (e) => e.attribs['data-testid'] === 'price-block-regular-price'));
    if (/was/i.test(was))
      set('list_price', parsePrice(was.replace(/^[^$\d]*/, ''), '.'), '[data-testid=price-block-regular-price]');
  }
  const rating = first(doc, (e) => (e.attribs.class ?? '').includes('c-ratings-reviews'));
  const r = /Rating ([\d.]+) out of 5 stars with ([\d,]+) reviews?/i.exec(text(rating));
  if (r) {
    set('rating', Number(r[1]), 'rating line');
    set('review_count', Number(r[2].replace(/,/g, '')), 'rating line');
  }
  const modelLine = all(doc, (e) => e.name === 'div' && /^Model:\s*\S/.test(text(e)) && e.children.length <= 2).map(
    (e) => text(e),
  )[0];
  if (modelLine) set('model', /^Model:\s*(\S+)/.exec(modelLine)?.[1], 'Model: line');
  const button = first(doc, (e) => e.name === 'button' && e.attribs['data-button-state'] !== undefined);
  if (button && !values.availability_text) {
    const state = attr(button, 'data-button-state') ?? '';
    values.availability_text = /ADD_TO_CART/.test(state)
      ? 'in stock'
      : /SOLD_OUT|UNAVAILABLE/.test(state)
        ? 'out of stock'
        : /PRE_ORDER/.test(state)
          ? 'preorder'
          : undefined;
    if (values.availability_text) sources.availability = 'bestbuy:[data-button-state]';
  }
  return { values, sources };
}
