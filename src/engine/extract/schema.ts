/**
 * Schema objects (API.md section 3): `{field: "string"|"number"|"integer"|"boolean" | {…} | [T]}`,
 * or the same written as JSON Schema (`{"type":"object","properties":{…}}`, read by
 * json-schema.ts with its enums, formats and descriptions as hints).
 * `compileSchema` checks one (limits: depth ≤ 5, ≤ 200 fields, names 1–64 chars), and
 * compiles it to a JSON Schema with an Ajv validator for the output. Faults are 422
 * invalid_schema with the path of the fault (`schema.items[0].price: unknown type 'money'`).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { invalidSchema } from '../../errors.js';
import { normaliseDate } from './dates.js';
import {
  enumMember,
  inFormat,
  isJsonSchema,
  isPropertiesMap,
  looksLikeSchemaNode,
  readJsonSchema,
  readPropertiesMap,
  type FieldHints,
} from './json-schema.js';

import type { SchemaNode, SchemaObject } from './schema-shape.js';

export type { ScalarType, SchemaNode, SchemaObject } from './schema-shape.js';

export const SCHEMA_LIMITS = { maxDepth: 5, maxFields: 200, maxNameLength: 64 } as const;
const SCALARS = new Set<string>(['string', 'number', 'integer', 'boolean']);

export interface CompiledSchema {
  schema: SchemaObject;
  /** What a JSON Schema said beyond types (enums, formats, descriptions); none for the short form. */
  hints?: FieldHints;
  jsonSchema: Record<string, unknown>;
  validate: ValidateFunction;
  /** Output with every key present and nothing found: nulls, and [] for arrays. */
  empty(): Record<string, unknown>;
  /**
   * Found values held to the hints: a value outside its enum maps to the member it spells
   * ("In Stock" → "in_stock") or becomes null; a string of a checked format is normalised
   * or becomes null. Its source goes with a value dropped. Values are changed in place.
   */
  finish(json: Record<string, unknown>, sources?: Record<string, string>): Record<string, unknown>;
}

const ajv = new Ajv({ allErrors: false, strict: true });
const cache = new Map<string, CompiledSchema>();

export function compileSchema(input: unknown, path = 'schema'): CompiledSchema {
  const key = JSON.stringify(input);
  const hit = key !== undefined && cache.get(key);
  if (hit) return hit;
  const counter = { fields: 0 };
  const read = isJsonSchema(input)
    ? readJsonSchema(input, path)
    : isPropertiesMap(input)
      ? readPropertiesMap(input, path)
      : undefined;
  checkObject(read ? read.schema : input, path, 1, counter, !!read);
  const schema = (read ? read.schema : input) as SchemaObject;
  const hints = read?.hints;
  const jsonSchema = toJsonSchema(schema, false);
  const compiled: CompiledSchema = {
    schema,
    ...(hints ? { hints } : {}),
    jsonSchema,
    validate: ajv.compile(jsonSchema),
    empty: () => emptyValue(schema) as Record<string, unknown>,
    finish: (json, sources) => (hints ? (holdTo(schema, hints, json, sources, '') as Record<string, unknown>) : json),
  };
  if (cache.size > 500) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? `'${v}'` : `a ${typeof v}`;
}

/** The short form's words for a schema that is neither it nor JSON Schema (a mix of both, often). */
const BOTH_FORMS =
  ' (a schema is either the short form {"price":"number"} or a JSON Schema whose root has "type":"object" and "properties")';

function checkObject(v: unknown, path: string, depth: number, counter: { fields: number }, read = false): void {
  if (v === undefined) throw invalidSchema(`${path}: is required`);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw invalidSchema(`${path}: must be an object of field names to types, got ${describe(v)}`);
  }
  if (depth > SCHEMA_LIMITS.maxDepth)
    throw invalidSchema(`${path}: too deep; schemas nest at most ${SCHEMA_LIMITS.maxDepth} levels`);
  const keys = Object.keys(v);
  if (!keys.length) throw invalidSchema(`${path}: must have at least one field`);
  for (const k of keys) {
    const p = `${path}.${k}`;
    // Assigned as out[k], "__proto__" would replace an object's prototype, not name a field.
    if (k === '__proto__') throw invalidSchema(`${p}: "__proto__" cannot be a field name; choose another name`);
    if (k.length < 1 || k.length > SCHEMA_LIMITS.maxNameLength) {
      throw invalidSchema(
        `${path}: field name "${k.slice(0, 80)}" must be 1 to ${SCHEMA_LIMITS.maxNameLength} characters`,
      );
    }
    if (++counter.fields > SCHEMA_LIMITS.maxFields)
      throw invalidSchema(`${path}: too many fields; at most ${SCHEMA_LIMITS.maxFields} in all`);
    checkNode((v as Record<string, unknown>)[k], p, depth, counter, read);
  }
}

function checkNode(v: unknown, path: string, depth: number, counter: { fields: number }, read: boolean): void {
  if (typeof v === 'string') {
    if (!SCALARS.has(v))
      throw invalidSchema(
        `${path}: unknown type '${v}' (use string, number, integer or boolean${v === 'object' || v === 'array' ? `; for nested values write {…} or [T]${BOTH_FORMS}` : ''})`,
      );
    return;
  }
  if (Array.isArray(v)) {
    if (v.length !== 1)
      throw invalidSchema(`${path}: an array type must have exactly one element, the item type (e.g. ["string"])`);
    checkNode(v[0], `${path}[0]`, depth, counter, read);
    return;
  }
  if (typeof v === 'object' && v !== null) {
    // A JSON Schema node inside the short form ({"price": {"type": "number"}}) that does not
    // read as a short form object either: say what was meant.
    if (!read && looksLikeSchemaNode(v)) {
      try {
        checkObject(v, path, depth + 1, { fields: 0 }, read);
      } catch {
        const t = (v as { type: string }).type;
        throw invalidSchema(
          `${path}: looks like JSON Schema inside the short form; write "${path.split('.').pop()}": "${SCALARS.has(t) ? t : 'string'}" here, or send the whole schema as JSON Schema${BOTH_FORMS}`,
        );
      }
    }
    return checkObject(v, path, depth + 1, counter, read);
  }
  throw invalidSchema(`${path}: must be a type name, an object or a one-element array, got ${describe(v)}`);
}

function toJsonSchema(node: SchemaNode, nullable = true): Record<string, unknown> {
  if (typeof node === 'string') return { type: nullable ? [node, 'null'] : node };
  if (Array.isArray(node)) return { type: 'array', items: toJsonSchema(node[0], false) };
  const properties: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) properties[k] = toJsonSchema(v, true);
  return {
    type: nullable ? ['object', 'null'] : 'object',
    properties,
    required: Object.keys(node),
    additionalProperties: false,
  };
}

function holdTo(
  node: SchemaNode,
  hints: FieldHints | undefined,
  v: unknown,
  sources: Record<string, string> | undefined,
  path: string,
): unknown {
  if (!hints || v === null || v === undefined) return v;
  if (typeof node === 'string') {
    let out: unknown = v;
    if (hints.enum) out = enumMember(v, hints.enum) ?? null;
    if (typeof out === 'string' && hints.format) out = inFormat(out, hints.format, normaliseDate) ?? null;
    if (out === null && sources) delete sources[path];
    return out;
  }
  if (Array.isArray(node)) {
    if (!Array.isArray(v) || !hints.items) return v;
    const kept = v.map((x, i) => holdTo(node[0], hints.items, x, sources, `${path}[${i}]`));
    // A list of scalars keeps only what fits; a list of objects keeps every object.
    return typeof node[0] === 'string' ? kept.filter((x) => x !== null) : kept;
  }
  if (typeof v !== 'object' || Array.isArray(v) || !hints.fields) return v;
  const o = v as Record<string, unknown>;
  for (const [k, h] of Object.entries(hints.fields))
    if (k in node) o[k] = holdTo(node[k], h, o[k], sources, path ? `${path}.${k}` : k);
  return o;
}

function emptyValue(node: SchemaNode): unknown {
  if (typeof node === 'string') return null;
  if (Array.isArray(node)) return [];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node))
    out[k] = Array.isArray(v) ? [] : typeof v === 'object' ? emptyValue(v) : null;
  return out;
}
