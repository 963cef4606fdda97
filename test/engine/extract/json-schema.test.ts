/** JSON Schema as a schema language beside the short form (issue 43). */
import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../../src/engine/extract/schema.js';
import { enumMember, isJsonSchema } from '../../../src/engine/extract/json-schema.js';
import { TrawlError } from '../../../src/errors.js';

const fault = (s: unknown) => {
  try {
    compileSchema(s);
  } catch (e) {
    expect(e).toBeInstanceOf(TrawlError);
    expect((e as TrawlError).code).toBe('invalid_schema');
    return (e as TrawlError).detail;
  }
  throw new Error('expected invalid_schema');
};

const PRODUCT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The product name' },
    price: { type: ['number', 'null'] },
    availability: { type: 'string', enum: ['in_stock', 'out_of_stock'] },
    released: { type: 'string', format: 'date' },
    seller: { type: 'object', properties: { name: { type: 'string' }, rating: { type: 'number' } } },
    variants: {
      type: 'array',
      items: { $ref: '#/$defs/Variant' },
    },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'price'],
  additionalProperties: false,
  $defs: { Variant: { type: 'object', properties: { sku: { type: 'string' }, size: { enum: ['S', 'M', 'L'] } } } },
};

describe('JSON Schema', () => {
  it('tells the two forms apart', () => {
    expect(isJsonSchema(PRODUCT)).toBe(true);
    expect(isJsonSchema({ properties: { a: { type: 'string' } }, required: ['a'] })).toBe(true);
    // Short forms, also ones with fields named like keywords.
    expect(isJsonSchema({ type: 'string', name: 'string' })).toBe(false);
    expect(isJsonSchema({ properties: { bedrooms: 'integer' } })).toBe(false);
    expect(isJsonSchema({ price: 'number' })).toBe(false);
  });

  it('reads a short form whose fields are named type or properties as that short form', () => {
    // Two fields, not a JSON Schema: the short form has no type named object.
    const two = { type: 'string', properties: 'string' };
    expect(isJsonSchema(two)).toBe(false);
    expect(compileSchema(two).schema).toEqual({ type: 'string', properties: 'string' });
    // A root "type" other than object is a field, whatever sits beside it.
    const typed = { type: 'string', properties: { rooms: { type: 'integer' } } };
    expect(isJsonSchema(typed)).toBe(false);
    expect(compileSchema(typed).schema).toEqual({ type: 'string', properties: { rooms: { type: 'integer' } } });
    // "properties" holding short form objects (not JSON Schema nodes) is a field too.
    const nested = { properties: { address: { city: 'string' } } };
    expect(isJsonSchema(nested)).toBe(false);
    expect(compileSchema(nested).schema).toEqual(nested);
    expect(compileSchema({ $schema: 'string', type: 'string' }).schema).toEqual({ $schema: 'string', type: 'string' });
    expect(compileSchema({ properties: ['string'], type: 'number' }).schema).toEqual({
      properties: ['string'],
      type: 'number',
    });
  });

  it('reads JSON Schema whose fields are named type or properties as JSON Schema', () => {
    const js = {
      type: 'object',
      properties: { type: { type: 'string' }, properties: { type: 'array', items: { type: 'string' } } },
    };
    expect(isJsonSchema(js)).toBe(true);
    expect(compileSchema(js).schema).toEqual({ type: 'string', properties: ['string'] });
    // Without a root type: keywords only, every property a JSON Schema node.
    const bare = { properties: { type: { type: 'string', description: 'the kind' } }, required: ['type'] };
    expect(isJsonSchema(bare)).toBe(true);
    expect(compileSchema(bare).schema).toEqual({ type: 'string' });
    expect(isJsonSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', properties: {} })).toBe(true);
    expect(isJsonSchema({ $ref: '#/$defs/x', $defs: { x: { type: 'object' } } })).toBe(true);
  });

  it('compiles objects, arrays of objects, scalars, enums, formats and required to the same shape as the short form', () => {
    const c = compileSchema(PRODUCT);
    expect(c.schema).toEqual({
      name: 'string',
      price: 'number',
      availability: 'string',
      released: 'string',
      seller: { name: 'string', rating: 'number' },
      variants: [{ sku: 'string', size: 'string' }],
      tags: ['string'],
    });
    expect(c.empty()).toEqual({
      name: null,
      price: null,
      availability: null,
      released: null,
      seller: { name: null, rating: null },
      variants: [],
      tags: [],
    });
    expect(c.hints?.fields?.name.description).toBe('The product name');
    expect(c.hints?.fields?.availability.enum).toEqual(['in_stock', 'out_of_stock']);
    expect(c.hints?.fields?.variants.items?.fields?.size.enum).toEqual(['S', 'M', 'L']);
  });

  it('holds found values to enums and formats', () => {
    const c = compileSchema(PRODUCT);
    const sources = { availability: 'json-ld:offers.availability', released: 'meta', name: 'h1' };
    const out = c.finish(
      {
        ...c.empty(),
        name: 'Kettle',
        availability: 'https://schema.org/InStock',
        released: '15 March 2024',
        variants: [
          { sku: 'a', size: 'm' },
          { sku: 'b', size: 'XXL' },
        ],
      },
      sources,
    );
    expect(out.availability).toBe('in_stock');
    expect(out.released).toBe('2024-03-15');
    expect(out.variants).toEqual([
      { sku: 'a', size: 'M' },
      { sku: 'b', size: null },
    ]);
    const bad = c.finish({ ...c.empty(), availability: 'call us', released: 'soon' }, sources);
    expect(bad.availability).toBeNull();
    expect(bad.released).toBeNull();
    expect(sources).toEqual({ name: 'h1' });
  });

  it('reads a map of JSON Schema nodes as the properties of an object (what "properties" holds)', () => {
    const c = compileSchema({ name: { type: 'string' }, size: { type: 'string', enum: ['S', 'M'] } });
    expect(c.schema).toEqual({ name: 'string', size: 'string' });
    expect(c.hints?.fields?.size.enum).toEqual(['S', 'M']);
    expect(fault({ name: { type: 'money' } })).toContain('schema.name.type: unknown type "money"');
    // A short form object whose fields are named like keywords stays a short form.
    expect(compileSchema({ book: { title: 'string', type: 'string' } }).schema).toEqual({
      book: { title: 'string', type: 'string' },
    });
  });

  it('maps spellings to enum members', () => {
    expect(enumMember('In Stock', ['in_stock', 'out_of_stock'])).toBe('in_stock');
    expect(enumMember('OutOfStock', ['in_stock', 'out_of_stock'])).toBe('out_of_stock');
    expect(enumMember('blue', ['red'])).toBeUndefined();
    expect(enumMember(2, [1, 2])).toBe(2);
  });

  it('names the path of each fault in the caller’s document', () => {
    expect(fault({ type: 'object', properties: { a: { type: 'money' } } })).toContain(
      'schema.properties.a.type: unknown type "money"',
    );
    expect(fault({ type: 'object', properties: {} })).toContain('schema: an object needs "properties"');
    expect(fault({ type: 'object', properties: { a: { type: 'array' } } })).toContain(
      'schema.properties.a.items: an array needs "items"',
    );
    expect(fault({ type: 'object', properties: { a: { type: 'string', enum: [1] } } })).toContain(
      'schema.properties.a.enum[0]: 1 is not a string',
    );
    expect(fault({ type: 'object', properties: { a: { type: 'string' } }, required: ['b'] })).toContain(
      'schema.required: "b" is not one of the properties',
    );
    expect(fault({ type: 'object', properties: { a: { type: 'string', not: {} } } })).toContain(
      "schema.properties.a.not: JSON Schema keyword 'not' is not supported",
    );
    expect(fault({ type: 'object', properties: { a: { $ref: '#/$defs/Nope' } } })).toContain(
      'schema.properties.a.$ref: #/$defs/Nope does not point to a schema',
    );
  });

  it('says what to do with JSON Schema nodes inside the short form', () => {
    expect(fault({ name: 'string', price: { type: 'number', description: 'the price' } })).toContain(
      'schema.price: looks like JSON Schema inside the short form; write "price": "number" here',
    );
    // A short form object with a field named "type" is still a short form.
    expect(compileSchema({ name: 'string', vehicle: { type: 'string' } }).schema).toEqual({
      name: 'string',
      vehicle: { type: 'string' },
    });
    expect(fault({ a: 'object' })).toContain('for nested values write {…} or [T]');
  });
});

describe('the two forms mixed', () => {
  it('says both ways out when a JSON Schema object lists short-form fields', () => {
    const detail = fault({ type: 'object', properties: { name: 'string', price: 'number' } });
    expect(detail).toContain('schema.properties.name: must be a JSON Schema object such as {"type":"string"}');
    expect(detail).toContain('{"name":"string", …}');
    expect(fault({ type: 'object', properties: { a: { type: 'object', properties: { b: 'number' } } } })).toContain(
      'schema.properties.a.properties.b: must be a JSON Schema object such as {"type":"number"}',
    );
    // Not a type name: the plain sentence.
    expect(fault({ type: 'object', properties: { name: 3 } })).toMatch(/name: must be a JSON Schema object$/);
  });
});
