/**
 * Deterministic extraction: gather candidate values from every source on the page (JSON-LD,
 * microdata/RDFa, meta tags, embedded app state, elements named like a field, label/value
 * pairs, the URL), then fill the schema field by field with the best-scoring candidate that
 * coerces to the declared type, recording where each value came from.
 */
import { availabilityFromPage } from './availability.js';
import type { Document, Element, ParentNode } from '../document/dom.js';
import type { PageExtraction } from '../document/processor.js';
import { collapse, elements, findFirst, textOf } from '../document/dom.js';
import type { Candidate } from './candidate.js';
import type { ExtractOutput } from './output.js';
import { SOLD_OUT } from './coerce.js';
import { currencyFromText } from './currency.js';
import { itemCandidates, repeatedElements, structuredGroups } from './items.js';
import { tableItems } from './tables.js';
import { isAuthorField } from './field-values.js';
import { pickList, pickScalar, primaryEntity } from './match.js';
import { formerPriceValues, markedDownPrices, startingPriceValues } from './prices.js';
import type { MatchContext } from './score.js';
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
import { descriptionHint, hasDescriptions, hintedNames, withDescriptions } from './hints.js';
import type { FieldHints } from './json-schema.js';

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

export type { ExtractOutput } from './output.js';

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
  // A field's description adds the words it names (hints.ts); none: the field's names alone.
  const wanted = [...hintedNames(input.schema.hints, new Set(wantedNames(input.schema.schema)))];
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
    // A worker compiles the schema again from data: descriptions go as JSON Schema then.
    schema: hasDescriptions(schema.hints)
      ? (withDescriptions(schema.jsonSchema, schema.hints) as unknown as SchemaObject)
      : schema.schema,
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
  const json = filler.object(input.schema.schema, [], candidates, ctx, input.schema.hints);
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

  object(
    schema: SchemaObject,
    parents: string[],
    candidates: Candidate[],
    ctx: MatchContext,
    hints?: FieldHints,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const picks = new Map<string, Candidate>();
    for (const [field, type] of Object.entries(schema)) {
      const path = [...parents, field].join('.');
      out[field] = this.value(field, type, parents, candidates, ctx, path, picks, hints?.fields?.[field]);
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
    hints?: FieldHints,
  ): unknown {
    const hint = descriptionHint(hints?.description);
    if (typeof type === 'string') {
      const p = pickScalar(field, parents, type, candidates, ctx, hint);
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
        const { values, source } = pickList(field, parents, inner, candidates, ctx, hint);
        if (source && values.length) this.sources[path] = source;
        return values;
      }
      if (Array.isArray(inner)) return [];
      return this.items(field, inner, path, candidates, hints?.items);
    }
    return this.object(type, [...parents, field], candidates, ctx, hints);
  }

  /** Arrays of objects: structured lists first, repeated DOM elements otherwise. */
  items(
    field: string,
    schema: SchemaObject,
    path: string,
    candidates: Candidate[],
    hints?: FieldHints,
  ): Record<string, unknown>[] {
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
        hints,
      );
    });
    const wantsPrice = Object.keys(schema).some((k) => vocabularyFor(k).role === 'price');
    const names = wantedNames(schema);
    const dom = repeatedElements(this.doc as unknown as ParentNode, wantsPrice).map((el) => {
      const cands = itemCandidates(el, this.input.baseUrl ?? this.input.url, names);
      return new Filler(this.doc, this.input, scratch).object(
        schema,
        [],
        cands,
        { totalOrder: cands.length + 1 },
        hints,
      );
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
