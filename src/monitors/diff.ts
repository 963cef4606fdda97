/**
 * Comparing a run's watched values with the baseline, and the optional `conditions` that
 * decide whether a change is worth an event.
 */
import { invalidRequest } from '../errors.js';
import { sameValue, type Value } from './fields.js';

export type Changes = Record<string, { from: Value; to: Value }>;

/**
 * Fields whose value differs from the baseline. A field the baseline does not have (first
 * run, or newly watched) is a baseline itself, not a change.
 */
export function diffValues(
  previous: Record<string, Value> | null,
  current: Record<string, Value>,
  watch: string[],
): Changes {
  const changes: Changes = {};
  if (!previous) return changes;
  for (const f of watch) {
    if (!Object.hasOwn(previous, f) || !Object.hasOwn(current, f)) continue;
    if (!sameValue(previous[f], current[f])) changes[f] = { from: previous[f], to: current[f] };
  }
  return changes;
}

/**
 * The baseline after a successful run: its values, and for watched fields it did not observe
 * (a page answering ≥ 400 yields only `status_code`) the values from before. Fields no longer
 * watched drop out.
 */
export function nextBaseline(
  previous: Record<string, Value> | null,
  current: Record<string, Value>,
  watch: string[],
): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const f of watch) {
    if (Object.hasOwn(current, f)) out[f] = current[f];
    else if (previous && Object.hasOwn(previous, f)) out[f] = previous[f];
  }
  return out;
}

export const CONDITION_OPS = ['changed', 'increased', 'decreased', 'lt', 'lte', 'gt', 'gte', 'eq', 'ne'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];
export interface Condition {
  field: string;
  op: ConditionOp;
  value?: Value;
}

const NUMERIC_OPS = new Set<ConditionOp>(['lt', 'lte', 'gt', 'gte']);
const NO_VALUE_OPS = new Set<ConditionOp>(['changed', 'increased', 'decreased']);

/** Validates `conditions` against the watch list; 400 naming the element and field on error. */
export function parseConditions(raw: unknown, watch: string[]): Condition[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.length > 20)
    throw invalidRequest(
      'conditions: must be an array of at most 20 rules such as {"field":"price","op":"lt","value":50}',
    );
  return raw.map((c, i) => {
    const at = `conditions[${i}]`;
    if (typeof c !== 'object' || c === null || Array.isArray(c))
      throw invalidRequest(`${at}: must be an object {"field","op","value"}`);
    const extra = Object.keys(c).filter((k) => !['field', 'op', 'value'].includes(k));
    if (extra.length) throw invalidRequest(`${at}.${extra[0]}: unknown field`);
    const { field, op = 'changed', value } = c as { field?: unknown; op?: unknown; value?: unknown };
    if (typeof field !== 'string' || !watch.includes(field))
      throw invalidRequest(`${at}.field: must be one of the watched fields (${watch.join(', ')})`);
    if (typeof op !== 'string' || !(CONDITION_OPS as readonly string[]).includes(op))
      throw invalidRequest(`${at}.op: must be one of ${CONDITION_OPS.join(', ')}`);
    const o = op as ConditionOp;
    if (NO_VALUE_OPS.has(o)) {
      if (value !== undefined) throw invalidRequest(`${at}.value: "${o}" takes no value`);
      return { field, op: o };
    }
    if (
      NUMERIC_OPS.has(o)
        ? typeof value !== 'number' || !Number.isFinite(value)
        : value === undefined || (value !== null && typeof value === 'object')
    ) {
      throw invalidRequest(
        `${at}.value: "${o}" needs ${NUMERIC_OPS.has(o) ? 'a number' : 'a string, number, boolean or null'}`,
      );
    }
    return { field, op: o, value: value as Value };
  });
}

function holds(c: Condition, changes: Changes, current: Record<string, Value>): boolean {
  const now = current[c.field];
  const ch = changes[c.field];
  switch (c.op) {
    case 'changed':
      return !!ch;
    case 'increased':
      return !!ch && typeof ch.from === 'number' && typeof ch.to === 'number' && ch.to > ch.from;
    case 'decreased':
      return !!ch && typeof ch.from === 'number' && typeof ch.to === 'number' && ch.to < ch.from;
    case 'eq':
      return sameValue(now, c.value ?? null);
    case 'ne':
      return !sameValue(now, c.value ?? null);
    default: {
      if (typeof now !== 'number' || typeof c.value !== 'number') return false;
      const v = c.value;
      return c.op === 'lt' ? now < v : c.op === 'lte' ? now <= v : c.op === 'gt' ? now > v : now >= v;
    }
  }
}

/**
 * Whether a run's changes make an event: something changed, and every condition holds (all of
 * them: a list of rules narrows, like filters). No conditions: any change.
 */
export function shouldNotify(
  changes: Changes,
  current: Record<string, Value>,
  conditions: Condition[] | null,
): boolean {
  if (!Object.keys(changes).length) return false;
  return (conditions ?? []).every((c) => holds(c, changes, current));
}
