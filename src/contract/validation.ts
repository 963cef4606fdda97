/**
 * Request validation with Zod. Field helpers carry the sentence a person reads in `detail`
 * ("limit: must be an integer from 1 to 20"); `parseBody` turns the first issue into a
 * 400 invalid_request naming the field. The same Zod objects produce the OpenAPI document.
 */
import { z } from 'zod';
import { TrawlError, invalidRequest, invalidSchema } from '../errors.js';
import { MAX_URL_CHARS } from './limits.js';
import { compileSchema, type CompiledSchema, type Format } from '../engine/index.js';

const req = (msg: string) => ({ error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : msg) });

export const intIn = (min: number, max: number, msg = `must be an integer from ${min} to ${max}`) => {
  return z.number(req(msg)).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg });
};

export const httpUrl = (what = 'an http or https URL') =>
  z
    .string(req(`must be ${what}`))
    .max(MAX_URL_CHARS, { error: `must be at most ${MAX_URL_CHARS} characters` })
    .refine(
      (s) => {
        try {
          const u = new URL(s);
          return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
        } catch {
          return false;
        }
      },
      { error: `must be ${what}` },
    );

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, req(`must be one of ${values.join(', ')}`));

export const bool = () => z.boolean(req('must be true or false'));

export const text = (min: number, max: number) => {
  const msg =
    min > 0 ? `must be a string of ${min} to ${max} characters` : `must be a string of at most ${max} characters`;
  return z.string(req(msg)).min(min, { error: msg }).max(max, { error: msg });
};

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || 'body';
}

/**
 * The path of the first own `__proto__` key in a parsed body, if any. The JSON parser keeps
 * such keys as plain data (Fastify's onProtoPoisoning: 'ignore') so that a caller who names a
 * schema field `__proto__` hears which one; no code ever sees them, since they are refused here.
 */
function protoKeyPath(v: unknown, path: PropertyKey[] = [], budget = { nodes: 100_000 }): PropertyKey[] | undefined {
  if (typeof v !== 'object' || v === null || --budget.nodes < 0) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = protoKeyPath(v[i], [...path, i], budget);
      if (found) return found;
    }
    return undefined;
  }
  if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return [...path, '__proto__'];
  for (const [k, child] of Object.entries(v)) {
    const found = protoKeyPath(child, [...path, k], budget);
    if (found) return found;
  }
  return undefined;
}

/** What a route that needs a body says when none came (no body, or an empty one). */
export const EMPTY_BODY = 'body: must be a JSON object (the body was empty)';

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  if (body === undefined) throw invalidRequest(EMPTY_BODY);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('body: must be a JSON object');
  }
  const proto = protoKeyPath(body);
  if (proto) {
    const where = fieldPath(proto);
    if (proto[0] === 'schema') throw invalidSchema(`${where}: "__proto__" cannot be a field name; choose another name`);
    throw invalidRequest(`${where}: "__proto__" is not allowed as a key`);
  }
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  throw bodyFaults(schema, r.error.issues, body);
}

const MAX_FAULTS = 50;
const MAX_IN_DETAIL = 10;

/** One fault of a body: the field's path and the sentence that names it. */
export interface Fault {
  field: string;
  detail: string;
}

/**
 * Every fault of a body in one answer, in the order the body's fields were sent (a field not
 * sent, such as a missing required one, after those that were): the first in `detail`, and,
 * when there are several, all of them in `errors` (so a caller fixes a request in one round).
 */
function bodyFaults(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], body: unknown): TrawlError {
  // `detail` is made only for the faults reported (a did-you-mean per key of 100,000 took seconds).
  const faults: { field: string; detail: () => string; at: number[]; parent?: string; missing?: boolean }[] = [];
  const seen: KeyOrder = new WeakMap();
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const k of (issue as { keys: string[] }).keys) {
        const field = fieldPath([...issue.path, k]);
        const detail = () => {
          const near = didYouMean(k, knownKeys(schema, issue.path));
          return `${field}: unknown field${near ? `; did you mean ${fieldPath([...issue.path, near])}?` : ''}`;
        };
        faults.push({
          field,
          detail,
          at: sentAt(body, [...issue.path, k], seen),
          parent: fieldPath(issue.path),
        });
      }
      continue;
    }
    let message = issue.message;
    if (message.startsWith('Invalid input')) {
      message =
        issue.code === 'invalid_type'
          ? `must be ${article((issue as { expected?: string }).expected ?? 'value')}`
          : 'has an invalid value';
    }
    const field = fieldPath(issue.path);
    const missing = issue.code === 'invalid_type' && issue.message === 'is required';
    faults.push({ field, detail: () => `${field}: ${message}`, at: sentAt(body, issue.path, seen), missing });
  }
  faults.sort((a, b) => compareAt(a.at, b.at)); // stable: Zod's order among equals
  const [head] = faults;
  let first = head.detail();
  if (head.parent !== undefined) {
    // Several unknown keys of one object: one sentence, each with its suggestion; and a missing
    // required field beside them ("url" sent where "urls" is expected), so the fix is obvious.
    const same = faults.filter((f) => f.parent === head.parent);
    first = same
      .slice(0, MAX_IN_DETAIL)
      .map((f) => f.detail())
      .join('; ');
    if (same.length > MAX_IN_DETAIL) first += `; and ${same.length - MAX_IN_DETAIL} more unknown fields`;
    const missing = faults.find((f) => f.missing);
    if (missing) first += `; ${missing.detail()}`;
  }
  // (Bounded: a body of thousands of bad keys gets the first ones, not an answer as large.)
  const errors: Fault[] = faults.slice(0, MAX_FAULTS).map(({ field, detail }) => ({ field, detail: detail() }));
  return new TrawlError('invalid_request', first, faults.length > 1 ? { fields: { errors } } : {});
}

/**
 * Where a path sits in the body as sent: per level, the key's position among its object's keys
 * (JSON keeps the order written) or the array index; a level not sent ends it with Infinity.
 */
function sentAt(body: unknown, path: readonly PropertyKey[], seen: KeyOrder): number[] {
  const at: number[] = [];
  let node = body;
  for (const p of path) {
    if (Array.isArray(node) && typeof p === 'number' && p < node.length) {
      at.push(p);
      node = node[p];
      continue;
    }
    const i = node !== null && typeof node === 'object' ? (keyOrder(seen, node).get(String(p)) ?? -1) : -1;
    if (i < 0) return [...at, Infinity];
    at.push(i);
    node = (node as Record<string, unknown>)[String(p)];
  }
  return at;
}

/** Each object's keys by position, read once per body: a body of 20,000 unknown keys took minutes when each was looked up in a fresh list. */
type KeyOrder = WeakMap<object, Map<string, number>>;
function keyOrder(seen: KeyOrder, node: object): Map<string, number> {
  let order = seen.get(node);
  if (!order) seen.set(node, (order = new Map(Object.keys(node).map((k, i) => [k, i]))));
  return order;
}

function compareAt(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/** The keys a strict object of `schema` at `path` accepts (none when the path leads elsewhere). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  const def = (n: unknown) => (n as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
  const unwrap = (n: unknown): unknown => {
    for (let i = 0; i < 10; i++) {
      const d = def(n);
      if (!d) return n;
      if (d.innerType) n = d.innerType;
      else if (d.type === 'pipe' && d.in) n = d.in;
      else return n;
    }
    return n;
  };
  for (const p of path) {
    node = unwrap(node);
    const d = def(node);
    if (!d) return [];
    if (typeof p === 'number' && d.type === 'array') node = d.element;
    else if (d.type === 'object' && d.shape) node = (d.shape as Record<string, unknown>)[String(p)];
    else return [];
  }
  const d = def(unwrap(node));
  return d?.type === 'object' && d.shape ? Object.keys(d.shape as object) : [];
}

const snake = (k: string) =>
  k
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();

/** The accepted key a mistyped or camelCase one stands for: `onlyMainContent` → `only_main_content`, `formt` → `formats`. */
export function didYouMean(key: string, known: string[]): string | undefined {
  if (!known.length) return undefined;
  const s = snake(key);
  const exact = known.find((k) => k === s || k.replace(/_/g, '') === s.replace(/_/g, ''));
  if (exact) return exact;
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(s, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  // Near enough to be a typo: at most 2 edits, and at most a third of the name.
  return best !== undefined && bestD <= Math.min(2, Math.max(1, Math.floor(best.length / 3))) ? best : undefined;
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

/** The two forms a schema may take, as a 422 says them. */
export const SCHEMA_FORMS =
  'a JSON Schema ({"type":"object","properties":{"price":{"type":"number"}}}) or the short form ({"price":"number"})';

/**
 * The schema of an extraction, or none when a prompt alone may drive the LLM. Without a schema:
 * with a prompt and an LLM, none is needed; otherwise 422 saying what to send.
 */
export function schemaOrPrompt(
  schema: unknown,
  prompt: string | undefined,
  hasLlm: boolean,
  at = 'schema',
): CompiledSchema | undefined {
  if (schema !== undefined) return compileSchema(schema, at);
  if (prompt !== undefined && hasLlm) return undefined;
  if (prompt !== undefined)
    throw invalidSchema(
      `${at}: is required: this server has no LLM to read a prompt alone (its operator can set LLM_BASE_URL, LLM_MODEL and LLM_API_KEY), so send ${SCHEMA_FORMS}`,
    );
  throw invalidSchema(
    `${at}: is required; send ${SCHEMA_FORMS}${hasLlm ? ', or a "prompt" saying what to extract' : ''}`,
  );
}

/**
 * `formats` + `schema` of scrape and crawl: the formats asked (json added when a schema comes
 * without formats) and the compiled schema; json without a schema is 422.
 */
export function formatsAndSchema(
  formats: string[] | undefined,
  schema: unknown,
  prompt?: { prompt?: string; hasLlm: boolean },
): { formats?: Format[]; schema?: CompiledSchema } {
  const f = formats as Format[] | undefined;
  const wantsJson = f ? f.includes('json') : schema !== undefined;
  if (wantsJson && schema === undefined) {
    // A prompt alone drives the LLM where the surface takes one (scrape); else say what to send.
    if (prompt) return { formats: f, schema: schemaOrPrompt(undefined, prompt.prompt, prompt.hasLlm) };
    throw invalidSchema(`schema: is required when formats includes "json"; send ${SCHEMA_FORMS}`);
  }
  return { formats: f, schema: schema !== undefined ? compileSchema(schema) : undefined };
}
