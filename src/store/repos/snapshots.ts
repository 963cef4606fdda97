/**
 * Content-addressed snapshots: a watched value whose JSON is over 1 KiB (a page's markdown, a
 * long list of ids) is stored once in `snapshots`, keyed by the SHA-256 of that JSON, and a run's
 * values (and the monitor's baseline) hold {"$snapshot": "<hash>"} in its place; `snapshot_refs`
 * records which run uses which snapshot. An unchanged page then costs a 64-byte reference a run.
 * Readers call `expand` / `expandAll`, so the API and the dashboard see the values themselves.
 */
import { sha256Hex } from '../ids.js';
import type { Db } from './accounts.js';

/** Values whose JSON is longer than this are stored as snapshots. */
export const SNAPSHOT_MIN_BYTES = 1024;
/** A snapshot stored again refreshes its stored_at when it is older than this (not on every run: fewer writes). */
export const REFRESH_MS = 10 * 60_000;
/** A snapshot stored within this is never pruned: far longer than any transaction that refers to it. */
export const GRACE_MS = 60 * 60_000;

type Values = Record<string, unknown>;
const HASH = /^[0-9a-f]{64}$/;

/** The hash a value stands for, if it is a snapshot reference. */
export function refOf(v: unknown): string | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  const h = (v as Record<string, unknown>).$snapshot;
  return keys.length === 1 && typeof h === 'string' && HASH.test(h) ? h : undefined;
}

const bodyOf = (v: unknown): string | undefined => {
  if (v === null || (typeof v !== 'string' && typeof v !== 'object')) return undefined;
  const body = JSON.stringify(v);
  return Buffer.byteLength(body) > SNAPSHOT_MIN_BYTES ? body : undefined;
};

/**
 * Stores the large values of a run (in the run's transaction) and returns the values to write:
 * large ones replaced by references. Small values are returned as they are; nothing is written
 * when there is no large value.
 */
export async function store(db: Db, runId: string, values: Values, now = new Date()): Promise<Values> {
  const out: Values = {};
  const rows = new Map<string, string>();
  for (const [k, v] of Object.entries(values)) {
    const body = bodyOf(v);
    if (!body) {
      out[k] = v;
      continue;
    }
    const hash = sha256Hex(body);
    rows.set(hash, body);
    out[k] = { $snapshot: hash };
  }
  if (!rows.size) return values;
  const nowIso = now.toISOString();
  const refreshBefore = new Date(now.getTime() - REFRESH_MS).toISOString();
  // Sorted: two runs storing the same snapshots lock them in one order (no deadlock on PostgreSQL).
  const hashes = [...rows.keys()].sort();
  await db
    .insertInto('snapshots')
    .values(hashes.map((hash) => ({ hash, body: rows.get(hash)!, bytes: Buffer.byteLength(rows.get(hash)!), created_at: nowIso, stored_at: nowIso })))
    .onConflict((oc) => oc.column('hash').doUpdateSet((eb) => ({ stored_at: eb.ref('excluded.stored_at') })).where('snapshots.stored_at', '<', refreshBefore))
    .execute();
  await db
    .insertInto('snapshot_refs')
    .values(hashes.map((hash) => ({ run_id: runId, hash })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  return out;
}

async function bodies(db: Db, hashes: Iterable<string>): Promise<Map<string, unknown>> {
  const wanted = [...new Set(hashes)];
  const found = new Map<string, unknown>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db.selectFrom('snapshots').select(['hash', 'body']).where('hash', 'in', wanted.slice(i, i + 500)).execute();
    for (const r of rows) found.set(r.hash, JSON.parse(r.body));
  }
  return found;
}

/**
 * Values with their references replaced by what they stand for. `known`: values at hand (the
 * run's own observation) used instead of a read when their hash matches, so comparing an
 * unchanged page with its baseline reads nothing. A missing snapshot reads as null.
 */
export async function expand(db: Db, values: Values, known?: Values): Promise<Values> {
  const out: Values = { ...values };
  const need = new Map<string, string>();
  for (const [k, v] of Object.entries(values)) {
    const h = refOf(v);
    if (!h) continue;
    const body = known && Object.hasOwn(known, k) ? bodyOf(known[k]) : undefined;
    if (body && sha256Hex(body) === h) out[k] = known![k];
    else need.set(k, h);
  }
  if (need.size) {
    const found = await bodies(db, need.values());
    for (const [k, h] of need) out[k] = found.has(h) ? found.get(h) : null;
  }
  return out;
}

/** JSON texts of values (runs' `values`, monitors' `last_values`) expanded; one read for all distinct snapshots. */
export async function expandAll(db: Db, texts: (string | null)[]): Promise<(string | null)[]> {
  const parsed = texts.map((t) => (t !== null && t.includes('"$snapshot"') ? (JSON.parse(t) as Values) : undefined));
  const hashes = parsed.flatMap((p) => (p ? Object.values(p).map(refOf).filter((h): h is string => !!h) : []));
  if (!hashes.length) return texts;
  const found = await bodies(db, hashes);
  return texts.map((t, i) => {
    const p = parsed[i];
    if (!p) return t;
    const out: Values = {};
    for (const [k, v] of Object.entries(p)) {
      const h = refOf(v);
      out[k] = h ? (found.has(h) ? found.get(h) : null) : v;
    }
    return JSON.stringify(out);
  });
}

/** Rows with their `values` / `last_values` column expanded (a copy; other fields untouched). */
export async function expandRows<T, K extends keyof T>(db: Db, rows: T[], column: K): Promise<T[]> {
  const texts = await expandAll(db, rows.map((r) => r[column] as unknown as string | null));
  return rows.map((r, i) => (texts[i] === (r[column] as unknown) ? r : { ...r, [column]: texts[i] }));
}
