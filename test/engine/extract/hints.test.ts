/** A field's JSON Schema description as extra words when matching names (issue 43). */
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../../src/engine/document/dom.js';
import { descriptionCover, descriptionHint, hintedWeight } from '../../../src/engine/extract/hints.js';
import { extractFromDocument, pageExtraction } from '../../../src/engine/extract/index.js';
import { compileSchema } from '../../../src/engine/extract/schema.js';

const run = (html: string, schema: unknown) =>
  extractFromDocument(parseHtml(html), { schema: compileSchema(schema), url: 'https://shop.example/p/1', html });

const js = (fields: Record<string, Record<string, unknown>>) => ({ type: 'object', properties: fields });

const PRICES = `<html><body><main><h1>Desk lamp</h1>
<dl><dt>Price</dt><dd>$20.00</dd><dt>Discount price</dt><dd>$15.00</dd></dl></main></body></html>`;
const CODES = `<html><body><main><h1>Desk lamp</h1>
<dl><dt>Code</dt><dd>778</dd><dt>SKU</dt><dd>AB-1234</dd></dl></main></body></html>`;
const WARRANTY = `<html><body><main><h1>Desk lamp</h1><p>A lamp for the desk, with a long cord.</p>
<div class="warranty-period">2 years</div></main></body></html>`;

describe('description hints', () => {
  it('reads the words of a description, and how much of it a name says', () => {
    const hint = descriptionHint('The price after discount')!;
    expect(hint.words).toEqual(['price', 'discount']);
    expect(descriptionCover('discountprice', hint)).toBe(1);
    expect(descriptionCover('price', hint)).toBe(0.5);
    expect(descriptionCover('regularprice', hint)).toBe(0);
    expect(descriptionHint('the value shown')).toBeUndefined();
    // The field's name and the description beat the description alone, which beats the name alone.
    expect(hintedWeight(1, 'discountprice', hint)).toBeGreaterThan(hintedWeight(0, 'discountprice', hint));
    expect(hintedWeight(0, 'discountprice', hint)).toBeGreaterThan(hintedWeight(1, 'price', hint));
    expect(hintedWeight(0, 'colour', hint)).toBe(0);
  });

  it('decides between two labels: the price after discount', () => {
    expect(run(PRICES, { price: 'number' }).json).toEqual({ price: 20 });
    expect(run(PRICES, js({ price: { type: 'number' } })).json).toEqual({ price: 20 });
    const hinted = run(PRICES, js({ price: { type: 'number', description: 'the price after discount' } }));
    expect(hinted.json).toEqual({ price: 15 });
    expect(hinted.sources.price).toBe('label:Discount price');
  });

  it('decides between two labels: the SKU printed on the page, for a field named code', () => {
    expect(run(CODES, { code: 'string' }).json).toEqual({ code: '778' });
    const hinted = run(CODES, js({ code: { type: 'string', description: 'SKU printed on the page' } }));
    expect(hinted.json).toEqual({ code: 'AB-1234' });
    expect(hinted.sources.code).toBe('label:SKU');
  });

  it('finds an element named by the description that the field name does not name', () => {
    expect(run(WARRANTY, { cover: 'string' }).json).toEqual({ cover: null });
    const hinted = run(WARRANTY, js({ cover: { type: 'string', description: 'warranty period' } }));
    expect(hinted.json).toEqual({ cover: '2 years' });
  });

  it('leaves fields without a description as they were, beside one with it', () => {
    const page = `${PRICES.replace('</dl>', '<dt>Code</dt><dd>778</dd><dt>SKU</dt><dd>AB-1234</dd></dl>')}`;
    const plain = run(page, { price: 'number', code: 'string' });
    const mixed = run(page, js({ price: { type: 'number' }, code: { type: 'string', description: 'the SKU' } }));
    expect(mixed.json.price).toBe(plain.json.price);
    expect(mixed.sources.price).toBe(plain.sources.price);
    expect(mixed.json.code).toBe('AB-1234');
  });

  it('reaches a document worker: the schema sent as data keeps the descriptions', () => {
    const c = compileSchema(js({ price: { type: 'number', description: 'the price after discount' } }));
    const again = compileSchema(pageExtraction(c).schema);
    expect(again.schema).toEqual(c.schema);
    expect(again.hints?.fields?.price.description).toBe('the price after discount');
    // Without descriptions, the short form goes as before.
    const plain = compileSchema({ price: 'number' });
    expect(pageExtraction(plain).schema).toEqual({ price: 'number' });
  });
});

describe('description hints against a hostile page', () => {
  it('splits a long label into the words of a description without trying every order of them', () => {
    // "aa aaa … a×13" and a label of 63 a's and a b: no split exists, and trying every order of
    // the words took 20 s of a blocked process. The words are read through a counter, not a clock.
    const hint = descriptionHint(Array.from({ length: 12 }, (_, i) => 'a'.repeat(i + 2)).join(' '))!;
    let reads = 0;
    const words = new Proxy(hint.words, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(descriptionCover(`${'a'.repeat(63)}b`, { words })).toBe(0);
    expect(reads).toBeLessThan(100_000);
    // The answers found before are found still.
    const price = descriptionHint('the price after discount')!;
    expect(descriptionCover('discountprice', price)).toBe(1);
    expect(descriptionCover('price', price)).toBe(0.5);
    expect(descriptionCover('regularprice', price)).toBe(0);
  });
});
