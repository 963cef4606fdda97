/**
 * Tables into arrays of objects (tables.ts): header names matched to field names, each row one
 * object, cells coerced by their field's type; the best-matching table chosen; distracting text
 * beside a table never read as a row.
 */
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../../src/engine/document/dom.js';
import { extractFromDocument } from '../../../src/engine/extract/index.js';
import { compileSchema } from '../../../src/engine/extract/schema.js';
import { headerWeight } from '../../../src/engine/extract/tables.js';

const MODELS = { models: [{ model: 'string', price: 'number' }] };

const run = (html: string, schema: unknown = MODELS, url = 'https://acme.example/widgets') =>
  extractFromDocument(parseHtml(html), { schema: compileSchema(schema), url, html });

describe('table markups', () => {
  it('reads a thead/tbody table', () => {
    const r = run(`<table><thead><tr><th>Model</th><th>Price</th></tr></thead>
      <tbody><tr><td>W-100</td><td>$19.99</td></tr><tr><td>W-200</td><td>$29.99</td></tr></tbody></table>`);
    expect(r.json).toEqual({
      models: [
        { model: 'W-100', price: 19.99 },
        { model: 'W-200', price: 29.99 },
      ],
    });
    expect(r.sources.models).toBe('table:table (Model, Price)');
  });

  it('reads headers written as th cells in the first row, with no thead', () => {
    const r = run(`<table><tr><th>Model</th><th>Price</th></tr>
      <tr><td>W-100</td><td>$19.99</td></tr><tr><td>W-300</td><td>$39.00</td></tr></table>`);
    expect(r.json.models).toEqual([
      { model: 'W-100', price: 19.99 },
      { model: 'W-300', price: 39 },
    ]);
  });

  it('ignores a caption row spanning the whole width, in the thead and in the body', () => {
    const r = run(`<table><thead><tr><th colspan="3">Price list 2026</th></tr>
      <tr><th>Model</th><th>Colour</th><th>Price</th></tr></thead>
      <tbody><tr><th colspan="3">Indoor</th></tr><tr><td>W-100</td><td>red</td><td>$19.99</td></tr>
      <tr><th colspan="3">Outdoor</th></tr><tr><td>W-900</td><td>grey</td><td>$99.00</td></tr></tbody></table>`);
    expect(r.json.models).toEqual([
      { model: 'W-100', price: 19.99 },
      { model: 'W-900', price: 99 },
    ]);
  });

  it('keeps cells in their columns under colspan and rowspan', () => {
    const r = run(`<table><tr><th>Model</th><th colspan="2">Sizes</th><th>Price</th></tr>
      <tr><td rowspan="2">W-100</td><td>S</td><td>M</td><td>$19.99</td></tr>
      <tr><td>L</td><td>XL</td><td>$21.99</td></tr></table>`);
    expect(r.json.models).toEqual([
      { model: 'W-100', price: 19.99 },
      { model: 'W-100', price: 21.99 },
    ]);
  });

  it('leaves columns the schema does not name, and fields no column names, out (null)', () => {
    const r = run(
      `<table><tr><th>SKU</th><th>Model</th><th>Weight</th><th>Price</th></tr>
      <tr><td>1001</td><td>W-100</td><td>2 kg</td><td>$19.99</td></tr></table>`,
      { models: [{ model: 'string', price: 'number', rating: 'number' }] },
    );
    expect(r.json.models).toEqual([{ model: 'W-100', price: 19.99, rating: null }]);
  });

  it('coerces currency cells in either notation, and integers and booleans by the field type', () => {
    const r = run(
      `<table><tr><th>Name</th><th>Price (EUR)</th><th>Stock</th><th>In stock</th></tr>
      <tr><td>Kettle</td><td>1.299,00 €</td><td>12 units</td><td>Yes</td></tr>
      <tr><td>Toaster</td><td>€ 24,50</td><td>0</td><td>Sold out</td></tr>
      <tr><td>Blender</td><td>$1,049.95</td><td>3</td><td>In stock</td></tr></table>`,
      { products: [{ name: 'string', price: 'number', stock: 'integer', in_stock: 'boolean' }] },
    );
    expect(r.json.products).toEqual([
      { name: 'Kettle', price: 1299, stock: 12, in_stock: true },
      { name: 'Toaster', price: 24.5, stock: 0, in_stock: false },
      { name: 'Blender', price: 1049.95, stock: 3, in_stock: true },
    ]);
  });

  it('answers null for missing and unreadable cells, and drops rows with nothing in them', () => {
    const r = run(`<table><tr><th>Model</th><th>Price</th></tr>
      <tr><td>W-100</td></tr><tr><td>W-200</td><td>Call us</td></tr><tr><td></td><td></td></tr>
      <tr><td>W-300</td><td>$5</td></tr></table>`);
    expect(r.json.models).toEqual([
      { model: 'W-100', price: null },
      { model: 'W-200', price: null },
      { model: 'W-300', price: 5 },
    ]);
  });

  it('matches headers by case, plural and the vocabulary (Product name, Cost, Models)', () => {
    expect(headerWeight('model', 'MODELS')).toBe(1);
    expect(headerWeight('price', 'Price ($)')).toBe(1);
    expect(headerWeight('name', 'Product name')).toBeGreaterThan(0.8);
    expect(headerWeight('price', 'Unit price')).toBeGreaterThan(0.7);
    expect(headerWeight('price', 'Model')).toBe(0);
    const r = run(
      `<table><thead><tr><td>Product name</td><td>Models</td><td>Price</td></tr></thead>
      <tbody><tr><td>Widget</td><td>W-100</td><td>$19.99</td></tr></tbody></table>`,
      { items: [{ name: 'string', model: 'string', price: 'number' }] },
    );
    expect(r.json.items).toEqual([{ name: 'Widget', model: 'W-100', price: 19.99 }]);
  });

  it("takes a row's link for a url field no column names", () => {
    const r = run(
      `<table><tr><th>Model</th><th>Price</th></tr>
      <tr><td><a href="/w/100">W-100</a></td><td>$19.99</td></tr></table>`,
      { models: [{ model: 'string', price: 'number', url: 'string' }] },
    );
    expect(r.json.models).toEqual([{ model: 'W-100', price: 19.99, url: 'https://acme.example/w/100' }]);
  });

  it('reads a key/value table (headers in the first column) as one object per value column', () => {
    const r = run(`<table><tr><th>Model</th><td>W-100</td><td>W-200</td></tr>
      <tr><th>Price</th><td>$19.99</td><td>$29.99</td></tr><tr><th>Weight</th><td>2 kg</td><td>3 kg</td></tr></table>`);
    expect(r.json.models).toEqual([
      { model: 'W-100', price: 19.99 },
      { model: 'W-200', price: 29.99 },
    ]);
    // A single object from a key/value table is the label/value reader's (labels.ts).
    const one = run(`<table><tr><th>Model</th><td>W-100</td></tr><tr><th>Price</th><td>$19.99</td></tr></table>`, {
      model: 'string',
      price: 'number',
    });
    expect(one.json).toEqual({ model: 'W-100', price: 19.99 });
  });
});

describe('the table among other things on the page', () => {
  // The page of issue 40: a small home page whose table is its only list.
  const ACME = `<main><h1>Acme Widgets</h1><p>Welcome to Acme. We have been making reliable widgets for homes and
    workshops since 1987, and today our catalogue counts more than four hundred models.</p>
    <p>Free shipping over $50. Read <a href="/a">our first post</a> or the <a href="/b">second post</a>.</p>
    <h2>Why Acme</h2><ul><li>Durable steel construction.</li><li>Free repairs for ten years.</li>
    <li>Shipped within two days.</li></ul>
    <table><tr><th>Model</th><th>Price</th></tr><tr><td>W-100</td><td>$19.99</td></tr></table></main>`;

  it('reads the table, not the free-shipping line beside it', () => {
    const r = run(ACME);
    expect(r.json).toEqual({ models: [{ model: 'W-100', price: 19.99 }] });
    expect(JSON.stringify(r.json)).not.toContain('50');
  });

  it('reads a page holding only the table', () => {
    const r = run(`<table><tr><th>Model</th><th>Price</th></tr><tr><td>W-100</td><td>$19.99</td></tr></table>`);
    expect(r.json).toEqual({ models: [{ model: 'W-100', price: 19.99 }] });
  });

  it('picks the table whose columns match, then the one with more rows', () => {
    const r = run(`<table><tr><th>Day</th><th>Opening hours</th></tr><tr><td>Mon</td><td>9–17</td></tr>
      <tr><td>Tue</td><td>9–17</td></tr><tr><td>Wed</td><td>9–17</td></tr></table>
      <table><tr><th>Model</th><th>Weight</th></tr><tr><td>X-1</td><td>2 kg</td></tr></table>
      <table><tr><th>Model</th><th>Price</th></tr><tr><td>W-100</td><td>$19.99</td></tr></table>
      <table><tr><th>Model</th><th>Price</th></tr><tr><td>Z-1</td><td>$1</td></tr><tr><td>Z-2</td><td>$2</td></tr></table>`);
    expect(r.json.models).toEqual([
      { model: 'Z-1', price: 1 },
      { model: 'Z-2', price: 2 },
    ]);
  });

  it('reads no table whose headers name one field of several', () => {
    const r = run(`<table><tr><th>Model</th><th>Colour</th></tr><tr><td>X-1</td><td>red</td></tr></table>`, {
      models: [{ model: 'string', price: 'number', brand: 'string' }],
    });
    expect(r.sources.models ?? '').not.toMatch(/^table:/);
  });

  it('leaves a listing of product cards to the card reader when the table answers less', () => {
    const card = (n: string, p: string) =>
      `<div class="card"><h3><a href="/p/${n}">${n}</a></h3><span class="price">$${p}</span></div>`;
    const r = run(
      `<div class="grid">${card('Alpha', '10')}${card('Beta', '20')}${card('Gamma', '30')}${card('Delta', '40')}</div>
      <table><tr><th>Name</th><th>Price</th></tr><tr><td>Shipping box</td><td>$2</td></tr></table>`,
      { products: [{ name: 'string', price: 'number' }] },
    );
    expect(r.json.products).toHaveLength(4);
    expect(r.sources.products).toBe('css:repeated elements');
  });
});
