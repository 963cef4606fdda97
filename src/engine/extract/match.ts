/**
 * Picking a value for a schema field from the candidates. Each candidate is scored (score.ts):
 *   collector confidence × name match × nesting (is it under a container this field may
 *   live in?) × entity (the page's main item, or an Organization/Review/Breadcrumb?) ×
 *   document position × role checks (a crossed-out "was" price, an id with spaces) —
 * and the best one whose value coerces to the declared type wins.
 */
import { BRAND_VOCAB, coerceFor, spelledAsShown } from './field-values.js';
import { groupOf, type MatchContext, nameWeight, nestingFactor, scoreCandidate, SIDE_ENTITIES } from './score.js';
import type { Candidate } from './candidate.js';
import { coerce } from './coerce.js';
import type { ScalarType } from './schema.js';
import { vocabularyFor } from './vocabulary.js';
import type { DescriptionHint } from './hints.js';

export interface Picked {
  value: unknown;
  source: string;
  candidate: Candidate;
  score: number;
}

/** The best candidate for one scalar field, or undefined. */
export function pickScalar(
  field: string,
  parents: string[],
  type: ScalarType,
  candidates: Candidate[],
  ctx: MatchContext,
  hint?: DescriptionHint,
): Picked | undefined {
  let best: Picked | undefined;
  for (const c of candidates) {
    const score = scoreCandidate(c, field, parents, type, ctx, hint);
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
  hint?: DescriptionHint,
): { values: unknown[]; source?: string } {
  const scored = candidates
    .map((c) => ({ c, s: scoreCandidate(c, field, parents, type, ctx, hint) }))
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
