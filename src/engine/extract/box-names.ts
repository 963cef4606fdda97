/**
 * What a box's class/id names say of the values in it: other items (related, navigation,
 * mini-cart), other amounts (shipping, a former price).
 */
import { classWords } from './candidate.js';

/** Words in class names for amounts that are not a price at all (shipping, instalments, savings). */
const OTHER_AMOUNT =
  'saving|savings|save|discount|percent|install|installment|instalment|monthly|finance|financing|shipping|delivery|tax|vat|subtotal|points|reward|coupon|club|member|vip|excl|deposit|credit|' +
  // …instalments and financing in other languages, and prices converted to another currency.
  'rata|rate|raty|cuota|cuotas|parcela|parcelas|mensualite|monatlich|tasso|conv|converted|approx';
/** …and for this item's price at another time or in another role (was, list, bundle). */
const OTHER_PRICE = 'old|was|strike|striked|strikethrough|crossed|msrp|rrp|uvp|before|bundle';
/** Words that only say so next to "price": "list-price", "price-from", but "list-unstyled". */
const NEAR_PRICE_WORDS = 'list|regular|compare|original|orig|per|unit|total|min|max|range|from|net|month|through';
const compound = (words: string) =>
  new RegExp(`^(?:${words})$|^(?:${words})(?:price|amount|value)$|^(?:price|amount)(?:${words})$`);
const AMOUNT_TOKEN = compound(OTHER_AMOUNT);
const FORMER_TOKEN = compound(`${OTHER_PRICE}|${NEAR_PRICE_WORDS}`);
const NEAR_PRICE = new RegExp(`^(?:${NEAR_PRICE_WORDS})$`);

/**
 * How much class/id names say a number is not the current price: 0 for other amounts
 * (shipping, instalments), 0.35 for a former or reference price, 1 otherwise. Names are
 * split into words, so "wrapper" is no "per" and "list-unstyled" no list price.
 */
export function priceNameFactor(names: string): number {
  const tokens = classWords(names);
  let f = 1;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (AMOUNT_TOKEN.test(t)) return 0;
    if (FORMER_TOKEN.test(t) && !NEAR_PRICE.test(t)) f = 0.35;
    // "list price" / "price from"; "price-list" is the list of prices itself.
    else if (NEAR_PRICE.test(t) && (tokens[i + 1] === 'price' || (tokens[i - 1] === 'price' && t !== 'list'))) f = 0.35;
  }
  return f;
}
/**
 * Words (or word beginnings) in class/id names of boxes that hold other things than the
 * page's item. Names are split into words first, so "preview" is no review, "unavailable"
 * no nav and "brothers" no others; "relatedProducts", "also-bought", "mini_cart" still are.
 */
const SIDE_WORDS = [
  'comment',
  'related',
  'recommend',
  'similar',
  'upsell',
  'crosssell',
  'also',
  'others',
  'recent',
  'viewed',
  'sponsor',
  'suggest',
  'accessor',
  'bundle',
  'compare',
  'footer',
  'header',
  'menu',
  'minicart',
  'minibasket',
  'review',
  'rating',
  'bought',
  'together',
];
const SIDE_EXACT = new Set([
  'respond',
  'replies',
  'nav',
  'navbar',
  'navigation',
  'headercart',
  'sidecart',
  'flyoutcart',
  'popupcart',
  'drawercart',
  'cartpopup',
  'cartdrawer',
  'cartflyout',
  'cartpreview',
  'cartsidebar',
  'cartdropdown',
  'cartsummary',
]);
/** Galleries hold the item's own pictures and price as often as other items: side only when they link elsewhere. */
const MOVING_WORDS = ['carousel', 'slider', 'swiper', 'owl', 'slick', 'glide', 'splide'];

/** Words of class/id names, each alone and joined with the next ("cross-sell" → crosssell). */
export function nameWords(names: string): string[] {
  const words = classWords(names);
  const out = [...words];
  for (let i = 0; i + 1 < words.length; i++) out.push(words[i] + words[i + 1]);
  return out;
}

/** Whether class/id names mark a box of other things (related items, navigation, mini-cart…). */
export const isSideName = (names: string) => namesSide(nameWords(names));
export const namesSide = (words: string[]) =>
  words.some((w) => SIDE_EXACT.has(w) || SIDE_WORDS.some((s) => w.startsWith(s)));
export const namesMoving = (words: string[]) => words.some((w) => MOVING_WORDS.some((s) => w.startsWith(s)));

/** Class/id names of elements made for the out-of-stock case: templates the page shows when needed. */
export const UNAVAILABLE_STATE =
  /unavail|outofstock|out-of-stock|out_of_stock|soldout|sold-out|sold_out|notify|backorder/i;
