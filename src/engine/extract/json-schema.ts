/**
 * JSON Schema (draft 2020-12, the subset an extractor can fill) as a schema language beside
 * Trawl's short form. Firecrawl, OpenAI structured outputs, Pydantic and Zod (via
 * zod-to-json-schema / z.toJSONSchema) all send one. Read here into the short form's shape —
 * objects with `properties`, arrays with `items`, the four scalar types, nullable types
 * (`["string","null"]`, `anyOf` with `null`), `enum` and `const`, local `$ref`s — plus the
 * hints the short form cannot say (`description`, `enum`, `format`), which the extractor and
 * the LLM pass use. What has no such meaning is refused naming the path (422 invalid_schema),
 * since Trawl could not promise the shape asked for.
 */
import { invalidSchema } from '../../errors.js';
import type { SchemaNode, SchemaObject } from './schema-shape.js';

type Json = Record<string, unknown>;
export type EnumValue = string | number | boolean;

/** What a JSON Schema says of a field beyond its type; mirrors the schema's tree. */
export interface FieldHints {
  description?: string;
  enum?: EnumValue[];
  format?: string;
  /** An object's fields. */
  fields?: Record<string, FieldHints>;
  /** An array's items. */
  items?: FieldHints;
}

export interface ReadJsonSchema {
  schema: SchemaObject;
  /** Undefined when the schema says nothing beyond types. */
  hints?: FieldHints;
}

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
  'unevaluatedProperties',
  'propertyOrdering',
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
const STRUCTURE = ['type', 'properties', 'items', 'anyOf', 'oneOf', 'enum', 'const', '$ref'];
const KEYWORDS = new Set([...NOTES, ...STRUCTURE]);
/** Formats the extractor checks and normalises; others are accepted as descriptions. */
export const CHECKED_FORMATS = ['date', 'date-time', 'uri', 'url', 'email'] as const;

/**
 * Whether a schema is written as JSON Schema rather than in the short form, whose fields may
 * be named `type` or `properties` too (`{"type":"string","properties":"string"}` is two
 * fields). In order: a root `type` of "object" (or a list holding it) is JSON Schema, since the
 * short form has no type named object; a `$schema` other than a type name, or a `$ref` to
 * "#…", is JSON Schema; any other root `type` is a short form field (a JSON Schema's root is
 * an object); without `type`, JSON Schema only when every root key is a keyword and every
 * value of `properties` is a JSON Schema node (an object of keywords only), so
 * `{"properties":{"address":{"city":"string"}}}` stays a short form.
 */
export function isJsonSchema(v: unknown): v is Json {
  if (!isObject(v)) return false;
  const t = v.type;
  if (t === 'object' || (Array.isArray(t) && t.includes('object'))) return true;
  if (typeof v.$schema === 'string' && !SCALARS.has(v.$schema)) return true;
  if (typeof v.$ref === 'string' && v.$ref.startsWith('#')) return true;
  if (t !== undefined) return false;
  return (
    isObject(v.properties) &&
    Object.keys(v).every((k) => KEYWORDS.has(k)) &&
    Object.values(v.properties).every((p) => isObject(p) && Object.keys(p).every((k) => KEYWORDS.has(k)))
  );
}

/** One node of a JSON Schema (`{"type":"number","description":…}`), as a short form's field may be by mistake. */
export function looksLikeSchemaNode(v: unknown): boolean {
  if (!isObject(v) || typeof v.type !== 'string' || !Object.keys(v).every((k) => KEYWORDS.has(k))) return false;
  // `{"title":"string","type":"string"}` is a short form object whose fields are named like
  // keywords (every value a type name); `{"type":"string"}` alone reads as JSON Schema.
  const others = Object.entries(v).filter(([k]) => k !== 'type');
  return !others.length || others.some(([, x]) => !(typeof x === 'string' && SCALARS.has(x)));
}

/**
 * A map of field names to JSON Schema nodes without the object around it
 * (`{"name":{"type":"string"},"price":{"type":"number"}}`: what `properties` holds), as
 * people often send. Read as that object's properties.
 */
export function isPropertiesMap(v: unknown): v is Json {
  return isObject(v) && Object.keys(v).length > 0 && Object.values(v).every(looksLikeSchemaNode);
}

/** A properties map (isPropertiesMap) → the short form's shape and hints; paths are `${at}.${field}`. */
export function readPropertiesMap(input: Json, at: string): ReadJsonSchema {
  const schema: SchemaObject = {};
  const fields: Record<string, FieldHints> = {};
  const seen = { nodes: 0 };
  for (const [k, v] of Object.entries(input)) {
    if (k === '__proto__')
      throw invalidSchema(`${at}.__proto__: "__proto__" cannot be a field name; choose another name`);
    const h: FieldHints = {};
    schema[k] = convert(v as Json, input, `${at}.${k}`, 0, seen, h);
    if (hasHints(h)) fields[k] = h;
  }
  return { schema, ...(Object.keys(fields).length ? { hints: { fields } } : {}) };
}

/** A JSON Schema → the short form's shape and the hints beside it. Faults are 422 naming the path. */
export function readJsonSchema(input: unknown, at: string): ReadJsonSchema {
  if (!isObject(input)) throw invalidSchema(`${at}: must be a JSON Schema object`);
  const hints: FieldHints = {};
  const node = convert(input, input, at, 0, { nodes: 0 }, hints);
  if (typeof node !== 'object' || Array.isArray(node))
    throw invalidSchema(`${at}: the root must be an object schema ({"type":"object","properties":{…}})`);
  return { schema: node, ...(hasHints(hints) ? { hints } : {}) };
}

/**
 * A schema that must be JSON Schema (Firecrawl's surface), checked as such, in a form
 * `compileSchema` reads the same way: itself when it is recognisably JSON Schema (its hints
 * kept), else its short form.
 */
export function strictJsonSchema(input: unknown, at: string): Record<string, unknown> {
  const read = readJsonSchema(input, at);
  return isJsonSchema(input) ? input : read.schema;
}

/** Nodes read at most: far above Trawl's 200 fields, and a bound on schemas whose $refs fan out. */
const MAX_NODES = 2000;

function convert(
  s: Json,
  root: Json,
  at: string,
  refs: number,
  seen: { nodes: number },
  hints: FieldHints,
): SchemaNode {
  if (++seen.nodes > MAX_NODES)
    throw invalidSchema(`${at}: the schema is too large (more than ${MAX_NODES} nodes once its $refs are followed)`);
  if (typeof s.description === 'string' && s.description.trim() && hints.description === undefined)
    hints.description = s.description.trim().slice(0, 500);
  if (typeof s.$ref === 'string') {
    if (refs > 20) throw invalidSchema(`${at}: $ref nests too deep (a recursive schema has no schema-object form)`);
    return convert(resolve(s.$ref, root, at), root, at, refs + 1, seen, hints);
  }
  for (const k of Object.keys(s)) {
    if (!KEYWORDS.has(k)) {
      throw invalidSchema(
        `${at}.${k}: JSON Schema keyword '${k}' is not supported by Trawl's extractor (supported: type, properties, items, enum, const, anyOf/oneOf with null, $ref, format, description, required)`,
      );
    }
  }
  const variants = (s.anyOf ?? s.oneOf) as unknown;
  if (variants !== undefined) {
    const list = Array.isArray(variants) ? variants.filter((v) => !(isObject(v) && v.type === 'null')) : [];
    if (list.length !== 1 || !isObject(list[0]))
      throw invalidSchema(`${at}: anyOf/oneOf is supported only as one type or null`);
    return convert(list[0], root, at, refs, seen, hints);
  }
  const type = typeOf(s, at);
  if (type === 'object') {
    if (!isObject(s.properties) || !Object.keys(s.properties).length)
      throw invalidSchema(`${at}: an object needs "properties" with at least one field`);
    if (s.required !== undefined) {
      if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== 'string'))
        throw invalidSchema(`${at}.required: must be an array of property names`);
      const missing = (s.required as string[]).find((r) => !Object.prototype.hasOwnProperty.call(s.properties, r));
      if (missing !== undefined)
        throw invalidSchema(`${at}.required: "${missing}" is not one of the properties of this object`);
    }
    const out: SchemaObject = {};
    const fields: Record<string, FieldHints> = {};
    for (const [k, v] of Object.entries(s.properties)) {
      // Assigned as out[k], "__proto__" would replace the object's prototype, not name a field.
      if (k === '__proto__')
        throw invalidSchema(`${at}.properties.__proto__: "__proto__" cannot be a field name; choose another name`);
      if (!isObject(v)) {
        // `{"type":"object","properties":{"name":"string"}}`: the two forms mixed; say both ways out.
        const scalar = typeof v === 'string' && SCALARS.has(v);
        throw invalidSchema(
          `${at}.properties.${k}: must be a JSON Schema object` +
            (scalar
              ? ` such as {"type":"${v}"}; or send the short form alone, without "type" and "properties": {"${k}":"${v}", …}`
              : ''),
        );
      }
      const h: FieldHints = {};
      out[k] = convert(v, root, `${at}.properties.${k}`, refs, seen, h);
      if (hasHints(h)) fields[k] = h;
    }
    if (Object.keys(fields).length) hints.fields = fields;
    return out;
  }
  if (type === 'array') {
    if (!isObject(s.items)) throw invalidSchema(`${at}.items: an array needs "items" with one JSON Schema`);
    const h: FieldHints = {};
    const item = convert(s.items, root, `${at}.items`, refs, seen, h);
    if (hasHints(h)) hints.items = h;
    return [item];
  }
  const values = enumOf(s, type, at);
  if (values) hints.enum = values;
  if (s.format !== undefined) {
    if (typeof s.format !== 'string') throw invalidSchema(`${at}.format: must be a string such as "date" or "uri"`);
    if (type === 'string' && (CHECKED_FORMATS as readonly string[]).includes(s.format)) hints.format = s.format;
  }
  return type as SchemaNode;
}

/** `enum`/`const` of a scalar: each value of the field's type (null allowed, and dropped). */
function enumOf(s: Json, type: string, at: string): EnumValue[] | undefined {
  const raw = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
  if (raw === undefined) return undefined;
  const where = s.enum !== undefined ? `${at}.enum` : `${at}.const`;
  if (!Array.isArray(raw) || !raw.length) throw invalidSchema(`${where}: must be a non-empty array of values`);
  const values = raw.filter((v) => v !== null);
  if (!values.length) throw invalidSchema(`${where}: must list at least one value besides null`);
  for (const [i, v] of values.entries()) {
    const ok =
      type === 'string'
        ? typeof v === 'string'
        : type === 'boolean'
          ? typeof v === 'boolean'
          : typeof v === 'number' && (type === 'number' || Number.isInteger(v));
    if (!ok)
      throw invalidSchema(`${where}[${i}]: ${JSON.stringify(v)?.slice(0, 60)} is not a ${type} (the field's type)`);
  }
  if (values.length > 500) throw invalidSchema(`${where}: at most 500 values`);
  return values as EnumValue[];
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

const hasHints = (h: FieldHints) => Object.keys(h).length > 0;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Words only: "In Stock" and "in_stock" and "InStock" are one value. */
const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** The enum member a found value stands for, or undefined when none does. */
export function enumMember(v: unknown, values: EnumValue[]): EnumValue | undefined {
  if (values.includes(v as EnumValue)) return v as EnumValue;
  if (typeof v === 'string') {
    const s = squash(v);
    if (!s) return undefined;
    const exact = values.find((x) => typeof x === 'string' && squash(x) === s);
    if (exact !== undefined) return exact;
    // schema.org availability and the like: "https://schema.org/InStock" → "in_stock".
    const tail = squash(v.replace(/^.*[/#]/, ''));
    return values.find((x) => typeof x === 'string' && squash(x) === tail);
  }
  if (typeof v === 'number') return values.find((x) => typeof x === 'string' && squash(x) === String(v));
  if (typeof v === 'boolean') return values.find((x) => typeof x === 'string' && squash(x) === String(v));
  return undefined;
}

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/** A string in the given format (normalised), or undefined when it is not one. */
export function inFormat(
  v: string,
  format: string,
  normaliseDate: (v: unknown) => string | undefined,
): string | undefined {
  switch (format) {
    case 'date': {
      const d = normaliseDate(v);
      return d ? d.slice(0, 10) : undefined;
    }
    case 'date-time': {
      const d = normaliseDate(v);
      if (!d) return undefined;
      if (d.length === 10) return `${d}T00:00:00Z`;
      return /[zZ]|[+-]\d{2}:?\d{2}$/.test(d) ? d : `${d}Z`;
    }
    case 'uri':
    case 'url':
      try {
        const u = new URL(v.trim());
        return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
      } catch {
        return undefined;
      }
    case 'email': {
      const e = v.trim().replace(/^mailto:/i, '');
      return EMAIL.test(e) ? e : undefined;
    }
    default:
      return v;
  }
}

/**
 * The JSON Schema given to the LLM, with the caller's descriptions and enums where the hints
 * have them (so "the price before discount" is read as such).
 */
export function annotate(js: Record<string, unknown>, hints: FieldHints | undefined): Record<string, unknown> {
  if (!hints) return js;
  const out: Record<string, unknown> = { ...js };
  if (hints.description) out.description = hints.description;
  if (hints.enum) out.enum = [...hints.enum, null];
  if (hints.fields && isObject(js.properties)) {
    const props: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(js.properties))
      props[k] = hints.fields[k] ? annotate(v as Record<string, unknown>, hints.fields[k]) : v;
    out.properties = props;
  }
  if (hints.items && isObject(js.items)) out.items = annotate(js.items, hints.items);
  return out;
}
