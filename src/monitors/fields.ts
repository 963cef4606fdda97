/**
 * What a monitor can watch: the built-ins every page has, the fields of the caller's schema,
 * and for marketplace pages the product record's scalar fields. Values are normalised before
 * they are compared, so "19.99" vs 19.99 or a trailing space is never a change.
 */
import { PRODUCT_SCALAR_FIELDS } from '../engine/marketplace/product.js';

export const BUILTIN_FIELDS = ['title', 'markdown', 'status_code'] as const;

/** What a monitor on an advertiser's Ad Library (or page) URL watches: their ads. */
export const ADVERTISER_FIELDS = ['total', 'ad_ids'] as const;
export const watchesAdvertiser = (watch: string[]) =>
  watch.length > 0 && watch.every((f) => (ADVERTISER_FIELDS as readonly string[]).includes(f));

/** Names a monitor with this schema / marketplace (or on an advertiser's URL) can watch. */
export function watchableFields(
  schema: Record<string, unknown> | null,
  marketplace: string | null,
  advertiser = false,
): Set<string> {
  const names = new Set<string>(BUILTIN_FIELDS);
  if (advertiser) for (const k of ADVERTISER_FIELDS) names.add(k);
  if (schema) for (const k of Object.keys(schema)) names.add(k);
  else if (marketplace) for (const k of PRODUCT_SCALAR_FIELDS) names.add(k);
  return names;
}

export type Value = null | boolean | number | string | Value[] | { [k: string]: Value };

/** Numbers as numbers, strings trimmed (inner whitespace runs folded), objects with sorted keys. */
export function normalise(v: unknown): Value {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.replace(/\s+/g, ' ').trim();
    return s === '' ? null : s;
  }
  if (Array.isArray(v)) return v.map(normalise);
  if (typeof v === 'object') {
    const out: { [k: string]: Value } = {};
    for (const k of Object.keys(v as object).sort()) out[k] = normalise((v as Record<string, unknown>)[k]);
    return out;
  }
  return String(v);
}

export const sameValue = (a: Value, b: Value): boolean => JSON.stringify(a) === JSON.stringify(b);
