/**
 * JSON-LD: every `<script type="application/ld+json">`, `@graph` flattened, nested values
 * (offers, aggregateRating, brand) kept under their path, entities numbered in order.
 */
import type { Document } from '../../document/dom.js';
import { elements, scriptText } from '../../document/dom.js';
import { flattenGraph, parseLenient } from '../../document/json-ld.js';
import { decodeLeftEntities, norm, type Candidate } from '../candidate.js';

const MAX_NODES = 20_000;

export function jsonLdCandidates(doc: Document, out: Candidate[]): void {
  let entityIndex = 0;
  let budget = MAX_NODES;
  for (const el of elements(doc)) {
    if (el.name !== 'script' || !/ld\+json/i.test(el.attribs.type ?? '')) continue;
    const data = parseLenient(scriptText(el));
    if (data === undefined) continue;
    const roots = flattenGraph(data);
    for (const root of roots) {
      if (!root || typeof root !== 'object' || Array.isArray(root)) continue;
      const entity = typeOf(root);
      const idx = entityIndex++;
      walk(root as Record<string, unknown>, [], entity, idx);
    }
  }

  function walk(v: unknown, path: string[], entity: string | undefined, idx: number, depth = 0, item?: string): void {
    if (--budget < 0 || depth > 10 || v === null || v === undefined) return;
    if (Array.isArray(v)) {
      if (v.length && v.every((x) => typeof x !== 'object' || x === null)) {
        push(path, v, entity, idx, item);
        return;
      }
      // Each object of a list is an item of its own (ItemList elements, offers, reviews).
      v.forEach((x, i) => walk(x, path, entity, idx, depth + 1, item ?? `${idx}:${path.join('.')}[${i}]`));
      return;
    }
    if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      // A nested entity of another kind (a Review inside a Product) keeps its own type, so
      // the matcher can tell a review's rating from the product's.
      const nestedType = typeOf(o);
      const own = path.length && nestedType ? nestedType : entity;
      if (
        path.length &&
        typeof o.name === 'string' &&
        Object.keys(o).every((k) => k.startsWith('@') || k === 'name' || k === 'url' || k === 'logo')
      ) {
        // {"@type":"Brand","name":"X"}: the thing itself is its name.
        push(path, o.name, entity, idx, item);
      }
      for (const [k, x] of Object.entries(o)) {
        if (k === '@context' || k === '@type' || k === '@id') continue;
        walk(x, [...path, norm(k)], own, idx, depth + 1, item);
      }
      return;
    }
    if (path.length) push(path, v, entity, idx, item);
  }

  function push(path: string[], raw: unknown, entity: string | undefined, idx: number, item?: string) {
    // Markup written into the JSON by an HTML template: "Black &amp; Silver", "Elo&iacute;sa".
    const value = typeof raw === 'string' ? decodeLeftEntities(raw) : raw;
    out.push({
      path,
      value,
      kind: 'json-ld',
      source: `json-ld:${path.join('.')}`,
      entity,
      entityIndex: idx,
      confidence: 1,
      item,
    });
  }
}

function typeOf(o: unknown): string | undefined {
  const t = (o as Record<string, unknown>)?.['@type'];
  const first = Array.isArray(t) ? t[0] : t;
  return typeof first === 'string' ? norm(first) : undefined;
}

/** JSON-LD in the wild has comments, trailing commas and raw newlines in strings. */
