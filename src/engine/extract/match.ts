/**
 * Picking a value for a schema field from the candidates. Each candidate is scored:
 *   collector confidence × name match × nesting (is it under a container this field may
 *   live in?) × entity (the page's main item, or an Organization/Review/Breadcrumb?) ×
 *   document position × role checks (a crossed-out "was" price, an id with spaces) —
 * and the best one whose value coerces to the declared type wins.
 */
import type { Element } from '../document/dom.js';
import { isHiddenInPage } from '../document/visibility.js';
import { classWords, norm, type Candidate } from './candidate.js';
import { coerce, coerceBoolean, parseNumber } from './coerce.js';
import { currencyFromText, normaliseCurrency } from './currency.js';
import { normaliseDate } from './dates.js';
import { isSiteName } from './sources/document.js';
import type { ScalarType } from './schema.js';
import { GENERIC_NAMES, vocabularyFor, type FieldVocabulary } from './vocabulary.js';

/** Entities whose values describe something other than the page's subject. */
const SIDE_ENTITIES = new Set([
  'organization',
  'website',
  'breadcrumblist',
  'listitem',
  'searchaction',
  'person',
  'imageobject',
  'sitenavigationelement',
  'review',
  'rating',
  'localbusiness',
  'store',
  'brand',
  'wpheader',
  'wpfooter',
  'corporation',
  'onlinestore',
  'question',
  'answer',
  'videoobject',
  'comment',
  'entrypoint',
  'readaction',
  'contactpoint',
  'postaladdress',
  'twitter',
  // A blog's own name and its sidebar are the site's, not the post's.
  'blog',
  'wpsidebar',
  'wpadblock',
  // A list's own name titles a widget ("Popular articles"); its items are read as arrays.
  'itemlist',
]);
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
function priceNameFactor(names: string): number {
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
function nameWords(names: string): string[] {
  const words = classWords(names);
  const out = [...words];
  for (let i = 0; i + 1 < words.length; i++) out.push(words[i] + words[i + 1]);
  return out;
}

/** Whether class/id names mark a box of other things (related items, navigation, mini-cart…). */
export const isSideName = (names: string) => namesSide(nameWords(names));
const namesSide = (words: string[]) => words.some((w) => SIDE_EXACT.has(w) || SIDE_WORDS.some((s) => w.startsWith(s)));
const namesMoving = (words: string[]) => words.some((w) => MOVING_WORDS.some((s) => w.startsWith(s)));
const SKU_VOCAB = vocabularyFor('sku');
/** Class/id names of elements made for the out-of-stock case: templates the page shows when needed. */
export const UNAVAILABLE_STATE =
  /unavail|outofstock|out-of-stock|out_of_stock|soldout|sold-out|sold_out|notify|backorder/i;
const HIDDEN_ID = 0.6;
const DOM_ID = 2.2;

/** Whether `token` appears in `text` as a whole word (not inside a longer code). */
function showsToken(text: string, token: string): boolean {
  for (let i = text.indexOf(token); i >= 0; i = text.indexOf(token, i + 1)) {
    const before = text[i - 1];
    const after = text[i + token.length];
    if (
      (before === undefined || !/[\p{L}\p{N}]/u.test(before)) &&
      (after === undefined || !/[\p{L}\p{N}]/u.test(after))
    )
      return true;
  }
  return false;
}

/** UPC-A, EAN-13, GTIN-14 with a valid check digit (8-digit codes are too often shop codes). */
export function isGtin(s: string): boolean {
  if (!/^\d{12,14}$/.test(s)) return false;
  const digits = [...s].map(Number);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce((acc, d, i) => acc + d * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

const TITLE_FIELDS = new Set(['title', 'name', 'headline'].map((f) => vocabularyFor(f)));
const SHORT_TEXT_FIELDS = new Set(['brand', 'color', 'model', 'condition', 'seller'].map((f) => vocabularyFor(f)));
const ID_SHAPE = /^(?=.*[0-9])[A-Za-z0-9][A-Za-z0-9._\-/#]{1,63}$|^[A-Z0-9]{6,40}$/;

export interface MatchContext {
  /** Id-like parts of the page URL: an identifier the URL repeats is the page's own. */
  urlTokens?: Set<string>;
  /** `kind:entityIndex` of the entity that answers most of the schema (the page's subject). */
  primary?: string;
  /** Number of elements in the document, to weigh positions. */
  totalOrder: number;
  /** The text a reader sees (body text, no scripts), read lazily for identifier checks. */
  visibleText?: () => string;
  /** Regular prices the page's own markup marks down (lazily computed). */
  markedDown?: () => Set<number>;
  /** Amounts the page labels as an auction's starting or reserve price (lazily computed). */
  startingPrices?: () => Set<number>;
  /** Prices the page shows as former ones (lazily computed from the candidates). */
  formerPrices?: () => Set<number>;
  /** The page's URL: a card linking to it is the item itself. */
  pageUrl?: string;
  /** The page's h1 and its ancestors: containers shared with the title are the main item's. */
  titleRegion?: Set<Element>;
  /** The text of the page's h1 and title (lazily read): names are spelled there as the shop spells them. */
  titleText?: () => string;
}

export interface Picked {
  value: unknown;
  source: string;
  candidate: Candidate;
  score: number;
}

const groupOf = (c: Candidate) => (c.entityIndex !== undefined ? `${c.kind}:${c.entityIndex}` : undefined);

function nameWeight(c: Candidate, v: FieldVocabulary): number {
  const last = c.path[c.path.length - 1];
  if (last === undefined) return 0;
  const exact = v.names.get(last);
  if (exact) return exact;
  // brand.name, seller.name, author.name: a named thing stands for itself.
  if ((last === 'name' || last === 'title') && c.path.length >= 2) {
    const owner = v.names.get(c.path[c.path.length - 2]);
    if (owner) return owner * 0.95;
  }
  if (c.kind !== 'dom') return 0;
  // Class and id tokens are compound ("product-price__value"): containment, trusted less.
  // "available" is left out: it is inside "unavailable".
  let best = 0;
  for (const [n, w] of v.names)
    if (n.length >= 3 && w >= 0.9 && !GENERIC_NAMES.has(n) && last.includes(n)) best = Math.max(best, w * 0.85);
  return best;
}

function nestingFactor(c: Candidate, v: FieldVocabulary, parents: string[]): number {
  const inner = c.path.slice(0, -1);
  if (!parents.length) {
    if (!inner.length) return 1;
    // Direct properties of the item win over the same name on a variant offer.
    return inner.every((seg) => v.containers.has(seg)) ? 0.97 : 0.45;
  }
  // A nested field (seller.name) wants its parent's name somewhere above the value.
  const parentNames = vocabularyFor(parents[parents.length - 1]).names;
  return inner.some((seg) => parentNames.has(seg)) ? 1 : 0.25;
}

function entityFactor(c: Candidate, ctx: MatchContext, parents: string[], v: FieldVocabulary): number {
  // A Brand entity is no side matter for a field named brand.
  if (c.entity && SIDE_ENTITIES.has(c.entity) && !parents.length && !v.names.has(c.entity)) return 0.35;
  const g = groupOf(c);
  if (g && ctx.primary && (c.kind === 'json-ld' || c.kind === 'microdata' || c.kind === 'rdfa'))
    return g === ctx.primary ? 1.15 : 0.75;
  return 1;
}

/**
 * Whether a container around a value names itself a side box (related items, mini-cart,
 * navigation), looking up to where the value joins the page's title: the product's own
 * header ("aa_header") holds the h1 and is no side box. A slider counts only when it links
 * to other pages; the item's own gallery does not.
 */
function inSideBox(el: Element | undefined, ctx: MatchContext): boolean {
  for (let n: Element | null | undefined = el, i = 0; n && i < 12; n = n.parent as Element | null, i++) {
    if (n.name === 'body' || n.name === 'html' || ctx.titleRegion?.has(n)) break;
    const names = n.attribs ? `${n.attribs.class ?? ''} ${n.attribs.id ?? ''}` : '';
    if (names.length < 2) continue;
    const words = nameWords(names);
    if (namesSide(words)) return true;
    if (namesMoving(words) && linksElsewhere(n, ctx.pageUrl)) return true;
  }
  return false;
}

/**
 * Whether a value sits in one of several look-alike cards that link to other pages: the
 * "similar products" grid under a product, whatever language its heading is in. The main
 * item is one of a kind, and a card that holds the page's h1 is its own.
 */
function inOtherItemCard(el: Element | undefined, ctx: MatchContext): boolean {
  for (let n: Element | null | undefined = el, i = 0; n && i < 7; n = n.parent as Element | null, i++) {
    if (n.name === 'body' || n.name === 'html' || ctx.titleRegion?.has(n)) return false;
    const parent = n.parent as Element | null;
    if (!parent || !n.attribs?.class) continue;
    if (alikeNeighbours(n) >= 2 && linksElsewhere(n, ctx.pageUrl)) return true;
  }
  return false;
}

/** Siblings near `n` (up to 24 on each side: cards of a grid sit together) of its tag and class, counted to 2. */
function alikeNeighbours(n: Element): number {
  let alike = 0;
  for (const side of ['prev', 'next'] as const) {
    let sib = n[side];
    for (let k = 0; sib && k < 24; sib = sib[side], k++) {
      if (
        sib.type === 'tag' &&
        (sib as Element).name === n.name &&
        (sib as Element).attribs.class === n.attribs.class &&
        ++alike >= 2
      )
        return alike;
    }
  }
  return alike;
}

function linksElsewhere(root: Element, pageUrl: string | undefined): boolean {
  const here = pathOf(pageUrl);
  const stack: Element[] = [root];
  for (let seen = 0; stack.length && seen < 200; seen++) {
    const n = stack.pop()!;
    const href = n.name === 'a' ? n.attribs.href : undefined;
    if (href && !href.startsWith('#') && !href.startsWith('javascript:')) {
      const there = pathOf(href, pageUrl);
      if (there !== undefined && there !== here) return true;
    }
    for (const c of n.children) if (c.type === 'tag') stack.push(c as Element);
  }
  return false;
}

/** The path of `url` (resolved against `base`), or undefined when it is no URL. */
function pathOf(url: string | undefined, base?: string): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url, base).pathname;
  } catch {
    return undefined;
  }
}

function ancestorsNames(el: Element | undefined, levels: number): string {
  let s = '';
  for (let n: Element | null | undefined = el, i = 0; n && i < levels; n = n.parent as Element | null, i++) {
    // The page's own classes ("header-transparent", "hidden-menu") say nothing about one value.
    if (n.name === 'body' || n.name === 'html') break;
    if (n.attribs) s += ` ${n.attribs.class ?? ''} ${n.attribs.id ?? ''}`;
  }
  return s;
}

/** Numbers the page shows as a former or reference price (struck through, "old", "was"). */
export function formerPriceValues(candidates: Candidate[]): Set<number> {
  const out = new Set<number>();
  for (const c of candidates) {
    if (c.kind !== 'dom' || !c.el || c.source.startsWith('css:[')) continue;
    const n = parseNumber(c.value);
    if (n === undefined) continue;
    const f = priceNameFactor(ancestorsNames(c.el, 3));
    if ((f > 0 && f < 1) || isStruck(c.el)) out.add(n);
  }
  return out;
}

/**
 * Labels of an auction's reference amounts: what bidding started at (or must reach) is not
 * what the item goes for now — the current bid the page shows is.
 */
const STARTING_AMOUNT_LABEL =
  /(?:\b(?:starting|opening|start|minimum|min\.?|reserve)\s+(?:price|bid)|startpreis|startgebot|mindestgebot|prix de d[ée]part|mise [àa] prix|precio (?:de salida|inicial)|puja m[íi]nima|prezzo (?:di partenza|base)|base d'asta|cena wywo[łl]awcza)\s*[:：]?\s*((?:[^\s\d]{1,4}\s?)?\d[\d.,\u00a0 ]*)/gi;

/** Amounts the page's text labels as an auction's starting, minimum or reserve price. */
export function startingPriceValues(text: string): Set<number> {
  const out = new Set<number>();
  for (const m of text.matchAll(STARTING_AMOUNT_LABEL)) {
    const n = parseNumber(m[1]);
    if (n !== undefined && n > 0) out.add(n);
  }
  return out;
}

const REGULAR_PRICE_NAME =
  /^(?:standard(?:amount|price)?|regular(?:price)?|original(?:price)?|listprice|wasprice|oldprice|msrp|rrp|compareatprice|strikethroughprice)$/;
const CURRENT_PRICE_NAME =
  /^(?:price|saleprice|sale|specialprice|finalprice|currentprice|offerprice|promoprice|pricenow|now)$/;

/**
 * Regular prices that the same markup marks down: `og:price:standard_amount` 150 next to
 * `product:price:amount` 120, or one JSON-LD item with `price` and a lower `salePrice`.
 * A structured price equal to such a regular price is the pre-sale one.
 */
export function markedDownPrices(candidates: Candidate[]): Set<number> {
  const byGroup = new Map<string, { regular: number[]; current: number[] }>();
  for (const c of candidates) {
    if (c.kind !== 'meta' && c.kind !== 'json-ld' && c.kind !== 'microdata' && c.kind !== 'rdfa') continue;
    const n = parseNumber(c.value);
    const last = c.path[c.path.length - 1];
    if (n === undefined || n <= 0 || !last) continue;
    const key = c.kind === 'meta' ? 'meta' : `${c.kind}:${c.entityIndex ?? ''}`;
    const g = byGroup.get(key) ?? { regular: [], current: [] };
    byGroup.set(key, g);
    if (REGULAR_PRICE_NAME.test(last)) g.regular.push(n);
    else if (CURRENT_PRICE_NAME.test(last) && !c.path.some((p) => REGULAR_PRICE_NAME.test(p))) g.current.push(n);
  }
  const out = new Set<number>();
  for (const g of byGroup.values()) for (const r of g.regular) if (g.current.some((cur) => cur < r)) out.add(r);
  return out;
}

function roleFactor(c: Candidate, v: FieldVocabulary, type: ScalarType, ctx: MatchContext): number {
  const structured = c.kind === 'json-ld' || c.kind === 'microdata' || c.kind === 'rdfa' || c.kind === 'meta';
  switch (v.role) {
    case 'price': {
      const n = parseNumber(c.value);
      if (n === undefined || n <= 0 || n > 1e9) return 0;
      // An auction's markup often carries the starting price; the page shows the current bid.
      if (structured) return ctx.startingPrices?.().has(n) ? 0.2 : ctx.markedDown?.().has(n) ? 0.5 : 1;
      let f = 1;
      const own = ancestorsNames(c.el, 3);
      f *= priceNameFactor(own);
      if (!f) return 0;
      // Prices of other products (carousels, "similar items" cards) are never this one's:
      // no price beats a wrong one.
      if (inSideBox(c.el, ctx) || inOtherItemCard(c.el, ctx)) return 0;
      const raw = String(c.raw ?? c.value);
      if (!/\d/.test(raw)) return 0;
      if (currencyFromText(raw)) f *= 1.15;
      if (raw.length > 40) f *= 0.5;
      if (c.el && isStruck(c.el)) f *= 0.2;
      // A machine value (data-price, script) equal to the price the page shows crossed out
      // or as "old" is that old price.
      if ((c.kind === 'app-state' || c.source.startsWith('css:[')) && ctx.formerPrices?.().has(n)) f *= 0.35;
      return f;
    }
    case 'identifier': {
      const s = String(Array.isArray(c.value) ? c.value[0] : c.value).trim();
      if (!ID_SHAPE.test(s) || s.length < 2) return 0;
      // UUIDs and session-like tokens are internal ids, not product codes.
      if (/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/i.test(s) || s.length > 40) return 0;
      const inUrl = c.kind !== 'url' && ctx.urlTokens?.has(s.toLowerCase()) ? 1.6 : 1;
      // A shop's own code beats a barcode number for an "sku" (GTINs are their own field).
      const barcode = v === SKU_VOCAB && isGtin(s) ? 0.5 : 1;
      if (!structured && inSideBox(c.el, ctx)) return 0.3 * inUrl * barcode;
      // A code the page shows under its own label ("Product code: 123") is the one shoppers
      // and the shop's search use; markup often carries a variant or internal id instead.
      if ((c.kind === 'label' || c.kind === 'text') && (v.names.get(c.path[c.path.length - 1]) ?? 0) >= 0.9)
        return 2.8 * inUrl * barcode;
      // A code only machines see (markup, scripts, attributes) loses to one the page shows:
      // a variant or database id rarely is what the shop prints as the product's code.
      const shown = c.kind === 'url' || !ctx.visibleText || showsToken(ctx.visibleText(), s);
      // An element named for the code ("product-reference", "sku") that shows it is the
      // page's own statement, like a label.
      if (
        c.kind === 'dom' &&
        shown &&
        !c.source.startsWith('css:[') &&
        (v.names.get(c.path[c.path.length - 1]) ?? 0) >= 0.9
      )
        return DOM_ID * inUrl * barcode;
      return inUrl * barcode * (shown ? 1 : HIDDEN_ID);
    }
    case 'availability': {
      const b = coerceBoolean(c.value);
      if (type === 'boolean' && b === undefined) return 0;
      if (structured) return 1;
      if (inSideBox(c.el, ctx)) return 0.3;
      // A hidden box is a state the page may show later ("back in stock" pop-ups), not what it says now.
      if (c.el && c.kind === 'dom' && isHiddenInPage(c.el)) return 0;
      // An element named for the out-of-stock case is a template the page shows when needed.
      if (UNAVAILABLE_STATE.test(ancestorsNames(c.el, 2))) return 0.1;
      return 1;
    }
    case 'currency':
      if (!normaliseCurrency(String(c.value))) return 0;
      // A currency picker in the page header or menu is the site's setting, not the item's price.
      return !structured && inSideBox(c.el, ctx) ? 0 : 1;
    case 'date': {
      // Only text that holds a whole date answers ("28" or "12:55 AM" do not).
      if (type === 'string' && normaliseDate(Array.isArray(c.value) ? c.value[0] : c.value) === undefined) return 0;
      if (!structured && inSideBox(c.el, ctx)) return 0.3;
      return 1;
    }
    case 'text': {
      const s = typeof c.value === 'string' ? c.value : typeof c.value === 'number' ? String(c.value) : '';
      // Template placeholders that were never filled in ("$metabrand", "{{ brand }}").
      if (/^\s*(?:\$[a-z_]\w*|\{\{[^}]*\}\}|\[\[[^\]]*\]\]|%[a-z_]+%)\s*$/i.test(s)) return 0;
      if (s.length > 2000) return 0.3;
      // A link is no name, title or author (article:author is often a profile URL).
      if (/^\s*(?:https?:\/\/|www\.)\S+\s*$/i.test(s)) return 0;
      // Scripts' enum values and variable names ("EXPANDED", "cvAuthor") are no person's name.
      if (
        isAuthorField(v) &&
        (c.kind === 'app-state' || c.source.startsWith('script:')) &&
        /^\s*(?:[a-z]+[A-Z]\w*|[A-Z_]{3,})\s*$/.test(s)
      )
        return 0;
      // "Last Updated: January 7, 2025" is a date line, not a byline.
      if (isAuthorField(v) && /^\s*(?:last\s+)?(?:updated|published|posted|modified)\b(?!\s+by\b)/i.test(s)) return 0;
      // The site's own name ("eHow" in a logo's itemprop) is no page's title.
      if (TITLE_FIELDS.has(v) && ctx.pageUrl && isSiteName(s, ctx.pageUrl)) return 0.1;
      // An element holding a menu ("Shop Our Sites" with links to sister shops) names no brand.
      if (!structured && SHORT_TEXT_FIELDS.has(v) && c.el && holdsMenu(c.el)) return 0;
      // Text in menus and boxes of other items (a brand list, a related product's colour, a
      // navigation link's label) belongs to something else: none beats a wrong one, as for prices.
      if (!structured && inSideBox(c.el, ctx)) return 0;
      // Short named things (brand, colour, model) from page text must be short.
      if (!structured && SHORT_TEXT_FIELDS.has(v) && (s.length > 60 || s.split(/\s+/).length > 6)) return 0.2;
      // A link or heading that says "Brands" / "All brands" names the field, not a value.
      if (SHORT_TEXT_FIELDS.has(v) && namesField(s, v)) return 0;
      return 1;
    }
    default:
      return 1;
  }
}

/**
 * `name` as `text` writes it, when the text holds the same letters and digits with other
 * spacing or punctuation ("TP Link" → "TP-Link"); otherwise `name` unchanged.
 */
function spelledAsShown(name: string, text: string): string {
  const chars = [...name.replace(/[^\p{L}\p{N}]/gu, '')];
  if (chars.length < 2 || chars.length > 40) return name;
  const esc = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?<![\\p{L}\\p{N}])${chars.map(esc).join('[\\s\\-_./&+]?')}(?![\\p{L}\\p{N}])`, 'iu').exec(
    text,
  );
  return m && m[0].toLowerCase() !== name.toLowerCase() ? m[0] : name;
}

/** A nav element or three links inside: a menu, not one value. */
function holdsMenu(el: Element): boolean {
  let links = 0;
  const stack = [...el.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type !== 'tag') continue;
    const e = n as Element;
    if (e.name === 'nav' || (e.name === 'a' && ++links >= 3)) return true;
    for (const c of e.children) stack.push(c);
  }
  return false;
}

function namesField(value: string, v: FieldVocabulary): boolean {
  const n = norm(value)
    .replace(/^(?:all|shopby|shopall|our|see|view)/, '')
    .replace(/e?s$/, '');
  return v.names.has(n) || v.names.has(`${n}s`);
}

function isStruck(el: Element): boolean {
  for (let n: Element | null = el, i = 0; n && i < 4; n = n.parent as Element | null, i++) {
    if (n.name === 's' || n.name === 'del' || n.name === 'strike') return true;
    if (/line-through/.test(n.attribs?.style ?? '')) return true;
  }
  return false;
}

function positionFactor(c: Candidate, ctx: MatchContext): number {
  // Markup meant for machines says what it describes; only page text is judged by position.
  if (c.order === undefined || c.kind === 'json-ld' || c.kind === 'microdata' || c.kind === 'rdfa' || c.kind === 'meta')
    return 1;
  return 1 - 0.3 * Math.min(1, c.order / Math.max(1, ctx.totalOrder));
}

export function scoreCandidate(
  c: Candidate,
  field: string,
  parents: string[],
  type: ScalarType,
  ctx: MatchContext,
): number {
  const v = vocabularyFor(field);
  const nw = nameWeight(c, v);
  if (!nw) return 0;
  return (
    c.confidence *
    nw *
    nestingFactor(c, v, parents) *
    entityFactor(c, ctx, parents, v) *
    positionFactor(c, ctx) *
    roleFactor(c, v, type, ctx)
  );
}

export function coerceFor(c: Candidate, field: string, type: ScalarType, pageUrl?: string): unknown {
  const v = vocabularyFor(field);
  const raw = Array.isArray(c.value) ? c.value[0] : c.value;
  if (v.role === 'currency' && type === 'string') return normaliseCurrency(String(raw), pageUrl);
  if (v.role === 'date' && type === 'string') return normaliseDate(raw);
  // "EAN: 6935364088101." — the full stop ends the sentence, not the code.
  if (v.role === 'identifier' && type === 'string')
    return String(raw)
      .trim()
      .replace(/(?<=[\p{L}\p{N}])[.,;:]+$/u, '');
  const value = coerce(raw, type);
  if (typeof value === 'string' && v === BRAND_VOCAB && c.kind !== 'json-ld') return cleanBrand(value);
  if (typeof value === 'string' && isAuthorField(v)) return cleanByline(value);
  // "Acme Kettle —": a separator the page put after a name is not part of it.
  if (typeof value === 'string' && v.role === 'text' && c.kind === 'dom')
    return value.replace(TRAILING_SEPARATOR, '') || value;
  return value;
}

const BRAND_VOCAB = vocabularyFor('brand');

/** Page text around a brand name: "Visit the Acme Store", "Shop all Acme", "Brand: Acme", "by Acme". */
export function cleanBrand(s: string): string | undefined {
  const t = s
    .replace(/^visit the (.+?) store$/i, '$1')
    .replace(/^(?:shop all|shop|more from|see all|view all|all)\s+(.+)$/i, '$1')
    // "Ver mais artigos da Marca: Roborock", "Brand: Acme": the name after the label.
    .replace(/^(?:.*\s)?(?:brand|marque|marca|marke|merk|marka|značka|бренд|марка)\s*[:：]\s*(?=\S)/iu, '')
    .replace(/^by\s+/i, '')
    .trim();
  return t || undefined;
}

/** Fields that hold a byline: author and the names schemas give it (authors, byline, author_name). */
export const isAuthorField = (v: FieldVocabulary) => v.names.has('author');

/** A separator a page puts after a name ("Nicolas Perriault —"). */
const TRAILING_SEPARATOR = /\s+[—–\-|·•,:]+$/u;

/** Words of a byline that are not the name: "By", a job title, a date, "1 day ago". */
const BYLINE_LEAD =
  /^(?:(?:posted|written|words|text|story|reported|report|photos?)\s+)?(?:by|von|par|por|di|door|av|af|autor|autora|texto?|текст|автор)\s*[:：]?\s+(?=\S)/iu;
const BYLINE_TAIL = [
  /\s+[|·•—–]\s+.*$/u,
  /\s+(?:published|updated|posted|last updated)\b.*$/i,
  /,?\s+\d+\s+(?:min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago$/i,
  /,?\s+(?:on\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}\b.*$/i,
  // "TOM KRISHER, AP Auto Writer": the role after the comma…
  /,\s+[^,]*\b(?:writer|editor|correspondent|reporter|columnist|contributor|staff|bureau)\b.*$/i,
  // …or right after the name ("Meg James Staff Writer", "… LAWLESS Associated Press").
  /\s+(?:(?:staff|senior|chief|contributing|special|associate|assistant|business|political|politics|national|international|world|metro|local|city|investigative|breaking|digital|video|photo|features?|sports?|science|tech|technology|health|medical|auto|legal|economics|finance|markets|money|energy|climate|environment|education|culture|arts|music|film|games|gaming|entertainment|travel|food|style|fashion|opinion|weather|managing|deputy|executive|news)\s+){0,2}(?:writer|editor|correspondent|reporter|columnist|contributor)s?$/i,
  /\s+(?:the\s+)?(?:associated press|reuters|afp|bloomberg)$/i,
];

/** The name(s) in a byline: "By TOM KRISHER, AP Auto Writer" → "TOM KRISHER". */
export function cleanByline(s: string): string {
  let t = s.replace(/\s+/g, ' ').trim().replace(BYLINE_LEAD, '');
  for (const re of BYLINE_TAIL) {
    // "The Associated Press" is the byline itself: a tail needs a name left before it.
    const cut = t.replace(re, '');
    if (cut !== t && /\p{L}{2}/u.test(cut) && !/^(?:the|by|and)$/i.test(cut.trim())) t = cut;
  }
  t = t.replace(TRAILING_SEPARATOR, '').trim();
  return t.length >= 2 ? t : s.trim();
}

/** The best candidate for one scalar field, or undefined. */
export function pickScalar(
  field: string,
  parents: string[],
  type: ScalarType,
  candidates: Candidate[],
  ctx: MatchContext,
): Picked | undefined {
  let best: Picked | undefined;
  for (const c of candidates) {
    const score = scoreCandidate(c, field, parents, type, ctx);
    if (score <= 0 || (best && score <= best.score)) continue;
    const value = coerceFor(c, field, type, ctx.pageUrl);
    if (value === undefined || value === null || value === '') continue;
    best = { value, source: c.source, candidate: c, score };
  }
  // "TP Link" from a script, "TP-Link Tapo C200" in the h1: the brand as the page writes it.
  if (best && typeof best.value === 'string' && vocabularyFor(field) === BRAND_VOCAB && ctx.titleText) {
    const shown = spelledAsShown(best.value, ctx.titleText());
    if (shown !== best.value) best = { ...best, value: shown };
  }
  // Availability over several offers of one item (sizes, sellers): in stock if any is.
  if (best && best.value === false && vocabularyFor(field).role === 'availability') {
    const g = groupOf(best.candidate);
    const path = best.candidate.path;
    const key = path.join('.');
    const parent = path.slice(0, -1).join('.');
    // The same place in another offer, or deeper in this one (an AggregateOffer's own offers).
    const samePlace = (c: Candidate) =>
      c.path.join('.') === key ||
      (c.path.length > path.length &&
        c.path[c.path.length - 1] === path[path.length - 1] &&
        c.path.slice(0, path.length - 1).join('.') === parent);
    // Same item, or another entity of the same kind and name (colour/size variants as roots).
    const name = nameOf(g, candidates);
    const sibling = candidates.find(
      (c) =>
        c !== best!.candidate &&
        g !== undefined &&
        samePlace(c) &&
        (groupOf(c) === g ||
          (name !== undefined && c.entity === best!.candidate.entity && nameOf(groupOf(c), candidates) === name)) &&
        coerceFor(c, field, type) === true,
    );
    if (sibling) best = { ...best, value: true, source: `${best.source} (any offer)` };
  }
  return best;
}

function nameOf(group: string | undefined, candidates: Candidate[]): string | undefined {
  if (!group) return undefined;
  const c = candidates.find(
    (x) => groupOf(x) === group && x.path.length === 1 && x.path[0] === 'name' && typeof x.value === 'string',
  );
  return c ? String(c.value).trim().toLowerCase() : undefined;
}

/** All values of the best-scoring source for an array-of-scalars field. */
export function pickList(
  field: string,
  parents: string[],
  type: ScalarType,
  candidates: Candidate[],
  ctx: MatchContext,
): { values: unknown[]; source?: string } {
  const scored = candidates
    .map((c) => ({ c, s: scoreCandidate(c, field, parents, type, ctx) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s);
  if (!scored.length) return { values: [] };
  const top = scored[0].c;
  const values: unknown[] = [];
  const seen = new Set<string>();
  for (const { c } of scored) {
    if (c.kind !== top.kind || c.path.join('.') !== top.path.join('.')) continue;
    for (const raw of Array.isArray(c.value) ? c.value : [c.value]) {
      const v = coerce(raw, type);
      const k = JSON.stringify(v);
      if (v !== undefined && !seen.has(k)) {
        seen.add(k);
        values.push(v);
      }
    }
  }
  return { values, source: top.source };
}

/** The structured entity (JSON-LD / microdata item) that answers most of the fields. */
export function primaryEntity(
  fields: { name: string; type: ScalarType }[],
  candidates: Candidate[],
): string | undefined {
  const hits = new Map<string, Set<string>>();
  const first = new Map<string, number>();
  for (const c of candidates) {
    const g = groupOf(c);
    if (!g || (c.entity && SIDE_ENTITIES.has(c.entity))) continue;
    for (const f of fields) {
      const v = vocabularyFor(f.name);
      if (nameWeight(c, v) >= 0.9 && nestingFactor(c, v, []) >= 0.97) {
        if (!hits.has(g)) hits.set(g, new Set());
        hits.get(g)!.add(f.name);
        if (!first.has(g)) first.set(g, first.size);
      }
    }
  }
  let best: string | undefined;
  for (const [g, set] of hits) {
    if (
      !best ||
      set.size > hits.get(best)!.size ||
      (set.size === hits.get(best)!.size && first.get(g)! < first.get(best)!)
    )
      best = g;
  }
  return best;
}
