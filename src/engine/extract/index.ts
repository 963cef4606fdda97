/**
 * Deterministic extraction: gather candidate values from every source on the page (JSON-LD,
 * microdata/RDFa, meta tags, embedded app state, elements named like a field, label/value
 * pairs, the URL), then fill the schema field by field with the best-scoring candidate that
 * coerces to the declared type, recording where each value came from.
 */
import type { Document, Element, ParentNode } from '../document/dom.js';
import type { PageExtraction } from '../document/pool.js';
import { collapse, elements, findFirst, isElement, textOf } from '../document/dom.js';
import { isHiddenInPage } from '../document/visibility.js';
import type { Candidate } from './candidate.js';
import { SOLD_OUT, coerceBoolean } from './coerce.js';
import { currencyFromText } from './currency.js';
import { itemCandidates, repeatedElements, structuredGroups } from './items.js';
import { tableItems } from './tables.js';
import {
  UNAVAILABLE_STATE,
  formerPriceValues,
  isAuthorField,
  isSideName,
  markedDownPrices,
  pickList,
  pickScalar,
  primaryEntity,
  startingPriceValues,
  type MatchContext,
} from './match.js';
import type { CompiledSchema, ScalarType, SchemaNode, SchemaObject } from './schema.js';
import { appStateCandidates } from './sources/app-state.js';
import { domNameCandidates } from './sources/dom.js';
import { documentCandidates, trimSiteName } from './sources/document.js';
import { jsonLdCandidates } from './sources/json-ld.js';
import { descriptionCandidates, labelCandidates, textLineCandidates } from './sources/labels.js';
import { metaCandidates } from './sources/meta.js';
import { microdataCandidates } from './sources/microdata.js';
import { urlCandidates, urlTokens } from './sources/url.js';
import { vocabularyFor } from './vocabulary.js';

export interface ExtractInput {
  schema: CompiledSchema;
  /** The page's URL: ids are read from it. */
  url: string;
  /** Where relative links resolve (the page's `<base href>`). @default url */
  baseUrl?: string;
  /** Raw HTML, used to confirm identifiers found in the URL. */
  html?: string;
  /** Plain text to read "Label: value" lines from (text and PDF pages). */
  text?: string;
}

export interface ExtractOutput {
  json: Record<string, unknown>;
  sources: Record<string, string>;
}

/** Every name any field of the schema answers to (for the DOM-name collector). */
function wantedNames(schema: SchemaObject, out = new Set<string>()): string[] {
  for (const [k, t] of Object.entries(schema)) {
    for (const [n, w] of vocabularyFor(k).names) if (w >= 0.9 && n.length >= 3) out.add(n);
    const inner = Array.isArray(t) ? t[0] : t;
    if (typeof inner === 'object' && !Array.isArray(inner)) wantedNames(inner, out);
  }
  return [...out];
}

function scalarFields(schema: SchemaObject): { name: string; type: ScalarType }[] {
  return Object.entries(schema)
    .filter(([, t]) => typeof t === 'string')
    .map(([name, t]) => ({ name, type: t as ScalarType }));
}

export function collectCandidates(doc: Document, input: ExtractInput): Candidate[] {
  const out: Candidate[] = [];
  jsonLdCandidates(doc, out);
  microdataCandidates(doc, out);
  metaCandidates(doc, out);
  withoutSiteNames(out, input.url);
  const wanted = wantedNames(input.schema.schema);
  appStateCandidates(doc, out, wanted);
  domNameCandidates(doc, wanted, out);
  labelCandidates(doc, out, new Set(wanted));
  descriptionCandidates(doc, out);
  documentCandidates(doc, input.baseUrl ?? input.url, out);
  if (input.text) textLineCandidates(input.text, out);
  urlCandidates(input.url, input.html, out);
  return out;
}

const TITLE_PATHS = new Set(['title', 'name', 'headline']);

/**
 * Shared and structured titles often end with the site's name ("… - Walmart.com", "… - Los
 * Angeles Times", "… Product on Alibaba.com"): not the page's subject. The site is named by
 * its host, og:site_name or the JSON-LD publisher.
 */
function withoutSiteNames(candidates: Candidate[], url: string): void {
  const siteName =
    candidates.find((c) => c.kind === 'meta' && c.path.length === 1 && c.path[0] === 'sitename')?.value ??
    candidates.find((c) => c.kind === 'json-ld' && c.path.join('.') === 'publisher.name')?.value;
  for (const c of candidates) {
    if (c.path.length !== 1 || !TITLE_PATHS.has(c.path[0]) || typeof c.value !== 'string') continue;
    if (c.kind === 'json-ld' || c.kind === 'meta' || c.kind === 'microdata')
      c.value = trimSiteName(c.value, url, typeof siteName === 'string' ? siteName : undefined);
  }
}

/** Extraction with `schema` for the document pipeline: on a worker (the schema goes as data) or here. */
export function pageExtraction(schema: CompiledSchema): PageExtraction {
  return {
    schema: schema.schema,
    here: (doc, baseUrl, html, url) => extractFromDocument(doc, { schema, url, baseUrl, html }),
  };
}

export function extractFromDocument(doc: Document, input: ExtractInput): ExtractOutput {
  const candidates = collectCandidates(doc, input);
  let totalOrder = 0;
  for (const _ of elements(doc)) totalOrder++;
  let shown: string | undefined;
  let former: Set<number> | undefined;
  let markedDown: Set<number> | undefined;
  let starting: Set<number> | undefined;
  let title: string | undefined;
  const body = findFirst(doc, (el) => el.name === 'body') ?? doc;
  const titleRegion = new Set<Element>();
  for (
    let n = findFirst(body, (el) => el.name === 'h1') as Element | null | undefined;
    n && n.type === 'tag';
    n = n.parent as Element | null
  )
    titleRegion.add(n);
  const ctx: MatchContext = {
    primary: primaryEntity(scalarFields(input.schema.schema), candidates),
    totalOrder,
    urlTokens: urlTokens(input.url),
    visibleText: () => (shown ??= textOf(body, ' ')),
    titleRegion,
    pageUrl: input.url,
    formerPrices: () => (former ??= formerPriceValues(candidates)),
    markedDown: () => (markedDown ??= markedDownPrices(candidates)),
    startingPrices: () => (starting ??= startingPriceValues((shown ??= textOf(body, ' ')))),
    titleText: () => {
      if (title === undefined) {
        // The h1 and the document title: some shops head the item with an h2.
        const h1 = findFirst(body, (el) => el.name === 'h1');
        const head = findFirst(doc, (el) => el.name === 'title');
        title = collapse(`${h1 ? textOf(h1) : ''} ${head ? textOf(head) : ''}`);
      }
      return title;
    },
  };
  const sources: Record<string, string> = {};
  const filler = new Filler(doc, input, sources);
  const json = filler.object(input.schema.schema, [], candidates, ctx);
  if (!input.schema.validate(json)) {
    // Coercion guarantees the types, so this is a bug; answer the empty shape, not a 500.
    return { json: input.schema.empty(), sources: {} };
  }
  return { json, sources };
}

/**
 * A byline of several people (JSON-LD `"author": [{…}, {…}]`) as one string field: every
 * author of that list, in order ("Stella Kim, Jennifer Jett"), not only the first.
 */
function coAuthors(pick: Candidate, value: string, candidates: Candidate[]): string {
  const list = /^(.*)\[\d+\]$/.exec(pick.item ?? '')?.[1];
  if (pick.kind !== 'json-ld' || !list) return value;
  const names: string[] = [];
  for (const c of candidates) {
    if (
      c.kind !== pick.kind ||
      c.source !== pick.source ||
      c.entityIndex !== pick.entityIndex ||
      typeof c.value !== 'string'
    )
      continue;
    if (/^(.*)\[\d+\]$/.exec(c.item ?? '')?.[1] !== list) continue;
    const name = c.value.replace(/\s+/g, ' ').trim();
    if (name && !names.includes(name)) names.push(name);
  }
  return names.length > 1 && names.length <= 10 ? names.join(', ') : value;
}

class Filler {
  constructor(
    readonly doc: Document,
    readonly input: ExtractInput,
    readonly sources: Record<string, string>,
  ) {}

  object(schema: SchemaObject, parents: string[], candidates: Candidate[], ctx: MatchContext): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const picks = new Map<string, Candidate>();
    for (const [field, type] of Object.entries(schema)) {
      const path = [...parents, field].join('.');
      out[field] = this.value(field, type, parents, candidates, ctx, path, picks);
    }
    // Markup saying "out of stock" describes one variant (the default size, often); a buy box
    // that offers to add the item to the basket, with no sold-out notice, is what shoppers get.
    for (const [field, type] of Object.entries(schema)) {
      const pick = picks.get(field);
      if (
        out[field] !== false ||
        type !== 'boolean' ||
        parents.length ||
        vocabularyFor(field).role !== 'availability' ||
        !pick
      )
        continue;
      if (pick.kind !== 'json-ld' && pick.kind !== 'microdata' && pick.kind !== 'rdfa' && pick.kind !== 'meta')
        continue;
      const found = availabilityFromPage(this.doc);
      if (found?.inStock && found.source.startsWith('css:button')) {
        out[field] = true;
        this.sources[[...parents, field].join('.')] = `${found.source} (buy box over ${pick.source})`;
      }
    }
    // Currency is often only in the price's text ("£12.99"); availability only in buttons.
    for (const [field, type] of Object.entries(schema)) {
      if (out[field] !== null || typeof type !== 'string') continue;
      const role = vocabularyFor(field).role;
      const path = [...parents, field].join('.');
      if (role === 'currency' && type === 'string') {
        const price = [...picks.entries()].find(([f]) => vocabularyFor(f).role === 'price')?.[1];
        const code =
          price &&
          (currencyFromText(String(price.raw ?? ''), this.input.url) ??
            (price.el ? currencyFromText(textOf(price.el), this.input.url) : undefined));
        if (code) {
          out[field] = code;
          this.sources[path] = `${price!.source} (currency symbol)`;
        }
      } else if (role === 'availability' && (type === 'boolean' || type === 'string') && !parents.length) {
        let found = availabilityFromPage(this.doc);
        // Offered at a price, with no word of unavailability anywhere on the page (a classified
        // ad, a shop whose buy box is drawn by script): what is offered can be had.
        const priced = [...picks.entries()].some(
          ([f, c]) => vocabularyFor(f).role === 'price' && out[f] !== null && c.kind !== 'url',
        );
        if (!found && priced && !SOLD_OUT.test(ctx.visibleText?.() ?? ''))
          found = { inStock: true, source: 'offered at a price, no sign of unavailability' };
        if (found) {
          out[field] = type === 'boolean' ? found.inStock : found.inStock ? 'in_stock' : 'out_of_stock';
          this.sources[path] = found.source;
        }
      }
    }
    return out;
  }

  value(
    field: string,
    type: SchemaNode,
    parents: string[],
    candidates: Candidate[],
    ctx: MatchContext,
    path: string,
    picks: Map<string, Candidate>,
  ): unknown {
    if (typeof type === 'string') {
      const p = pickScalar(field, parents, type, candidates, ctx);
      if (!p) return null;
      picks.set(field, p.candidate);
      this.sources[path] = p.source;
      if (type === 'string' && typeof p.value === 'string' && isAuthorField(vocabularyFor(field)))
        return coAuthors(p.candidate, p.value, candidates);
      return p.value;
    }
    if (Array.isArray(type)) {
      const inner = type[0];
      if (typeof inner === 'string') {
        const { values, source } = pickList(field, parents, inner, candidates, ctx);
        if (source && values.length) this.sources[path] = source;
        return values;
      }
      if (Array.isArray(inner)) return [];
      return this.items(field, inner, path, candidates);
    }
    return this.object(type, [...parents, field], candidates, ctx);
  }

  /** Arrays of objects: structured lists first, repeated DOM elements otherwise. */
  items(field: string, schema: SchemaObject, path: string, candidates: Candidate[]): Record<string, unknown>[] {
    const filled = (o: Record<string, unknown>) =>
      Object.values(o).filter((v) => v !== null && !(Array.isArray(v) && !v.length)).length;
    const scratch: Record<string, string> = {};
    const structured = structuredGroups(candidates).map((group) => {
      const ctx: MatchContext = { totalOrder: group.length };
      return new Filler(this.doc, this.input, scratch).object(
        schema,
        [],
        group.map((c) => ({ ...c, entityIndex: undefined })),
        ctx,
      );
    });
    const wantsPrice = Object.keys(schema).some((k) => vocabularyFor(k).role === 'price');
    const names = wantedNames(schema);
    const dom = repeatedElements(this.doc as unknown as ParentNode, wantsPrice).map((el) => {
      const cands = itemCandidates(el, this.input.baseUrl ?? this.input.url, names);
      return new Filler(this.doc, this.input, scratch).object(schema, [], cands, { totalOrder: cands.length + 1 });
    });
    const total = (items: Record<string, unknown>[]) => items.reduce((n, o) => n + filled(o), 0);
    // A table whose headers name the fields is read column by column; it wins unless
    // structured data or repeated cards answer more of the schema.
    const table = tableItems(
      this.doc as unknown as ParentNode,
      schema,
      this.input.baseUrl ?? this.input.url,
      this.input.url,
    );
    if (table && total(table.items) >= Math.max(total(structured), total(dom))) {
      this.sources[path] = table.source;
      return table.items;
    }
    const best = total(structured) >= total(dom) ? structured : dom;
    const items = best.filter((o) => filled(o) > 0);
    if (items.length) this.sources[path] = best === structured ? 'structured data (list)' : 'css:repeated elements';
    return items;
  }
}

/** What a buy control says, in the shop's language (its text starts with it). */
const ADD_TO_CART = new RegExp(
  '^(?:' +
    [
      'add to (?:your |my )?(?:shopping )?(?:cart|basket|bag|trolley)',
      'add to order',
      'buy now',
      'buy it now',
      'buy tickets?',
      'order now',
      'pre-?order(?: now)?',
      'in den (?:warenkorb|einkaufswagen|einkaufskorb|korb)',
      'zum warenkorb hinzufügen',
      '(?:jetzt )?kaufen',
      'jetzt bestellen',
      'ajouter au (?:panier|caddie)',
      'acheter',
      'añadir al (?:carrito|carro|cesta)',
      'anadir a la cesta',
      'agregar al carrito',
      'comprar(?: ahora| agora| entradas?)?',
      'aggiungi al carrello',
      'acquista(?: ora)?',
      'adicionar (?:ao carrinho|à sacola|à cesta)',
      'toevoegen aan (?:winkelwagen|winkelmand)',
      'in (?:de )?(?:winkelwagen|winkelmand)',
      '(?:dodaj )?do koszyka',
      'kup(?: teraz)?',
      'lägg i (?:varukorgen|kundvagnen)',
      'lägg till i varukorgen',
      'köp(?: nu)?',
      'legg i (?:handlekurven|handlekurv|handlevognen?)',
      'kjøp',
      'læg i (?:kurv|indkøbskurv)',
      'tilføj til kurv',
      'lisää (?:ostoskoriin|koriin)',
      'osta',
      'kosárba',
      '(?:vložit |přidat )?do košíku',
      '(?:pridať )?do košíka',
      'koupit',
      'v košarico',
      'naroči',
      'dodaj u košaricu',
      '(?:adaugă )?în co[șş]',
      '(?:добавить )?в корзину',
      'купить',
      '(?:додати )?(?:в кошик|до кошика)',
      'купити',
      'sepete ekle',
      'hemen al',
      'προσθήκη στο καλάθι',
      'thêm vào giỏ(?: hàng)?',
      'mua ngay',
      '(?:tambah(?:kan)? ke|masukkan(?: ke)?) keranjang',
      'beli sekarang',
      'أضف (?:إلى|الى|لل)(?: ?السلة| ?عربة التسوق)',
      'הוס(?:ף|פה) ל(?:סל|עגלה)',
      'カートに(?:入れる|追加)',
      '(?:買い物)?かごに入れる',
      'カゴに入れる',
      '今すぐ購入',
      '(?:加入|添加到)购物(?:车|袋)',
      '(?:加入|放入)購物(?:車|袋)',
      '立即购买',
      '立即購買',
      '장바구니(?: 담기)?',
      '구매하기',
      'เพิ่ม(?:ลง|ใน|ไปยัง)(?:ตะกร้า|รถเข็น)',
      'ซื้อเลย',
    ].join('|') +
    ')(?:$|[^\\p{L}])',
  'iu',
);
/** Class/id names of buy controls (add-to-cart, buy_btn, button-cart …), for controls whose text is an icon or a word not listed. */
const BUY_NAMES =
  /(?:^|[\s_-])(?:add[-_]?to[-_]?(?:cart|basket|bag|trolley)|add[-_]?cart|buy[-_]?(?:btn|button|now|box)|btn[-_]?buy|button[-_]?(?:cart|buy)|cart[-_]?(?:btn|button)|purchase[-_]?(?:btn|button))(?:$|[\s_-])/i;
const STOCK_NAMES = /stock|avail|inventory|lager|dispon|sold-?out|soldout/i;
/** A stock count: "Only 3 left in stock", "12 available", "Lagerbestand: 7", "Na stanie: 5 szt.". */
const STOCK_COUNT =
  /(?:^|[^\p{L}\d])(?:(?:only )?(\d{1,6})\s*(?:(?:items?|pcs\.?|units?|st(?:ück|k)\.?|szt\.?|unidades|unités?|pezzi)\s*)?(?:left|in stock|available|auf lager|vorrätig|disponibles?|disponibili|en stock|na stanie|dostępn[ey]ch|op voorraad|på lager|i lager|в наличии)|(?:in stock|stock|lagerbestand|auf lager|na stanie|disponibles?|en stock|available|в наличии|在庫|库存|庫存)\s*[:：]?\s*(\d{1,6})(?!\s*(?:days?|tage?|dni|días|jours|h\b|hours?)))(?:$|[^\p{L}\d])/iu;

/** A quantity field of a buy form (qty, quantity, Menge, cantidad …). */
const QUANTITY_NAMES =
  /^(?:qty|quantity|quant|amount|menge|anzahl|cantidad|quantit[àée]|ilo[sś][cć]|aantal|antal|m[aä]ngd|mno[zž]stvo|koli[cč]ina|количество|数量|수량)(?:$|[[_-])/i;

/** Boxes of other products (related, recommended, bought together …): their buy buttons are theirs. */
const OTHER_PRODUCTS =
  /related|recommend|similar|upsell|cross-?sell|carousel|also|bought|together|viewed|suggest|sponsor|slider/i;

function inOtherProductsBox(el: Element): boolean {
  let n = el.parent as Element | null;
  for (let depth = 0; n && n.type === 'tag' && depth < 8; depth++, n = n.parent as Element | null) {
    if (OTHER_PRODUCTS.test(`${n.attribs.class ?? ''} ${n.attribs.id ?? ''}`)) return true;
  }
  return false;
}

function isDisabled(el: Element): boolean {
  const a = el.attribs;
  return (
    a.disabled !== undefined ||
    a['aria-disabled'] === 'true' ||
    /(?:^|\s)(?:[a-z]+-)?disabled(?:\s|$)/i.test(a.class ?? '')
  );
}

/**
 * No structured availability: read the buy box. An out-of-stock notice means out of stock;
 * an active buy control (its text in ~30 languages, or its class/id: add-to-cart, buy-btn …)
 * or a stock count above zero means in stock; a buy control that is only there disabled means
 * out of stock; failing all of these, a quantity field to fill in means the item can be bought.
 */
export function availabilityFromPage(doc: Document): { inStock: boolean; source: string } | undefined {
  let cart: string | undefined;
  let disabledCart: string | undefined;
  let counted: { inStock: boolean; source: string } | undefined;
  let quantity: string | undefined;
  for (const el of elements(doc)) {
    if (
      !quantity &&
      (el.name === 'input' || el.name === 'select') &&
      QUANTITY_NAMES.test(el.attribs.name ?? el.attribs.id ?? '') &&
      (el.attribs.type ?? '').toLowerCase() !== 'hidden' &&
      !isDisabled(el) &&
      !isSideName(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`)
    ) {
      quantity = `css:${el.name}[name=${el.attribs.name ?? el.attribs.id}] (quantity to buy)`;
    }
    if (el.name === 'input' && (el.attribs.type ?? '').toLowerCase() === 'hidden') continue;
    if (el.name === 'script' || el.name === 'style' || el.name === 'template') continue;
    const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
    const control =
      el.name === 'button' ||
      (el.name === 'input' && /submit|button|image/i.test(el.attribs.type ?? '')) ||
      el.attribs.role === 'button';
    const namedBuy = (control || el.name === 'a') && BUY_NAMES.test(names);
    const leaf = el.children.length <= 2 && !el.children.some((c) => isElement(c) && c.children.length > 1);
    // Controls, stock boxes, and short leaves (a link may be a buy control; other leaves may
    // hold a stock count, looked for until a buy control settles it).
    if (!control && !namedBuy && !STOCK_NAMES.test(names) && !(leaf && (el.name === 'a' || !cart))) continue;
    if (isSideName(names) || /carousel/i.test(names)) continue;
    // An element named for the out-of-stock case is a template the page shows when needed
    // ("variationUnavailable": "Image non disponible"); the one that counts names the stock.
    if (UNAVAILABLE_STATE.test(names)) continue;
    const raw = el.name === 'input' ? (el.attribs.value ?? el.attribs.alt ?? '') : textOf(el);
    if (raw.length > 400) continue;
    const text = raw.replace(/\s+/g, ' ').trim();
    // Form state ("false", "0") is not something the page says to a shopper.
    if (text.length > 80 || /^(?:true|false|[01]|yes|no)$/i.test(text)) continue;
    // Hidden by its own attributes or a wrapper's (class "hidden", display:none): a state the
    // page shows when needed, such as the sold-out notice of another size.
    const hidden = isHiddenInPage(el);
    if (text && (control || STOCK_NAMES.test(names)) && SOLD_OUT.test(text) && !hidden) {
      return {
        inStock: false,
        source: `css:${el.name}${el.attribs.id ? `#${el.attribs.id}` : ''} "${text.slice(0, 40)}"`,
      };
    }
    const buyText = !!text && ADD_TO_CART.test(text);
    if ((control && buyText) || namedBuy || (el.name === 'a' && buyText && leaf)) {
      const where = `css:${el.name === 'a' ? 'a' : 'button'} "${(text || names.trim()).slice(0, 40)}"`;
      if (hidden || inOtherProductsBox(el)) continue;
      if (isDisabled(el)) disabledCart ??= where;
      else cart ??= where;
      continue;
    }
    if (!counted && text && text.length <= 60 && (leaf || STOCK_NAMES.test(names))) {
      const m = STOCK_COUNT.exec(text);
      if (m)
        counted = { inStock: Number(m[1] ?? m[2]) > 0, source: `css:${el.name} "${text.slice(0, 40)}" (stock count)` };
    }
    if (!control && STOCK_NAMES.test(names) && !hidden) {
      const b = coerceBoolean(text);
      if (b !== undefined)
        return {
          inStock: b,
          source: `css:${el.name}.${(el.attribs.class ?? '').split(/\s+/)[0]} "${text.slice(0, 40)}"`,
        };
    }
  }
  if (cart) return { inStock: true, source: cart };
  if (counted) return counted;
  if (disabledCart) return { inStock: false, source: `${disabledCart} (disabled)` };
  return quantity ? { inStock: true, source: quantity } : undefined;
}
