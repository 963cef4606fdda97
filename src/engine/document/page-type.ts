/**
 * What kind of page this is — article, forum thread, product, product grid (collection),
 * list of other pages (listing), documentation, service page — read from the page's own
 * statements about itself (schema.org types in JSON-LD and microdata, Open Graph's og:type)
 * and from its structure (code blocks, repeated posts). Never from its host or URL.
 * The signals are gathered on the metadata walk, which visits every element anyway.
 */
import type { Element } from './dom.js';
import { collapse, isElement, isTextNode, textOf } from './dom.js';
import { flattenGraph, parseLenient } from './json-ld.js';

export type PageType =
  'article' | 'forum' | 'product' | 'listing' | 'collection' | 'documentation' | 'service' | 'other';

/** What the metadata walk notes for the page kind (cheap: attributes and tag names only). */
export class PageSignals {
  ogType = '';
  /** Sources of the JSON-LD scripts. */
  readonly jsonLd: string[] = [];
  /** schema.org types of microdata items, with how many of each. */
  readonly microdata = new Map<string, number>();
  /** `<pre>` blocks (code). */
  pre = 0;
  /** `<time>` elements (a story's date, a post's). */
  times = 0;
  /** Scripts that may hold the page's state: JSON data blocks and inline scripts, 200 characters or more. */
  readonly scripts: Element[] = [];
  /** `<noscript>` elements with markup and words inside (a server-rendered view for clients without scripts). */
  noscripts = 0;
  #ld?: Map<string, number>;
  #all?: Map<string, number>;

  /** The types JSON-LD states (parsed once, on first need). */
  get ldTypes(): Map<string, number> {
    return (this.#ld ??= jsonLdTypes(this.jsonLd));
  }

  /** The types JSON-LD and microdata state together. */
  get types(): Map<string, number> {
    if (this.#all) return this.#all;
    const all = new Map(this.ldTypes);
    for (const [t, n] of this.microdata) all.set(t, (all.get(t) ?? 0) + n);
    return (this.#all = all);
  }

  /** Called by the metadata walk for every element. */
  see(el: Element): void {
    const a = el.attribs;
    if (a.itemtype) for (const t of a.itemtype.split(/\s+/)) if (t) bump(this.microdata, typeName(t));
    if (el.name === 'pre') this.pre++;
    else if (el.name === 'time') this.times++;
    else if (el.name === 'noscript') {
      // (A tracking pixel's <noscript> holds an image and no words.)
      if (el.children.some(isElement) && collapse(textOf(el)).length >= 20) this.noscripts++;
    } else if (el.name === 'script' && !a.src) {
      const type = a.type?.toLowerCase() ?? '';
      if (type.includes('ld+json')) {
        let s = '';
        for (const c of el.children) if (isTextNode(c)) s += c.data;
        if (s.includes('@type')) this.jsonLd.push(s);
      } else if (!type || type.includes('json') || type.includes('javascript') || type === 'module') {
        let n = 0;
        for (const c of el.children) if (isTextNode(c)) n += c.data.length;
        if (n >= 200) this.scripts.push(el);
      }
    }
  }
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
/** "http://schema.org/Product" → "Product". */
const typeName = (t: string) => t.replace(/^.*[/#]/, '');

/** The schema.org types the page's JSON-LD states, counted: top-level items, their main entity, and list items. */
function jsonLdTypes(sources: string[]): Map<string, number> {
  const out = new Map<string, number>();
  const add = (d: unknown) => {
    if (!d || typeof d !== 'object') return;
    for (const t of [(d as Record<string, unknown>)['@type']].flat()) if (typeof t === 'string') bump(out, typeName(t));
  };
  for (const s of sources)
    for (const item of flattenGraph(parseLenient(s))) {
      add(item);
      if (!item || typeof item !== 'object') continue;
      const d = item as Record<string, unknown>;
      add(d.mainEntity);
      // An ItemList's elements: products listed are a collection, not one product.
      for (const li of [d.itemListElement].flat())
        if (li && typeof li === 'object') add((li as Record<string, unknown>).item ?? li);
    }
  return out;
}

const any = (types: Map<string, number>, re: RegExp) => [...types.keys()].some((t) => re.test(t));
const count = (types: Map<string, number>, re: RegExp) => [...types].reduce((n, [t, c]) => (re.test(t) ? n + c : n), 0);

const FORUM = /^(?:DiscussionForumPosting|QAPage|Question)$/;
const PRODUCT = /^(?:Product|ProductGroup|IndividualProduct|ProductModel|Book|Vehicle|SoftwareApplication|VideoGame)$/;
const COLLECTION = /^(?:OfferCatalog|ProductCollection)$/;
const LISTING = /^(?:CollectionPage|ItemList|SearchResultsPage)$/;
const DOCS = /^(?:TechArticle|APIReference)$/;
const ARTICLE =
  /^(?:Article|NewsArticle|BlogPosting|Blog|Report|ScholarlyArticle|AnalysisNewsArticle|OpinionNewsArticle|ReportageNewsArticle|LiveBlogPosting|Recipe|HowTo)$/;
const SERVICE =
  /^(?:Service|ProfessionalService|FinancialProduct|LocalBusiness|EducationalOccupationalProgram|Course|WebApplication)$/;

/**
 * Whether the page may be read as a thread of posts: its markup states a discussion, or it
 * states no article (an article's comment section is not its content).
 */
export function mayBeThread(s: PageSignals): boolean {
  return any(s.types, FORUM) || !any(s.types, ARTICLE);
}

/**
 * Whether the page's structured data states it is an article (JSON-LD or microdata; not
 * og:type, which many sites set on every page, section fronts included).
 */
export function statesArticle(s: PageSignals): boolean {
  return any(s.types, ARTICLE);
}

/** A price as shops write it: a currency sign or code next to a number, either side. */
const PRICE =
  /(?:[$€£¥₹₩₽₺]|\b(?:USD|EUR|GBP|CHF|CAD|AUD|JPY|SEK|NOK|DKK|PLN|CZK|INR|Rs\.?)\s?)\s?\d|\d(?:[\d.,\s]*\d)?\s?(?:[€£₽₺]|\b(?:kr|zł|Kč|USD|EUR|GBP|CHF|SEK|NOK|DKK|PLN)\b)/;

/** Whether most items of a list show a price (a grid of things for sale). */
export function isPricedList(list: Element): boolean {
  const items = list.children.filter(isElement);
  return items.length > 0 && items.filter((i) => PRICE.test(textOf(i))).length * 2 > items.length;
}

/** Sentence-like paragraphs from which a dated page reads as an article. */
const ARTICLE_PARAS = 3;

/** Whether the page states when it was published: a meta tag, JSON-LD's datePublished, or a <time>. */
export function published(s: PageSignals, meta: Record<string, string>): boolean {
  if (meta['article:published_time'] || meta['date'] || meta['pubdate'] || meta['dc.date'] || s.times > 0) return true;
  return s.jsonLd.some((src) => src.includes('"datePublished"'));
}

/** Code blocks from which a page reads as documentation when nothing says it is an article. */
const DOC_CODE_BLOCKS = 5;

/**
 * The page's kind. `structure`: what main-content selection saw — repeated posts (a thread),
 * lists of teasers (a listing). Markup statements win over structure; a page that states
 * nothing and shows no telling structure is `other`.
 */
export function detectPageType(
  s: PageSignals,
  structure: { posts?: number; teaserLists?: number; pricedLists?: number; paras?: number } = {},
  meta: Record<string, string> = {},
): PageType {
  const ld = s.ldTypes;
  const types = s.types;
  const og = s.ogType.toLowerCase();
  if (any(types, FORUM)) return 'forum';
  // Several products, or a group of them by og:type: a grid of items for sale.
  const products = count(types, PRODUCT);
  if (any(types, COLLECTION) || og === 'product.group' || products >= 3 || (products && any(ld, LISTING)))
    return 'collection';
  if (products || /(?:^|[.:])(?:product|item)$|^product\b/.test(og)) return 'product';
  if (any(types, DOCS)) return 'documentation';
  const article = any(types, ARTICLE);
  if ((structure.posts ?? 0) >= 2 && !article) return 'forum';
  // Posts marked one by one as comments with their authors, and no article they belong to.
  if (!article && (types.get('Comment') ?? 0) >= 2 && (types.get('Person') ?? 0) >= 2) return 'forum';
  if (s.pre >= DOC_CODE_BLOCKS && !any(ld, ARTICLE)) return 'documentation';
  // A list of items most of which show a price, on a page stating no article: things for sale.
  if ((structure.pricedLists ?? 0) >= 1 && !article) return 'collection';
  if (any(ld, LISTING) && !article) return 'listing';
  if (article || og === 'article') return 'article';
  if (any(types, SERVICE)) return 'service';
  if ((structure.teaserLists ?? 0) >= 2) return 'listing';
  // Prose with a date of publication, though no type says so: a story of a site that states nothing.
  if ((structure.paras ?? 0) >= ARTICLE_PARAS && published(s, meta)) return 'article';
  return 'other';
}
