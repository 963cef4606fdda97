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

type Changes = Record<string, { from: unknown; to: unknown }>;

/** Writes the snapshots and the run's references to them (nothing when there are none). */
async function write(db: Db, runId: string, rows: Map<string, string>, now: Date): Promise<void> {
  if (!rows.size) return;
  const nowIso = now.toISOString();
  const refreshBefore = new Date(now.getTime() - REFRESH_MS).toISOString();
  // Sorted: two runs storing the same snapshots lock them in one order (no deadlock on PostgreSQL).
  const hashes = [...rows.keys()].sort();
  await db
    .insertInto('snapshots')
    .values(
      hashes.map((hash) => ({
        hash,
        body: rows.get(hash)!,
        bytes: Buffer.byteLength(rows.get(hash)!),
        created_at: nowIso,
        stored_at: nowIso,
      })),
    )
    .onConflict((oc) =>
      oc
        .column('hash')
        .doUpdateSet((eb) => ({ stored_at: eb.ref('excluded.stored_at') }))
        .where('snapshots.stored_at', '<', refreshBefore),
    )
    .execute();
  await db
    .insertInto('snapshot_refs')
    .values(hashes.map((hash) => ({ run_id: runId, hash })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The value to write: a reference when it is large (its body then goes into `rows`). */
function refFor(v: unknown, rows: Map<string, string>): unknown {
  const body = bodyOf(v);
  if (!body) return v;
  const hash = sha256Hex(body);
  rows.set(hash, body);
  return { $snapshot: hash };
}

/**
 * Stores the large values of a run (in the run's transaction, after its row exists) and returns
 * the values to write: large ones replaced by references, small ones as they are. Nothing is
 * written when there is no large value.
 */
export async function store(db: Db, runId: string, values: Values, now = new Date()): Promise<Values> {
  const rows = new Map<string, string>();
  const out: Values = {};
  for (const [k, v] of Object.entries(values)) out[k] = refFor(v, rows);
  if (!rows.size) return values;
  await write(db, runId, rows, now);
  return out;
}

/**
 * A finished run's values and changes as the JSON to write (the runner's one call): large
 * values, and the large `from` / `to` of its changes, stored once as snapshots.
 */
export async function storeRun(
  db: Db,
  runId: string,
  values: Values,
  changes: Changes | null,
  now = new Date(),
): Promise<{ values: string; changes: string | null }> {
  const rows = new Map<string, string>();
  const v: Values = {};
  for (const [k, x] of Object.entries(values)) v[k] = refFor(x, rows);
  let c: Changes | null = null;
  if (changes && Object.keys(changes).length) {
    c = {};
    for (const [k, x] of Object.entries(changes)) c[k] = { from: refFor(x.from, rows), to: refFor(x.to, rows) };
  }
  await write(db, runId, rows, now);
  return { values: JSON.stringify(v), changes: c && JSON.stringify(c) };
}

async function bodies(db: Db, hashes: Iterable<string>): Promise<Map<string, unknown>> {
  const wanted = [...new Set(hashes)];
  const found = new Map<string, unknown>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db
      .selectFrom('snapshots')
      .select(['hash', 'body'])
      .where('hash', 'in', wanted.slice(i, i + 500))
      .execute();
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

/** References in parsed JSON: at the top level (values) and one level down (changes' from / to). */
function refsIn(o: Values, depth = 2, out: string[] = []): string[] {
  for (const v of Object.values(o)) {
    const h = refOf(v);
    if (h) out.push(h);
    else if (depth > 1 && v && typeof v === 'object' && !Array.isArray(v)) refsIn(v as Values, depth - 1, out);
  }
  return out;
}

function replaceRefs(o: Values, found: Map<string, unknown>, depth = 2): Values {
  const out: Values = {};
  for (const [k, v] of Object.entries(o)) {
    const h = refOf(v);
    out[k] = h
      ? found.has(h)
        ? found.get(h)
        : null
      : depth > 1 && v && typeof v === 'object' && !Array.isArray(v)
        ? replaceRefs(v as Values, found, depth - 1)
        : v;
  }
  return out;
}

/** JSON texts (runs' `values` and `changes`, monitors' `last_values`) expanded; one read for all distinct snapshots. */
export async function expandAll(db: Db, texts: (string | null)[]): Promise<(string | null)[]> {
  const parsed = texts.map((t) => (t !== null && t.includes('"$snapshot"') ? (JSON.parse(t) as Values) : undefined));
  const hashes = parsed.flatMap((p) => (p ? refsIn(p) : []));
  if (!hashes.length) return texts;
  const found = await bodies(db, hashes);
  return texts.map((t, i) => (parsed[i] ? JSON.stringify(replaceRefs(parsed[i]!, found)) : t));
}

/** Rows with the given JSON columns expanded (copies; other fields untouched). */
export async function expandRows<T, K extends keyof T>(db: Db, rows: T[], ...columns: K[]): Promise<T[]> {
  const texts = await expandAll(
    db,
    rows.flatMap((r) => columns.map((c) => r[c] as unknown as string | null)),
  );
  return rows.map((r, i) => {
    const changed = columns.filter((c, j) => texts[i * columns.length + j] !== (r[c] as unknown));
    if (!changed.length) return r;
    const copy = { ...r };
    columns.forEach((c, j) => ((copy as Record<K, unknown>)[c] = texts[i * columns.length + j]));
    return copy;
  });
}
