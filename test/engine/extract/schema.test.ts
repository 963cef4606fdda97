import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../../src/engine/extract/schema.js';
import { coerce, coerceBoolean, parseNumber } from '../../../src/engine/extract/coerce.js';
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

describe('compileSchema', () => {
  it('compiles nested objects and arrays to a validating JSON Schema with nulls', () => {
    const c = compileSchema({
      title: 'string',
      price: 'number',
      stock: 'integer',
      ok: 'boolean',
      seller: { name: 'string' },
      tags: ['string'],
      items: [{ sku: 'string' }],
    });
    expect(c.empty()).toEqual({
      title: null,
      price: null,
      stock: null,
      ok: null,
      seller: { name: null },
      tags: [],
      items: [],
    });
    expect(c.validate(c.empty())).toBe(true);
    expect(c.validate({ ...c.empty(), price: '12' })).toBe(false);
    expect(c.validate({ ...c.empty(), stock: 1.5 })).toBe(false);
    expect(c.validate({ ...c.empty(), extra: 1 })).toBe(false);
    expect(c.validate({ ...c.empty(), items: [{ sku: 'a' }] })).toBe(true);
  });

  it('names the path of each fault', () => {
    expect(fault(undefined)).toBe('schema: is required');
    expect(fault(null)).toContain('schema: must be an object');
    expect(fault([])).toContain('schema: must be an object');
    expect(fault({})).toContain('schema: must have at least one field');
    expect(fault({ a: 'money' })).toContain("schema.a: unknown type 'money'");
    expect(fault({ a: { b: 5 } })).toContain('schema.a.b: must be a type name');
    expect(fault({ a: [] })).toContain('schema.a: an array type must have exactly one element');
    expect(fault({ a: [{}] })).toContain('schema.a[0]: must have at least one field');
    expect(fault({ a: { b: { c: { d: { e: { f: 'string' } } } } } })).toContain('schema.a.b.c.d.e: too deep');
    expect(fault({ ['x'.repeat(65)]: 'string' })).toContain('must be 1 to 64 characters');
    const wide = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, 'string']));
    expect(fault(wide)).toContain('too many fields');
  });

  it('accepts five levels', () => {
    expect(() => compileSchema({ a: { b: { c: { d: { e: 'string' } } } } })).not.toThrow();
  });
});

describe('coercion', () => {
  it.each([
    ['$1,299.00', 1299],
    ['1.299,00 €', 1299],
    ['€ 19,99', 19.99],
    ['¥1,299', 1299],
    ['1 299,50 zł', 1299.5],
    ["CHF 1'234.50", 1234.5],
    ['0.299', 0.299],
    ['12.5', 12.5],
    ['-3', -3],
    [42, 42],
  ])('parseNumber(%s) = %s', (s, n) => expect(parseNumber(s)).toBe(n));

  it('reads availability words in several languages', () => {
    for (const w of [
      'In stock',
      'https://schema.org/InStock',
      'InStock',
      'Disponible',
      'Auf Lager',
      'en stock',
      'disponibile',
      'true',
    ])
      expect(coerceBoolean(w), w).toBe(true);
    for (const w of [
      'Out of stock',
      'http://schema.org/OutOfStock',
      'Sold out',
      'Agotado',
      'Ausverkauft',
      'épuisé',
      'false',
    ])
      expect(coerceBoolean(w), w).toBe(false);
    expect(coerceBoolean('maybe')).toBeUndefined();
  });

  it('coerces to each scalar type', () => {
    expect(coerce(' A  title ', 'string')).toBe('A title');
    expect(coerce('4.6 out of 5', 'number')).toBe(4.6);
    expect(coerce('1,234 reviews', 'integer')).toBe(1234);
    expect(coerce('no digits', 'number')).toBeUndefined();
  });
});
