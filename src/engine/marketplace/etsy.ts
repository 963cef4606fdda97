/**
 * Etsy's listing page (/listing/<id>, every region on www.etsy.com): the buy box's price region
 * (`data-buy-box-region="price"`: the price the shopper pays in their currency, VAT included in
 * the EU, a struck original price on sale, a stock note) and its add-to-cart form; the shop's
 * name and id from the page's state. JSON-LD's offer (often without VAT, in another currency)
 * is the generic layer's fallback.
 */
import type { Document } from '../document/dom.js';
import { currencyFromText } from '../extract/currency.js';
import { all, first, hasClass, parsePrice, text } from './dom-helpers.js';
import type { Found, ReaderContext } from './product.js';

export function readEtsy(doc: Document, ctx: ReaderContext): Found {
  const values: Found['values'] = {};
  const sources: Record<string, string> = {};
  const region = first(doc, (e) => e.attribs['data-buy-box-region'] === 'price');
  if (region) {
    const priceTexts = all(region, (e) => e.name === 'p' || e.name === 'span')
      .map((e) => ({ el: e, t: text(e) }))
      .filter((x) => /\d/.test(x.t) && currencyFromText(x.t, ctx.url));
    const struck = priceTexts.find(
      (x) =>
        hasClass(x.el, 'wt-text-strikethrough') ||
        /original|precio original|prix d'origine|ursprünglicher preis/i.test(x.t),
    );
    const current = priceTexts.find((x) => x !== struck && !hasClass(x.el, 'wt-text-strikethrough'));
    const price = parsePrice(current?.t, ctx.region.decimal);
    if (price !== undefined) {
      values.price = price;
      values.currency = currencyFromText(current!.t, ctx.url);
      sources.price = sources.currency = 'etsy:[data-buy-box-region=price]';
    }
    const was = parsePrice(struck?.t, ctx.region.decimal);
    if (was !== undefined) {
      values.list_price = was;
      sources.list_price = 'etsy:[data-buy-box-region=price] (original price)';
    }
    const note = text(region);
    if (/sold out|agotado|ausverkauft|épuisé|esaurito/i.test(note)) values.availability_text = 'out of stock';
    else if (/only \d+ left|solo queda|nur noch \d+|plus que \d+/i.test(note))
      values.availability_text = 'only few left';
    else if (/in stock|en stock|auf lager|disponibile/i.test(note)) values.availability_text = 'in stock';
    if (values.availability_text) sources.availability = 'etsy:[data-buy-box-region=price]';
  }
  if (
    !values.availability_text &&
    first(doc, (e) => e.name === 'form' && e.attribs['data-buy-box-add-to-cart-form'] !== undefined)
  ) {
    values.availability_text = 'in stock';
    sources.availability = 'etsy:add-to-cart form';
  }
  // The shop: named in the page's state next to its id.
  const state =
    /"shop_id":(\d+),"shop_name":"([^"]{1,80})"/.exec(ctx.html) ?? /"shop_name":"([^"]{1,80})"/.exec(ctx.html);
  if (state) {
    values.seller =
      state.length === 3 ? { name: state[2], id: state[1], rating: null } : { name: state[1], id: null, rating: null };
    sources.seller = 'etsy:page state shop_name';
  }
  // (The title is the generic layer's: the page's first h1 can be its privacy dialog's.)
  return { values, sources };
}
