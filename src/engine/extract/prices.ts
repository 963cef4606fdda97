/** Prices the page itself marks as former, starting or marked-down ones (the match context reads them lazily). */
import { priceNameFactor } from './box-names.js';
import { ancestorsNames, isStruck } from './score.js';
import { type Candidate } from './candidate.js';
import { parseNumber } from './coerce.js';

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
