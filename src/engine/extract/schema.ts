/**
 * Schema objects (API.md section 3): `{field: "string"|"number"|"integer"|"boolean" | {…} | [T]}`.
 * `compileSchema` checks one (limits: depth ≤ 5, ≤ 200 fields, names 1–64 chars), and
 * compiles it to a JSON Schema with an Ajv validator for the output. Faults are 422
 * invalid_schema with the path of the fault (`schema.items[0].price: unknown type 'money'`).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { invalidSchema } from '../../errors.js';

export type ScalarType = 'string' | 'number' | 'integer' | 'boolean';
export type SchemaNode = ScalarType | SchemaObject | [SchemaNode];
export interface SchemaObject {
  [field: string]: SchemaNode;
}

export const SCHEMA_LIMITS = { maxDepth: 5, maxFields: 200, maxNameLength: 64 } as const;
const SCALARS = new Set<string>(['string', 'number', 'integer', 'boolean']);

export interface CompiledSchema {
  schema: SchemaObject;
  jsonSchema: Record<string, unknown>;
  validate: ValidateFunction;
  /** Output with every key present and nothing found: nulls, and [] for arrays. */
  empty(): Record<string, unknown>;
}

const ajv = new Ajv({ allErrors: false, strict: true });
const cache = new Map<string, CompiledSchema>();

export function compileSchema(input: unknown, path = 'schema'): CompiledSchema {
  const key = JSON.stringify(input);
  const hit = key !== undefined && cache.get(key);
  if (hit) return hit;
  const counter = { fields: 0 };
  checkObject(input, path, 1, counter);
  const schema = input as SchemaObject;
  const jsonSchema = toJsonSchema(schema, false);
  const compiled: CompiledSchema = {
    schema,
    jsonSchema,
    validate: ajv.compile(jsonSchema),
    empty: () => emptyValue(schema) as Record<string, unknown>,
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

function checkObject(v: unknown, path: string, depth: number, counter: { fields: number }): void {
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
    checkNode((v as Record<string, unknown>)[k], p, depth, counter);
  }
}

function checkNode(v: unknown, path: string, depth: number, counter: { fields: number }): void {
  if (typeof v === 'string') {
    if (!SCALARS.has(v)) throw invalidSchema(`${path}: unknown type '${v}' (use string, number, integer or boolean)`);
    return;
  }
  if (Array.isArray(v)) {
    if (v.length !== 1)
      throw invalidSchema(`${path}: an array type must have exactly one element, the item type (e.g. ["string"])`);
    checkNode(v[0], `${path}[0]`, depth, counter);
    return;
  }
  if (typeof v === 'object' && v !== null) return checkObject(v, path, depth + 1, counter);
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

function emptyValue(node: SchemaNode): unknown {
  if (typeof node === 'string') return null;
  if (Array.isArray(node)) return [];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node))
    out[k] = Array.isArray(v) ? [] : typeof v === 'object' ? emptyValue(v) : null;
  return out;
}
