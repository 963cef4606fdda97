/**
 * Firecrawl takes a JSON Schema for `json` extraction (the SDKs turn Zod schemas into one);
 * Trawl's extractor takes a schema object (API.md section 3). This reads the JSON Schema
 * subset that has a schema-object meaning — objects with `properties`, arrays with `items`,
 * the four scalar types, nullable types (`["string","null"]`, `anyOf` with `null`), `enum`
 * and `const` as their type, local `$ref`s — and refuses the rest naming the path (422
 * invalid_schema), since Trawl could not promise the shape asked for.
 */
import { invalidSchema } from '../../errors.js';
import type { SchemaNode, SchemaObject } from '../../engine/extract/schema.js';

type Json = Record<string, unknown>;
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);
/** Keywords that only describe or constrain values: they change no field's type. */
const NOTES = new Set([
  'description',
  'title',
  'default',
  'examples',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'required',
  'additionalProperties',
  '$schema',
  '$id',
  'definitions',
  '$defs',
  '$comment',
  'nullable',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

export function schemaFromJsonSchema(input: unknown, at: string): SchemaObject {
  if (!isObject(input)) throw invalidSchema(`${at}: must be a JSON Schema object`);
  const node = convert(input, input, at, 0, { nodes: 0 });
  if (typeof node !== 'object' || Array.isArray(node))
    throw invalidSchema(`${at}: the root must be an object schema ({"type":"object","properties":{…}})`);
  return node;
}

/** Nodes read at most: far above Trawl's 200 fields, and a bound on schemas whose $refs fan out. */
const MAX_NODES = 2000;

function convert(s: Json, root: Json, at: string, refs: number, seen: { nodes: number }): SchemaNode {
  if (++seen.nodes > MAX_NODES)
    throw invalidSchema(`${at}: the schema is too large (more than ${MAX_NODES} nodes once its $refs are followed)`);
  if (typeof s.$ref === 'string') {
    if (refs > 20) throw invalidSchema(`${at}: $ref nests too deep (a recursive schema has no schema-object form)`);
    return convert(resolve(s.$ref, root, at), root, at, refs + 1, seen);
  }
  for (const k of Object.keys(s)) {
    if (!NOTES.has(k) && !['type', 'properties', 'items', 'anyOf', 'oneOf', 'enum', 'const', '$ref'].includes(k)) {
      throw invalidSchema(`${at}.${k}: JSON Schema keyword '${k}' is not supported by Trawl's extractor`);
    }
  }
  const variants = (s.anyOf ?? s.oneOf) as unknown;
  if (variants !== undefined) {
    const list = Array.isArray(variants) ? variants.filter((v) => !(isObject(v) && v.type === 'null')) : [];
    if (list.length !== 1 || !isObject(list[0]))
      throw invalidSchema(`${at}: anyOf/oneOf is supported only as one type or null`);
    return convert(list[0], root, at, refs, seen);
  }
  const type = typeOf(s, at);
  if (type === 'object') {
    if (!isObject(s.properties) || !Object.keys(s.properties).length)
      throw invalidSchema(`${at}: an object needs "properties" with at least one field`);
    const out: SchemaObject = {};
    for (const [k, v] of Object.entries(s.properties)) {
      // Assigned as out[k], "__proto__" would replace the object's prototype, not name a field.
      if (k === '__proto__')
        throw invalidSchema(`${at}.properties.__proto__: "__proto__" cannot be a field name; choose another name`);
      if (!isObject(v)) throw invalidSchema(`${at}.properties.${k}: must be a JSON Schema object`);
      out[k] = convert(v, root, `${at}.properties.${k}`, refs, seen);
    }
    return out;
  }
  if (type === 'array') {
    if (!isObject(s.items)) throw invalidSchema(`${at}.items: an array needs "items" with one JSON Schema`);
    return [convert(s.items, root, `${at}.items`, refs, seen)];
  }
  return type as SchemaNode;
}

/** The one type a node stands for: `type` (null allowed beside it), else what enum/const hold. */
function typeOf(s: Json, at: string): string {
  let t = s.type;
  if (Array.isArray(t)) {
    const named = t.filter((x) => x !== 'null');
    if (named.length !== 1)
      throw invalidSchema(`${at}.type: one type (with or without "null") is supported, got ${JSON.stringify(t)}`);
    t = named[0];
  }
  if (t === undefined) {
    if (isObject(s.properties)) return 'object';
    if (s.items !== undefined) return 'array';
    const values = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
    if (Array.isArray(values) && values.length) {
      const kinds = new Set(
        values
          .filter((v) => v !== null)
          .map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)),
      );
      if (kinds.size === 1 && SCALARS.has([...kinds][0])) return [...kinds][0];
    }
    throw invalidSchema(`${at}: needs a "type" (string, number, integer, boolean, object or array)`);
  }
  if (typeof t !== 'string' || !(SCALARS.has(t) || t === 'object' || t === 'array'))
    throw invalidSchema(
      `${at}.type: unknown type ${JSON.stringify(t)} (use string, number, integer, boolean, object or array)`,
    );
  return t;
}

/** A local JSON pointer (`#/definitions/Item`, `#/$defs/Item`, `#/properties/a`). */
function resolve(ref: string, root: Json, at: string): Json {
  if (!ref.startsWith('#')) throw invalidSchema(`${at}.$ref: only references inside the schema ("#/…") are supported`);
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node =
      (isObject(node) || Array.isArray(node)) && Object.prototype.hasOwnProperty.call(node, key)
        ? (node as Json)[key]
        : undefined;
  }
  if (!isObject(node)) throw invalidSchema(`${at}.$ref: ${ref} does not point to a schema`);
  return node;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
