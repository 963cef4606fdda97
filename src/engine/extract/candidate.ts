/**
 * A candidate is one value the page offers for some name: a JSON-LD property, an itemprop,
 * a meta tag, a key in embedded app state, an element whose class says "price", a
 * "Label: value" pair. Collectors produce them; the matcher picks per schema field.
 */
import { decodeHTMLStrict } from 'entities';
import type { Element } from '../document/dom.js';

export type SourceKind = 'json-ld' | 'microdata' | 'rdfa' | 'meta' | 'app-state' | 'dom' | 'label' | 'text' | 'url';

export interface Candidate {
  /** Normalised names of the path from the entity down to the value (`['offers','price']`). */
  path: string[];
  value: unknown;
  kind: SourceKind;
  /** Where it came from, as reported in `sources` (`json-ld:offers.price`, `css:span.price`). */
  source: string;
  /** schema.org type of the entity holding the value (`product`, `offer`, `organization`…). */
  entity?: string;
  /** Order of that entity among the page's entities (0 = first). */
  entityIndex?: number;
  /** Position in the document, for DOM candidates (earlier is likelier the main item). */
  order?: number;
  /** How much the collector trusts it (0–1), before name matching. */
  confidence: number;
  /** The element it was read from (DOM candidates), for currency and context checks. */
  el?: Element;
  /** Raw text it was parsed from, when different from value (currency symbols live here). */
  raw?: string;
  /** The list element it belongs to (`3:itemlistelement[2]`), for arrays of objects. */
  item?: string;
}

/** Words of class/id names, lower-cased: "relatedProducts price-old_live" → related, products, price, old, live. */
export const classWords = (names: string): string[] =>
  names
    .split(/[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());

/** `offers.price`, `og:price:amount`, `product-price` → comparable names. */
export const norm = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/^https?:\/\/schema\.org\//, '')
    .replace(/[^\p{L}\p{N}]/gu, '');

const LEFT_ENTITY = /&(?:#\d+|#x[\da-f]+|[a-z][a-z\d]*);/i;

/** Text with the HTML entities a template escaped twice decoded (`Black &amp; Silver`, `&#x1F62D;`). */
export const decodeLeftEntities = (s: string) => (LEFT_ENTITY.test(s) ? decodeHTMLStrict(s) : s);
