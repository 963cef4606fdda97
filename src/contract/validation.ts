/**
 * Request validation with Zod. Field helpers carry the sentence a person reads in `detail`
 * ("limit: must be an integer from 1 to 20"); `parseBody` turns the first issue into a
 * 400 invalid_request naming the field. The same Zod objects produce the OpenAPI document.
 */
import { z } from 'zod';
import { invalidRequest, invalidSchema } from '../errors.js';
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
  const issue = r.error.issues[0];
  const unknown = r.error.issues.find((i) => i.code === 'unrecognized_keys') as
    { keys: string[]; path: PropertyKey[] } | undefined;
  // "url" sent where "urls" is expected: name both, so the fix is obvious.
  if (unknown && issue.code === 'invalid_type' && issue.message === 'is required') {
    throw invalidRequest(
      `${fieldPath(issue.path)}: is required; ${unknown.keys.map((k) => fieldPath([...unknown.path, k])).join(', ')}: unknown field`,
    );
  }
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys;
    throw invalidRequest(
      `${keys.map((k) => fieldPath([...issue.path, k])).join(', ')}: unknown field${keys.length > 1 ? 's' : ''}`,
    );
  }
  let message = issue.message;
  if (message.startsWith('Invalid input')) {
    message =
      issue.code === 'invalid_type'
        ? `must be ${article((issue as { expected?: string }).expected ?? 'value')}`
        : 'has an invalid value';
  }
  throw invalidRequest(`${fieldPath(issue.path)}: ${message}`);
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
