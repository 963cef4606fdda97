/**
 * A candidate's score for one field: collector confidence × name match × nesting × entity ×
 * document position × role checks (match.ts picks the best).
 */
import { namesMoving, namesSide, nameWords, priceNameFactor, UNAVAILABLE_STATE } from './box-names.js';
import { isAuthorField } from './field-values.js';
import type { Element } from '../document/dom.js';
import { isHiddenInPage } from '../document/visibility.js';
import { norm, type Candidate } from './candidate.js';
import { coerceBoolean, parseNumber } from './coerce.js';
import { currencyFromText, normaliseCurrency } from './currency.js';
import { normaliseDate } from './dates.js';
import { isSiteName } from './sources/document.js';
import type { ScalarType } from './schema.js';
import { GENERIC_NAMES, vocabularyFor, type FieldVocabulary } from './vocabulary.js';
import { hintedWeight, type DescriptionHint } from './hints.js';

/** Entities whose values describe something other than the page's subject. */
export const SIDE_ENTITIES = new Set([
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

const SKU_VOCAB = vocabularyFor('sku');

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

export const groupOf = (c: Candidate) => (c.entityIndex !== undefined ? `${c.kind}:${c.entityIndex}` : undefined);

export function nameWeight(c: Candidate, v: FieldVocabulary): number {
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

export function nestingFactor(c: Candidate, v: FieldVocabulary, parents: string[]): number {
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

export function ancestorsNames(el: Element | undefined, levels: number): string {
  let s = '';
  for (let n: Element | null | undefined = el, i = 0; n && i < levels; n = n.parent as Element | null, i++) {
    // The page's own classes ("header-transparent", "hidden-menu") say nothing about one value.
    if (n.name === 'body' || n.name === 'html') break;
    if (n.attribs) s += ` ${n.attribs.class ?? ''} ${n.attribs.id ?? ''}`;
  }
  return s;
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

export function isStruck(el: Element): boolean {
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
  hint?: DescriptionHint,
): number {
  const v = vocabularyFor(field);
  const byName = nameWeight(c, v);
  const nw = hint ? hintedWeight(byName, c.path[c.path.length - 1] ?? '', hint) : byName;
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
