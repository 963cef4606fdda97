/** Deterministic extraction on pages written for the tests: each candidate source, coercion, nesting, lists. */
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../../src/engine/document/dom.js';
import { extractFromDocument, pageExtraction } from '../../../src/engine/extract/index.js';
import { compileSchema } from '../../../src/engine/extract/schema.js';
import type { Candidate } from '../../../src/engine/extract/candidate.js';
import { appStateCandidates } from '../../../src/engine/extract/sources/app-state.js';

const run = (html: string, schema: unknown, url = 'https://shop.example/p/blue-kettle-48213') =>
  extractFromDocument(parseHtml(html), { schema: compileSchema(schema), url, html });

const PRODUCT = {
  name: 'string',
  price: 'number',
  currency: 'string',
  in_stock: 'boolean',
  sku: 'string',
  brand: 'string',
};

describe('candidate sources', () => {
  it('reads JSON-LD with @graph, nested offers, brand objects and aggregateRating', () => {
    const html = `<html><head><script type="application/ld+json">{"@context":"https://schema.org","@graph":[
      {"@type":"Organization","name":"Example Shop","url":"https://shop.example"},
      {"@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1,"name":"Kitchen"}]},
      {"@type":"Product","name":"Blue Kettle","sku":"KET-48213","brand":{"@type":"Brand","name":"Acme"},
       "aggregateRating":{"@type":"AggregateRating","ratingValue":"4.6","reviewCount":"132"},
       "offers":{"@type":"Offer","price":"39.90","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}]}
    </script></head><body><h1>Blue Kettle</h1></body></html>`;
    const r = run(html, { ...PRODUCT, rating: 'number', review_count: 'integer' });
    expect(r.json).toEqual({
      name: 'Blue Kettle',
      price: 39.9,
      currency: 'EUR',
      in_stock: true,
      sku: 'KET-48213',
      brand: 'Acme',
      rating: 4.6,
      review_count: 132,
    });
    expect(r.sources).toMatchObject({
      price: 'json-ld:offers.price',
      sku: 'json-ld:sku',
      brand: 'json-ld:brand',
      rating: 'json-ld:aggregaterating.ratingvalue',
    });
  });

  it('tolerates JSON-LD with trailing commas', () => {
    const r = run(
      '<script type="application/ld+json">{"@type":"Product","name":"Tea Pot","offers":{"price":12,},}</script>',
      { name: 'string', price: 'number' },
    );
    expect(r.json).toEqual({ name: 'Tea Pot', price: 12 });
  });

  it('reads microdata with nested items and content/href values', () => {
    const html = `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Desk Lamp</h1>
      <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Lumo</span></span>
      <meta itemprop="sku" content="LMP-7">
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
        <span itemprop="price" content="24.50">24,50 €</span><meta itemprop="priceCurrency" content="EUR">
        <link itemprop="availability" href="https://schema.org/OutOfStock">Sold out</link></div></div>`;
    const r = run(html, PRODUCT);
    expect(r.json).toEqual({
      name: 'Desk Lamp',
      price: 24.5,
      currency: 'EUR',
      in_stock: false,
      sku: 'LMP-7',
      brand: 'Lumo',
    });
    expect(r.sources.price).toBe('microdata:offers.price');
  });

  it('keeps a microdata code as the page shows it when its content attribute only drops the punctuation', () => {
    const item = (code: string) =>
      `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Camera</h1>${code}</div>`;
    expect(run(item(`<span itemprop="sku" content="4667999">466/7999</span>`), { sku: 'string' }).json).toEqual({
      sku: '466/7999',
    });
    // A different code in the text keeps the machine value; so do prices (content is their machine form).
    expect(run(item(`<span itemprop="sku" content="4667999">Cat. no. 12</span>`), { sku: 'string' }).json).toEqual({
      sku: '4667999',
    });
    expect(run(item(`<span itemprop="price" content="24.50">24,50 €</span>`), { price: 'number' }).json).toEqual({
      price: 24.5,
    });
  });

  it('reads RDFa Lite', () => {
    const html = `<div vocab="https://schema.org/" typeof="Product"><span property="name">Chair</span>
      <div property="offers" typeof="Offer"><span property="price" content="89">$89</span><span property="priceCurrency" content="USD">USD</span></div></div>`;
    expect(run(html, { name: 'string', price: 'number', currency: 'string' }).json).toEqual({
      name: 'Chair',
      price: 89,
      currency: 'USD',
    });
  });

  it('reads OpenGraph product tags and Twitter label/data pairs', () => {
    const html = `<head><meta property="og:title" content="Wool Scarf"><meta property="product:price:amount" content="19.99">
      <meta property="product:price:currency" content="GBP"><meta property="product:availability" content="in stock">
      <meta property="product:brand" content="Knitters"></head><body></body>`;
    const r = run(html, { title: 'string', price: 'number', currency: 'string', in_stock: 'boolean', brand: 'string' });
    expect(r.json).toEqual({ title: 'Wool Scarf', price: 19.99, currency: 'GBP', in_stock: true, brand: 'Knitters' });
    expect(r.sources.price).toBe('meta:product:price:amount');
  });

  it('reads embedded application state (__NEXT_DATA__ and window.__INITIAL_STATE__)', () => {
    const next = `<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"product":{"title":"Trail Shoe","sku":"TS-100","price":{"amount":129.5,"currency":"USD"}}}}}</script>`;
    expect(run(next, { title: 'string', sku: 'string', price: 'number' }).json).toEqual({
      title: 'Trail Shoe',
      sku: 'TS-100',
      price: 129.5,
    });
    const initial = `<script>window.__INITIAL_STATE__ = {"item":{"name":"Road Bike","brand":"Velo","stockStatus":"OUT_OF_STOCK"}};</script>`;
    expect(run(initial, { name: 'string', brand: 'string', in_stock: 'boolean' }).json).toEqual({
      name: 'Road Bike',
      brand: 'Velo',
      in_stock: false,
    });
  });

  it('reads specifications written as data: {"attrName": "Brand Name", "attrValue": "YONGLI"}', () => {
    const state = {
      props: {
        product: {
          title: 'Cheese grater',
          specs: [
            { attrName: 'Place of Origin', attrValue: 'Guangdong' },
            { attrName: 'Brand Name', attrValue: 'YONGLI' },
            { attrName: 'Model Number', attrValue: 'YLKS32' },
          ],
        },
      },
    };
    const r = run(
      `<h1>Cheese grater</h1><script id="__NEXT_DATA__" type="application/json">${JSON.stringify(state)}</script>`,
      { brand: 'string', model: 'string', origin: 'string' },
    );
    expect(r.json).toEqual({ brand: 'YONGLI', model: 'YLKS32', origin: null });
    expect(r.sources.brand).toBe('app-state:__NEXT_DATA__[Brand Name]');
  });

  it('reads label/value pairs: dt/dd, th/td and "Label: value" text', () => {
    const html = `<h1>Garden Hose</h1><dl><dt>Brand</dt><dd>Hydro</dd><dt>Item number</dt><dd>GH-2231</dd></dl>
      <table><tr><th>Colour</th><td>Green</td></tr><tr><th>Weight</th><td>1.2 kg</td></tr></table><p>Price: €24,95</p>`;
    const r = run(html, {
      brand: 'string',
      sku: 'string',
      color: 'string',
      weight: 'number',
      price: 'number',
      currency: 'string',
    });
    expect(r.json).toEqual({
      brand: 'Hydro',
      sku: 'GH-2231',
      color: 'Green',
      weight: 1.2,
      price: 24.95,
      currency: 'EUR',
    });
    expect(r.sources).toMatchObject({ brand: 'label:Brand', sku: 'label:Item number', price: 'text:Price' });
  });

  it('reads paragraphs and divs as labels only when their whole text names a wanted field', () => {
    const html = `<h1>Adapter</h1><div class="spec"><div class="col"><p>Výrobca</p><p>ANPIX</p></div><div class="col"><div>Item number:</div><div>AX-12</div></div></div>`;
    const r = run(html, { brand: 'string', sku: 'string' });
    expect(r.json).toEqual({ brand: 'ANPIX', sku: 'AX-12' });
    expect(r.sources).toMatchObject({ brand: 'label:Výrobca', sku: 'label:Item number' });
    // Compound labels name each alternative.
    const compound = run(
      `<h1>Mower</h1><p><span>condition: <b>new</b></span><br><span>make/manufacturer: <b>Consteel LTD</b></span></p>`,
      { brand: 'string' },
    );
    expect(compound.json).toEqual({ brand: 'Consteel LTD' });
    expect(
      run(`<h1>Mower</h1><table><tr><th>SKU / Item #</th><td>A-1</td></tr></table>`, { sku: 'string' }).json,
    ).toEqual({ sku: 'A-1' });
    // A short paragraph that merely starts like a label is no label.
    expect(run(`<h1>Adapter</h1><p>Brand new</p><p>Shiny</p>`, { brand: 'string' }).json).toEqual({ brand: null });
  });

  it('reads elements named like the field (class, id, data-*), preferring the current price', () => {
    const html = `<h1>Backpack</h1><div class="product-pricing"><span class="price-was"><s>$89.00</s></span>
      <span class="price-now">$59.00</span></div><span id="product-sku">BP-59</span><div data-brand="Trekker"></div>`;
    const r = run(html, { price: 'number', currency: 'string', sku: 'string', brand: 'string' });
    expect(r.json).toEqual({ price: 59, currency: 'USD', sku: 'BP-59', brand: 'Trekker' });
  });

  it('ignores prices of related products', () => {
    const html = `<main><h1>Camera</h1><div class="buy-box"><span class="price">£449.00</span></div></main>
      <section class="related-products"><div class="card"><span class="price">£19.99</span></div><div class="card"><span class="price">£9.99</span></div></section>`;
    expect(run(html, { price: 'number', currency: 'string' }).json).toEqual({ price: 449, currency: 'GBP' });
  });

  it('answers no price rather than one from a grid of other products, whatever its heading says', () => {
    const card = (href: string, price: string) =>
      `<div class="col-3"><div class="product-thumb"><a href="${href}"><img src="/i.jpg"></a><h4><a href="${href}">Other mask</a></h4><div class="prices"><span class="price">${price}</span></div></div></div>`;
    const grid = `<div class="h1">Podobni izdelki</div><div class="row">${card('/mask-a', '150.00€')}${card('/mask-b', '50.00€')}${card('/mask-c', '55.00€')}</div>`;
    const withPrice = `<div class="product-view"><div id="tcol"><h1>Diving mask</h1><ul id="price-list" class="list-unstyled"><li class="price"><span class="price-old-live">100.00€</span></li>
      <li class="price-tax small">Brez DDV: <span class="price-tax-live">81.97€</span></li></ul></div>${grid}</div>`;
    expect(run(withPrice, { price: 'number' }, 'https://shop.example/diving-mask').json).toEqual({ price: 100 });
    const without = `<div class="product-view"><div id="tcol"><h1>Diving mask</h1><p>Currently unavailable.</p></div>${grid}</div>`;
    expect(run(without, { price: 'number' }, 'https://shop.example/diving-mask').json).toEqual({ price: null });
  });

  it("reads the price in the item's own slider, and not a data-price that repeats the old price", () => {
    const html = `<div class="row"><h1>Insoles</h1><div class="gallery"><div class="ek-slider-price"><span class="ek-slider-pricenew">270,00 Kn</span>
      <span class="ek-slider-priceold">540,00 Kn</span></div><a class="ek-slider-cta" href="#" data-price="540,00 Kn">Kupi</a></div></div>
      <div class="owl-carousel"><div class="item"><a href="/other">Other</a><span class="price">99,00 Kn</span></div></div>`;
    expect(run(html, { price: 'number' }).json).toEqual({ price: 270 });
  });

  it("takes the sale price when the page's own markup marks the structured price down", () => {
    const head = `<meta property="og:price:standard_amount" content="150.00"><meta property="product:price:amount" content="120.00"><meta property="product:price:currency" content="USD">`;
    const ld = `<script type="application/ld+json">{"@type":"Product","name":"Sconce","offers":{"@type":"Offer","price":"150.00","priceCurrency":"USD"}}</script>`;
    expect(run(`<head>${head}</head><body>${ld}<h1>Sconce</h1></body>`, { price: 'number' }).json).toEqual({
      price: 120,
    });
    // Without the mark-down, JSON-LD keeps its place.
    expect(
      run(`<head><meta property="product:price:amount" content="120.00"></head><body>${ld}<h1>Sconce</h1></body>`, {
        price: 'number',
      }).json,
    ).toEqual({ price: 150 });
  });

  it('takes the current bid of an auction, not the starting price the markup carries', () => {
    const ld = `<script type="application/ld+json">{"@type":"Product","name":"Vase","offers":{"@type":"Offer","price":"150","priceCurrency":"USD"}}</script>`;
    const box = (start: string) =>
      `<h1>Vase</h1><div class="bidding"><span class="price">$200</span><span>2 bids</span><span class="print">${start}</span></div>`;
    expect(run(`<body>${ld}${box('Starting Price $150')}</body>`, { price: 'number' }).json).toEqual({ price: 200 });
    expect(run(`<body>${ld}${box('Startpreis: 150 $')}</body>`, { price: 'number' }).json).toEqual({ price: 200 });
    // A shop that merely shows its price in a box keeps its structured price.
    expect(run(`<body>${ld}${box('Ships in 150 hours')}</body>`, { price: 'number' }).json).toEqual({ price: 150 });
  });

  it('reads "Label: value" statements of the description meta when the page says nothing else', () => {
    const head = `<meta property="og:description" content="直購價：$2320。◎可提式設計，拿取更加貼心。Item No: KT-77">`;
    const r = run(
      `<head>${head}</head><body><h1>Sink basket</h1><p>Stainless steel.</p></body>`,
      { price: 'number', currency: 'string' },
      'https://shop.example.com.tw/p/77',
    );
    expect(r.json).toEqual({ price: 2320, currency: 'TWD' });
    expect(r.sources.price).toBe('meta:og:description:直購價');
    // The page's own price comes first.
    const own = run(
      `<head>${head}</head><body><h1>Sink basket</h1><div class="price">NT$2,150</div></body>`,
      { price: 'number' },
      'https://shop.example.com.tw/p/77',
    );
    expect(own.json).toEqual({ price: 2150 });
  });

  it("takes no currency from the header's currency picker when the item shows no price", () => {
    const html =
      '<header id="navbar"><span class="icp-currency-symbol">€</span><span class="currency">EUR</span></header><h1>Out of print book</h1><p>Currently unavailable.</p>';
    expect(run(html, { price: 'number', currency: 'string' }).json).toEqual({ price: null, currency: null });
  });

  it("reads a bare dollar sign in the currency of the shop's country", () => {
    const html = `<h1>Tent</h1><div class="price">$229.00</div>`;
    const schema = { price: 'number', currency: 'string' };
    expect(run(html, schema, 'https://shop.example.ca/tent').json).toEqual({ price: 229, currency: 'CAD' });
    expect(run(html, schema, 'https://shop.example.com.au/tent').json).toEqual({ price: 229, currency: 'AUD' });
    expect(run(html, schema, 'https://shop.example.com/tent').json).toEqual({ price: 229, currency: 'USD' });
    expect(run(`<h1>Tent</h1><div class="price">US$229.00</div>`, schema, 'https://shop.example.ca/tent').json).toEqual(
      { price: 229, currency: 'USD' },
    );
  });

  it('reads side-box names as words: a "product-preview" or "unavailable-note" box is no review or nav', () => {
    const html = `<h1>Lamp</h1><div class="product-preview"><div class="unavailable-note-hidden"><span class="price">$45.00</span></div></div>`;
    expect(run(html, { price: 'number' }).json).toEqual({ price: 45 });
    const related = `<h1>Lamp</h1><div class="relatedProducts"><span class="price">$9.00</span></div>`;
    expect(run(related, { price: 'number' }).json).toEqual({ price: null });
  });

  it('reads cents set apart in their own element as decimals', () => {
    const price = (html: string) => run(`<h1>Camera</h1>${html}`, { price: 'number', currency: 'string' }).json;
    expect(
      price(`<div class="price large" aria-hidden="true">$229<span class="rightEndPrice">99</span></div>`),
    ).toEqual({ price: 229.99, currency: 'USD' });
    expect(price(`<p class="product-new-price"> 173<sup>34</sup> <span>Lei</span></p>`)).toEqual({
      price: 173.34,
      currency: 'RON',
    });
    expect(price(`<p class="product-price">1.299<sup>00</sup> €</p>`)).toEqual({ price: 1299, currency: 'EUR' });
    // Units and their decimals in one text, or a count after the price, are left alone.
    expect(price(`<div class="price">$12.50 <span class="unit">per 10</span></div>`)).toEqual({
      price: 12.5,
      currency: 'USD',
    });
    expect(price(`<div class="price">$1,299<span class="note">incl. VAT</span></div>`)).toEqual({
      price: 1299,
      currency: 'USD',
    });
  });

  it("spells a brand as the page's title does", () => {
    const html = (brand: string) =>
      `<head><title>Buy TP-Link Tapo C200 Camera | Shop</title></head><body><h2>TP-Link Tapo C200 Camera</h2><script>var dataLayer = [{"brand": "${brand}", "price": "34.99"}];</script></body>`;
    expect(run(html('TP Link'), { brand: 'string' }).json).toEqual({ brand: 'TP-Link' });
    // Other words, or only another case, leave it alone.
    expect(run(html('Tapo Labs'), { brand: 'string' }).json).toEqual({ brand: 'Tapo Labs' });
    expect(run(html('tp-link'), { brand: 'string' }).json).toEqual({ brand: 'tp-link' });
  });

  it('takes no brand from a menu or a navigation box', () => {
    const nav = `<li class="StoreNavigation-item--crossbrand"><nav class="CrossBrandNavigation"><h2 class="CrossBrandNavigation-title">Shop Our Sites</h2><a href="/a">A</a><a href="/b">B</a><a href="/c">C</a></nav></li>`;
    expect(run(`<ul>${nav}</ul><h1>Pendant</h1>`, { brand: 'string' }).json).toEqual({ brand: null });
    expect(
      run(`<ul>${nav}</ul><h1>Pendant</h1><div class="product-brand">Lumen</div>`, { brand: 'string' }).json,
    ).toEqual({ brand: 'Lumen' });
  });

  it('never takes a shipping cost or an instalment for the price', () => {
    const html = `<h1>Pen</h1><div class="shipping-price">$10</div><div class="monthly-installment">$4.99</div>`;
    expect(run(html, { price: 'number' }).json).toEqual({ price: null });
    expect(
      run(`${html}<div class="product-price-wrapper"><span>$49.00</span></div>`, { price: 'number' }).json,
    ).toEqual({ price: 49 });
    // Instalments in other languages and prices converted to another currency are other amounts too.
    const other = `<h1>Guitar</h1><span class="tasso-zero-price">79,95 €</span><span class="converted-price">US $19.38</span><div class="price-rata">€ 25</div>`;
    expect(run(other, { price: 'number' }).json).toEqual({ price: null });
  });

  it('does not trust a key that analytics repeat with many values, unless one value keeps coming back', () => {
    // A weak label ("Cijena") loses to one analytics price, but wins over a list of them.
    const label = '<h1>Insoles</h1><p>Cijena: 270,00 Kn</p>';
    expect(run(`<script>track({"price": 169});</script>${label}`, { price: 'number' }).json).toEqual({ price: 169 });
    const list = `<script>impressions.push({"price": 169}); impressions.push({"price": 1200}); impressions.push({"price": 540});</script>`;
    expect(run(`${list}${label}`, { price: 'number' }).json).toEqual({ price: 270 });
    // The value the page tracks again and again keeps its trust; the others lose it.
    const tracked = `<script>a({"sku": "1257009"}); b({"sku": "1257009"}); c({"sku": "889"}); d({"sku": "890"});</script><h1>Robot</h1>`;
    const out: Candidate[] = [];
    appStateCandidates(parseHtml(tracked), out, ['sku']);
    expect(out.map((c) => [c.value, c.confidence])).toEqual([
      ['1257009', 0.45],
      ['1257009', 0.45],
      ['889', 0.45 * 0.4],
      ['890', 0.45 * 0.4],
    ]);
  });

  it('takes an id from the URL when the page repeats it', () => {
    const html = `<h1>Blue kettle</h1><img src="/img/48213/main.jpg"><form><input type="hidden" name="id" value="48213"></form>`;
    expect(run(html, { sku: 'string' }).json).toEqual({ sku: '48213' });
    expect(run('<h1>Blue kettle</h1>', { sku: 'string' }).json).toEqual({ sku: null });
    // Letter-marked numbers in one segment: category c5780, ad a200532255; the page quotes the ad's.
    const ad = 'https://ads.example/boote/c5780a200532255/lattenrost-140-cm.html';
    expect(run(`<h1>Lattenrost</h1><div class="pic" data-adno="200532255"></div>`, { sku: 'string' }, ad).json).toEqual(
      { sku: '200532255' },
    );
    // A <base href> at the site's root moves where links resolve, not where the page is.
    const based = `<head><base href="https://ads.example"></head><body><h1>Lattenrost</h1><div class="pic" data-adno="200532255"></div></body>`;
    const here = pageExtraction(compileSchema({ sku: 'string' })).here(
      parseHtml(based),
      'https://ads.example',
      based,
      ad,
    );
    expect(here.json).toEqual({ sku: '200532255' });
  });

  it('reads availability from the buy box when there is no markup', () => {
    expect(run('<h1>Mug</h1><button class="btn">Add to cart</button>', { in_stock: 'boolean' }).json).toEqual({
      in_stock: true,
    });
    expect(
      run('<h1>Mug</h1><p class="stock-status">Out of stock</p><button disabled>Add to cart</button>', {
        in_stock: 'boolean',
      }).json,
    ).toEqual({ in_stock: false });
    expect(
      run('<h1>Mug</h1><div class="availability">Derzeit nicht verfügbar.</div>', { in_stock: 'boolean' }).json,
    ).toEqual({ in_stock: false });
    // A notice named for the unavailable state is a template shown when needed.
    expect(
      run(
        '<h1>Mug</h1><div class="variationUnavailable">Image non disponible</div><button>Ajouter au panier</button>',
        { in_stock: 'boolean' },
      ).json,
    ).toEqual({ in_stock: true });
  });

  it('counts an item offered at a price, with no word of unavailability, as in stock (classified ads)', () => {
    const schema = { price: 'number', in_stock: 'boolean' } as const;
    // A classified ad: a price, a way to contact the seller, no buy box.
    expect(
      run('<h1>Oak desk</h1><p class="price">£120</p><p>Collection only.</p><button>Reply to ad</button>', schema).json,
    ).toEqual({ price: 120, in_stock: true });
    // The same with a sold-out word on the page: no answer rather than a guess.
    expect(run('<h1>Oak desk</h1><p class="price">£120</p><p>This item is sold out.</p>', schema).json).toEqual({
      price: 120,
      in_stock: null,
    });
    expect(run('<h1>Oak desk</h1><p>Collection only.</p>', schema).json).toEqual({ price: null, in_stock: null });
  });

  it('reads availability from buy controls in many languages, their names, stock counts and quantity fields', () => {
    const stock = (body: string) =>
      run(`<h1>Kettle</h1><p class="price">49,00 zł</p>${body}`, { in_stock: 'boolean' }).json.in_stock;
    // Button text, in the shop's language (Polish, Russian, Traditional Chinese, Spanish tickets, Slovenian).
    expect(stock('<button type="submit">Do koszyka</button>')).toBe(true);
    expect(stock('<button>В корзину</button>')).toBe(true);
    expect(stock('<button class="btn">加入購物車</button>')).toBe(true);
    expect(stock('<a class="btn btn-warning" href="/compra?id=1">Comprar Entrada</a>')).toBe(true);
    expect(stock('<button type="button">V košarico</button>')).toBe(true);
    // A control named for buying whose text is an icon or a word not listed (OpenCart's #button-cart "Naroči", a buy_btn link).
    expect(stock('<button type="button" id="button-cart" class="btn btn-primary">Naroči</button>')).toBe(true);
    expect(stock('<a id="buy_btn" href="javascript:;"><img src="/buy.png" alt=""></a>')).toBe(true);
    // A link to the cart page is not a buy control.
    expect(stock('<a href="/cart" class="link-cart">Przejdź do koszyka</a>')).toBeNull();
    // Disabled controls: out of stock, unless an active one is there too.
    expect(stock('<button class="add-to-cart" disabled>Add to cart</button>')).toBe(false);
    expect(stock('<button class="add-to-cart btn--disabled" aria-disabled="true">In den Warenkorb</button>')).toBe(
      false,
    );
    expect(
      stock(
        '<button class="add-to-cart" disabled>Add to cart</button><button class="add-to-cart">Add to cart</button>',
      ),
    ).toBe(true);
    // Stock counts.
    expect(stock('<span>Only 3 left in stock</span>')).toBe(true);
    expect(stock('<div><span>Na stanie: 12 szt.</span></div>')).toBe(true);
    expect(stock('<span>0 available</span>')).toBe(false);
    expect(stock('<span>Delivery in 3 days</span>')).toBeNull();
    // A quantity to fill in, with nothing else said.
    expect(stock('<form><label>Menge <input type="number" name="menge" value="1"></label></form>')).toBe(true);
    expect(stock('<input type="hidden" name="qty" value="1">')).toBeNull();
    // Related products' buttons are not this item's.
    expect(stock('<div class="related-products"><button>Add to cart</button></div>')).toBeNull();
  });

  it('reads buy controls behind a verb and sold-out notices of scripts without spaces', () => {
    const stock = (body: string) => run(`<h1>Kettle</h1>${body}`, { in_stock: 'boolean' }).json.in_stock;
    // "Add to cart" with its verb (Russian, Czech, Ukrainian); "go to cart" is not a buy control.
    expect(stock('<button>Добавить в корзину</button>')).toBe(true);
    expect(stock('<button>Přidat do košíku</button>')).toBe(true);
    expect(stock('<button>Додати в кошик</button>')).toBe(true);
    expect(stock('<a href="/cart" class="btn">Перейти в корзину</a>')).toBeNull();
    expect(stock('<button>Lisää ostoskoriin</button>')).toBe(true);
    // Chinese, Japanese and Korean write words without spaces: the notice stands inside a sentence.
    expect(stock('<p class="price">¥1,200</p><div class="stock">この商品は在庫なしです</div>')).toBe(false);
    expect(stock('<p class="price">₩12,000</p><span class="stock-state">일시품절</span>')).toBe(false);
    expect(stock('<p class="price">$12</p><p class="stock">Out-of-stock</p>')).toBe(false);
  });

  it('does not read availability from a hidden back-in-stock pop-up', () => {
    // The pop-up is the out-of-stock case's template (display:none); the open buy box is what shoppers see.
    const html =
      '<h1>Kettle</h1><p class="price">€ 29,99</p><button type="submit" class="btn">In den Warenkorb</button>' +
      '<div class="dialog backInStockPopup" style="display:none">Dieser Artikel ist momentan vergriffen.</div>';
    expect(run(html, { in_stock: 'boolean' }).json).toEqual({ in_stock: true });
    const notice =
      '<h1>Kettle</h1><p class="price">€ 29,99</p><div class="stock-info">Dieser Artikel ist momentan vergriffen.</div>';
    expect(run(notice, { in_stock: 'boolean' }).json).toEqual({ in_stock: false });
    // Hidden by a wrapper's class: the sold-out notice of another size, shown when it is picked.
    const other =
      '<h1>Kettle</h1><p class="price">€ 29,99</p><div class="variant-msg hidden"><p class="stock-note">Sold out</p></div><a class="btn" href="/cart/add?id=1">Add to cart</a>';
    expect(run(other, { in_stock: 'boolean' }).json).toEqual({ in_stock: true });
  });

  it('counts an item in stock when any of its offers is', () => {
    const html = `<script type="application/ld+json">{"@type":"Product","name":"Tee","offers":[
      {"@type":"Offer","sku":"T-S","availability":"OutOfStock","price":10},{"@type":"Offer","sku":"T-M","availability":"InStock","price":10}]}</script>`;
    expect(run(html, { in_stock: 'boolean' }).json).toEqual({ in_stock: true });
    // An AggregateOffer's own word against one of the offers it sums up, listed inside it.
    const aggregate = `<script type="application/ld+json">{"@type":"Product","name":"Tee","offers":{"@type":"AggregateOffer","lowPrice":10,"offerCount":2,
      "availability":"https://schema.org/OutOfStock","offers":[{"@type":"Offer","price":10,"availability":"https://schema.org/InStock"}]}}</script>`;
    expect(run(aggregate, { in_stock: 'boolean' }).json).toEqual({ in_stock: true });
    const allOut = aggregate.replace('schema.org/InStock', 'schema.org/OutOfStock');
    expect(run(allOut, { in_stock: 'boolean' }).json).toEqual({ in_stock: false });
  });

  it('believes an open buy box over markup that says out of stock, but not over a sold-out notice', () => {
    const ld = `<script type="application/ld+json">{"@type":"Product","name":"Boot","offers":{"@type":"Offer","availability":"OutOfStock","price":136}}</script>`;
    const open = run(`${ld}<h1>Boot</h1><form><button type="submit">Add to your basket</button></form>`, {
      in_stock: 'boolean',
    });
    expect(open.json).toEqual({ in_stock: true });
    expect(open.sources.in_stock).toMatch(/buy box over json-ld/);
    expect(
      run(`${ld}<h1>Boot</h1><p class="stock-message">Sold out</p><button type="submit">Add to your basket</button>`, {
        in_stock: 'boolean',
      }).json,
    ).toEqual({ in_stock: false });
    expect(run(`${ld}<h1>Boot</h1>`, { in_stock: 'boolean' }).json).toEqual({ in_stock: false });
  });
});

describe('output shape', () => {
  it('always has every key: null for scalars, [] for arrays, nested objects filled', () => {
    const html = `<script type="application/ld+json">{"@type":"Product","name":"Sofa","image":["https://cdn.example/a.jpg","https://cdn.example/b.jpg"],
      "offers":{"price":"499","priceCurrency":"EUR","seller":{"@type":"Organization","name":"Sofa World"}}}</script>`;
    const r = run(html, {
      name: 'string',
      images: ['string'],
      seller: { name: 'string', rating: 'number' },
      tags: ['string'],
      gtin: 'string',
    });
    expect(r.json).toEqual({
      name: 'Sofa',
      images: ['https://cdn.example/a.jpg', 'https://cdn.example/b.jpg'],
      seller: { name: 'Sofa World', rating: null },
      tags: [],
      gtin: null,
    });
  });

  it('extracts arrays of objects from a JSON-LD ItemList', () => {
    const html = `<script type="application/ld+json">{"@type":"ItemList","itemListElement":[
      {"@type":"ListItem","position":1,"item":{"@type":"Product","name":"A","offers":{"price":"1.50"}}},
      {"@type":"ListItem","position":2,"item":{"@type":"Product","name":"B","offers":{"price":"2.50"}}},
      {"@type":"ListItem","position":3,"item":{"@type":"Product","name":"C","offers":{"price":"3.50"}}}]}</script>`;
    expect(run(html, { products: [{ name: 'string', price: 'number' }] }).json).toEqual({
      products: [
        { name: 'A', price: 1.5 },
        { name: 'B', price: 2.5 },
        { name: 'C', price: 3.5 },
      ],
    });
  });

  it('extracts arrays of objects from repeated cards on a listing page', () => {
    const cards = [
      'Red Mug|$8.00|/p/red',
      'Green Mug|$9.50|/p/green',
      'Blue Mug|$10.25|/p/blue',
      'Black Mug|$12.00|/p/black',
    ]
      .map((s) => s.split('|'))
      .map(
        ([n, p, u]) =>
          `<li class="card"><a href="${u}"><img src="${u}.jpg" alt="${n}"><h3>${n}</h3></a><span class="amount">${p}</span></li>`,
      )
      .join('');
    const html = `<nav><ul><li><a href="/">Home</a></li><li><a href="/c">Shop</a></li></ul></nav><h1>Mugs</h1><ul class="grid">${cards}</ul>`;
    const r = run(
      html,
      { products: [{ name: 'string', price: 'number', url: 'string' }] },
      'https://shop.example/c/mugs',
    );
    expect(r.json.products).toEqual([
      { name: 'Red Mug', price: 8, url: 'https://shop.example/p/red' },
      { name: 'Green Mug', price: 9.5, url: 'https://shop.example/p/green' },
      { name: 'Blue Mug', price: 10.25, url: 'https://shop.example/p/blue' },
      { name: 'Black Mug', price: 12, url: 'https://shop.example/p/black' },
    ]);
  });

  it('validates the output against the compiled schema', () => {
    const schema = compileSchema({ price: 'integer', ok: 'boolean' });
    const r = extractFromDocument(parseHtml('<p>Price: 12.7</p><p>ok: maybe</p>'), {
      schema,
      url: 'https://x.example/',
    });
    expect(r.json).toEqual({ price: 13, ok: null });
    expect(schema.validate(r.json)).toBe(true);
  });
});

describe('identifiers', () => {
  it('prefers the shop code over a barcode number for sku, and keeps the barcode for gtin', () => {
    const html = `<script type="application/ld+json">{"@type":"Product","name":"Shirt","id":"5715093615745","gtin13":"5715093615745"}</script>
      <script>dataLayer.push({"articleNumber":"12185160"})</script>`;
    expect(run(html, { sku: 'string', gtin: 'string' }).json).toEqual({ sku: '12185160', gtin: '5715093615745' });
  });
  it('trusts a code the page shows under its own label over a hidden variant id', () => {
    const footer = Array.from({ length: 30 }, (_, i) => `<li><a href="/c/${i}">Category ${i}</a></li>`).join('');
    const html = `<script type="application/ld+json">{"@type":"Product","name":"Lamp","sku":"237972452"}</script>
      <header><nav><ul>${footer}</ul></nav></header><main><h1>Lamp</h1><p>Product code: 64981901</p><p>A lamp for reading.</p></main><footer><ul>${footer}</ul></footer>`;
    expect(run(html, { sku: 'string' }).json).toEqual({ sku: '64981901' });
  });
  it('reads a label whose value is the text after it ("<strong>Product Code - </strong>39139301")', () => {
    const html = `<script type="application/ld+json">{"@type":"Product","name":"Boot","sku":"238887908"}</script>
      <h1>Boot</h1><ul><li><strong>Product Code - </strong>39139301</li><li><strong>Brand - </strong>Gant</li></ul>`;
    expect(run(html, { sku: 'string', brand: 'string' }).json).toEqual({ sku: '39139301', brand: 'Gant' });
  });
  it('prefers an element named for the reference that shows it over a JSON-LD sku the page never shows', () => {
    const html = `<body class="header-transparent hidden-menu"><h1>Boots</h1><p class="product-color"><span>Black</span> - <span data-qa-qualifier="product-reference">1002/710</span></p>
      <script type="application/ld+json">{"@type":"Product","name":"Boots","sku":"84518927-040-35"}</script></body>`;
    const r = run(html, { sku: 'string' });
    expect(r.json).toEqual({ sku: '1002/710' });
    // Shown in the page, the JSON-LD value keeps its place.
    const shown = html.replace('1002/710', '84518927-040-35');
    expect(run(shown, { sku: 'string' }).json).toEqual({ sku: '84518927-040-35' });
  });
  it('reads "Код: 73556" inside the product heading, whose header is no side box', () => {
    const html = `<script>var d = {"prodid": "526798"};</script><header class="aa_header"><h1><span>Холодильник BEKO</span> <span class="element-article">Код: 73556</span></h1></header>`;
    expect(run(html, { sku: 'string' }, 'https://shop.example/catalog/beko-rcsk').json).toEqual({ sku: '73556' });
  });
  it('reads the id at the end of a long slug and drops a letter marker when the page quotes the bare number', () => {
    const long = 'https://shop.example/usb/pcie-karty/anpix-redukcia-z-ngff-m2-key-m-na-pci-e-4x-114768289';
    expect(
      run(`<img src="/img/114768289/1.jpg"><img src="/img/114768289/2.jpg"><h1>Anpix</h1>`, { sku: 'string' }, long)
        .json,
    ).toEqual({ sku: '114768289' });
    const marked = 'https://shop.example/massivholz-regal-p400105394.html';
    expect(run(`<script>var p = {"id":"400105394"};</script><h1>Regal</h1>`, { sku: 'string' }, marked).json).toEqual({
      sku: '400105394',
    });
  });
});

describe('manufacturer codes and barcodes', () => {
  it("reads model-number labels of shops in several languages, and a barcode without the sentence's full stop", () => {
    const table = (label: string) =>
      `<h1>Walkie Talkie</h1><table><tr><th>Brand</th><td>Retevis</td></tr><tr><th>${label}</th><td> EUA1026P </td></tr></table>`;
    for (const label of [
      'Item model number',
      'Numero modello articolo',
      "Numéro du modèle de l'article",
      'Modellnummer',
      'Ražotāja kods',
    ]) {
      expect(run(table(label), { mpn: 'string' }).json, label).toEqual({ mpn: 'EUA1026P' });
    }
    expect(run('<h1>Camera</h1><p>EAN: 6935364088101.</p>', { gtin: 'string' }).json).toEqual({
      gtin: '6935364088101',
    });
  });
});

describe('names and brands', () => {
  it('takes the product heading, not a cart pop-up heading or a title with the site name', () => {
    const html = `<head><title>Amazon.com: Relay Module : Automotive</title><meta name="title" content="Amazon.com: Relay Module : Automotive"></head>
      <body><div class="cart-popup"><h1 class="success-message">Adding to Cart...</h1></div><h1 id="title"><span>Relay Module</span></h1></body>`;
    expect(run(html, { name: 'string' }, 'https://www.amazon.com/dp/B0057OC5O8').json).toEqual({
      name: 'Relay Module',
    });
    expect(
      run('<title>Wool Scarf | Knitters</title>', { title: 'string' }, 'https://knitters.example/p/1').json,
    ).toEqual({ title: 'Wool Scarf' });
    // A heading that is the site's logo (its words one link home) names the site, not the page.
    const logo =
      '<title>Conversations with a Cryptid | Archive of Our Own</title><h1 class="heading"><a href="/"><span>Archive of Our Own</span> <sup>beta</sup></a></h1><h2>Chapter 1</h2>';
    expect(run(logo, { title: 'string' }, 'https://archiveofourown.org/works/1').json).toEqual({
      title: 'Conversations with a Cryptid',
    });
  });
  it('reads a name as the page shows it: no hidden prefix, no heading from a hidden pop-over', () => {
    const ebay =
      '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name"><span class="g-hdn">Details about </span>BMW X1 sDrive</h1></div>';
    expect(run(ebay, { name: 'string' }).json).toEqual({ name: 'BMW X1 sDrive' });
    const popover = `<div id="primePopoverContent" style="display:none"><h1>Try Prime free</h1></div>
      <div class="a-popover-preload"><h1>Save 15%</h1></div><h1 id="title">Texas Chicken Rub, 230 g</h1>`;
    expect(run(popover, { name: 'string' }).json).toEqual({ name: 'Texas Chicken Rub, 230 g' });
    // A layout class that only contains the word is no hiding.
    expect(run('<div class="overflow-hidden"><h1>Lamp</h1></div>', { name: 'string' }).json).toEqual({ name: 'Lamp' });
  });

  it('decodes HTML entities a template left in JSON-LD text', () => {
    const html =
      '<script type="application/ld+json">{"@type":"Product","name":"Selfie Stick - Black &amp; Silver","brand":"Elo&iacute;sa"}</script>';
    expect(run(html, { name: 'string', brand: 'string' }).json).toEqual({
      name: 'Selfie Stick - Black & Silver',
      brand: 'Eloísa',
    });
  });

  it("drops the site's name from the end of a shared title, but keeps a brand site's own product names", () => {
    const og = '<meta property="og:title" content="Pokémon GO Plus + - Walmart.com">';
    expect(run(og, { title: 'string' }, 'https://www.walmart.com/ip/1203950273').json).toEqual({
      title: 'Pokémon GO Plus +',
    });
    const named =
      '<meta property="og:site_name" content="PChome商店街"><meta property="og:title" content="Carrying Sink 660416｜PChome商店街">';
    expect(run(named, { title: 'string' }, 'https://www.pcstore.com.tw/p/M1.htm').json).toEqual({
      title: 'Carrying Sink 660416',
    });
    const seo =
      '<script type="application/ld+json">{"@type":"Product","name":"Cheese Slicer - Buy Cheese Slicer,Cheese Grater Product on Alibaba.com"}</script>';
    expect(run(seo, { name: 'string' }, 'https://www.alibaba.com/product-detail/x.html').json).toEqual({
      name: 'Cheese Slicer',
    });
    const brand =
      '<script type="application/ld+json">{"@type":"Product","name":"Nintendo Switch - OLED Model"}</script>';
    expect(run(brand, { name: 'string' }, 'https://www.nintendo.com/us/store/products/x/').json).toEqual({
      name: 'Nintendo Switch - OLED Model',
    });
  });

  it('cleans brand wording and invisible characters from page text', () => {
    expect(run('<a id="bylineInfo" class="brand-link">Visit the Acme Store</a>', { brand: 'string' }).json).toEqual({
      brand: 'Acme',
    });
    expect(run('<span class="product-brand">\u200eLumo</span>', { brand: 'string' }).json).toEqual({ brand: 'Lumo' });
    const micro =
      '<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Robot</span><span itemprop="brand">Ver mais artigos da Marca: Roborock</span></div>';
    expect(run(micro, { brand: 'string' }).json).toEqual({ brand: 'Roborock' });
  });

  it('reads brand and manufacturer labels in other languages', () => {
    const html =
      '<h1>Maska</h1><ul><li><strong>Proizvajalec:</strong> <a href="/m/13">B&amp;S</a></li><li><strong>Šifra:</strong> 9470</li></ul>';
    expect(run(html, { brand: 'string' }).json).toEqual({ brand: 'B&S' });
  });

  it('takes no brand from a "Brands" menu link, from classes that only contain the word or from styling classes', () => {
    const html = `<header><a id="gh-shop-by-brand" href="/brands">Brands</a></header><div id="makeebayfaster_config">{"modules":[]}</div>
      <div class="BVRRSocialBookmarkingLinks">Share this product</div><a class="vi-cobranded-card-learn-more">Learn more</a><h1>Lamp</h1>
      <span class="brand_color">12/09 (Wed)</span><b class="bg-brand">New</b>`;
    expect(run(html, { brand: 'string' }).json).toEqual({ brand: null });
    // …while a class that names the field keeps counting, whatever else it says.
    expect(run('<h1>Lamp</h1><span class="product-brand-name">Lumo</span>', { brand: 'string' }).json).toEqual({
      brand: 'Lumo',
    });
  });
});

describe('labels in other languages', () => {
  it.each([
    ['<dl><dt>Artikel-Nr.</dt><dd>AB-1234</dd></dl>', 'AB-1234'],
    ['<p>Codice articolo: IT5521</p>', 'IT5521'],
    ['<p>Kod produktu: PL-778</p>', 'PL-778'],
    ['<table><tr><th>Référence</th><td>FR9912</td></tr></table>', 'FR9912'],
  ])('%s', (html, sku) => expect(run(html, { sku: 'string' }).json).toEqual({ sku }));
});

describe('price labels of Chinese, Japanese and Korean shops', () => {
  it('reads "售價：NT$1,200", "価格: ¥3,980" and "판매가: 29,000원" lines', () => {
    expect(run('<h1>茶壺</h1><p>售價：NT$1,200</p>', { price: 'number', currency: 'string' }).json).toEqual({
      price: 1200,
      currency: 'TWD',
    });
    expect(run('<h1>急須</h1><div>価格: ¥3,980</div>', { price: 'number' }).json).toEqual({ price: 3980 });
    expect(run('<h1>찻주전자</h1><span>판매가: 29,000원</span>', { price: 'number' }).json).toEqual({ price: 29000 });
  });
});

describe('articles', () => {
  it('answers dates as ISO 8601 under the names schemas give them, and no date from text without one', () => {
    const page = `<head><meta property="article:published_time" content="2015-12-11T14:28:34.438Z"></head>
      <body><h1>Post</h1><p class="byline">Tuesday 15 October 2019 by Bradley</p></body>`;
    for (const field of ['published_at', 'publish_date', 'publication_date', 'date_published', 'published']) {
      expect(run(page, { [field]: 'string' }).json, field).toEqual({ [field]: '2015-12-11T14:28:34.438Z' });
    }
    expect(run('<h1>Post</h1><p class="date">Tuesday 15 October 2019 by Bradley</p>', { date: 'string' }).json).toEqual(
      { date: '2019-10-15' },
    );
    expect(
      run('<h1>Post</h1><span class="date">28</span><span class="post-date">12:55 AM</span>', { date: 'string' }).json,
    ).toEqual({ date: null });
    const blogger =
      '<div itemscope itemtype="http://schema.org/BlogPosting"><abbr itemprop="datePublished" title="2016-05-08T00:55:00-07:00">12:55 AM</abbr></div>';
    expect(run(blogger, { published_at: 'string' }).json).toEqual({ published_at: '2016-05-08T00:55:00-07:00' });
  });

  it('names every author of a JSON-LD byline list in a string field, and lists them in an array field', () => {
    const html =
      '<script type="application/ld+json">{"@type":"NewsArticle","headline":"Martial law","author":[{"@type":"Person","name":"Stella Kim"},{"@type":"Person","name":"Jennifer Jett"}]}</script>';
    expect(run(html, { author: 'string', authors: ['string'] }).json).toEqual({
      author: 'Stella Kim, Jennifer Jett',
      authors: ['Stella Kim', 'Jennifer Jett'],
    });
  });

  it('reads JSON-LD wrapped in CDATA', () => {
    const html = `<script type="application/ld+json"><![CDATA[
      {"@context":"http://schema.org","@type":"NewsArticle","headline":"Samantha and the Lie","datePublished":"2015-10-15T02:19:15.607Z","author":{"@type":"Person","name":"John Welch"}}
    ]]></script>`;
    expect(run(html, { title: 'string', author: 'string', published_at: 'string' }).json).toEqual({
      title: 'Samantha and the Lie',
      author: 'John Welch',
      published_at: '2015-10-15T02:19:15.607Z',
    });
  });

  it("takes a linked microdata name as its text, and no title from a blog's, a commenter's or the site's own name", () => {
    const html = `<body itemscope itemtype="http://schema.org/Blog"><div itemprop="name" class="logo">eHow</div>
      <article itemscope itemtype="http://schema.org/BlogPosting"><h2><a itemprop="name" href="/code/2013/covered/">Get Your Code Covered</a></h2></article>
      <aside itemscope itemtype="http://schema.org/WPSideBar"><span itemprop="name">Marion</span></aside></body>`;
    expect(run(html, { title: 'string' }, 'https://www.ehow.com/how_2.html').json).toEqual({
      title: 'Get Your Code Covered',
    });
    const widget = `<meta property="og:title" content="A Fantastic Shop of Toys"><article><h2>A Fantastic Shop of Toys</h2></article>
      <div itemscope itemtype="http://schema.org/ItemList"><h3 itemprop="name">Popular articles</h3><meta itemprop="itemListOrder" content="Descending"></div>`;
    expect(run(widget, { title: 'string' }).json).toEqual({ title: 'A Fantastic Shop of Toys' });
  });

  it('reads the byline link, not a profile URL, a script constant or a commenter', () => {
    const html = `<head><meta property="article:author" content="https://www.facebook.com/profile.php?id=cesarsalza"></head><body>
      <script>var page = {"author": "cvAuthor", "byline": "EXPANDED"};</script>
      <article><h1>Issue 85</h1><address class="vcard"><a href="/author/mconley/" rel="author">Mike Conley</a></address><p>Text.</p></article>
      <section id="comments"><ol class="comment-list"><li class="comment"><cite class="author fn">Alan Goodale</cite> said…</li></ol></section></body>`;
    expect(run(html, { author: 'string' }).json).toEqual({ author: 'Mike Conley' });
    expect(
      run('<h1>Post</h1><span class="article-author">Nicolas Perriault —</span>', { author: 'string' }).json,
    ).toEqual({ author: 'Nicolas Perriault' });
    // Each on its own, with no byline to outscore it:
    expect(
      run('<script>var page = {"author": "cvAuthor"};</script><h1>Story</h1><p>Text.</p>', { author: 'string' }).json,
    ).toEqual({ author: null });
    expect(
      run('<script>dataLayer.push({"author": "EXPANDED"});</script><h1>Story</h1><p>Text.</p>', { author: 'string' })
        .json,
    ).toEqual({ author: null });
    const comments =
      '<h1>Issue 85</h1><p>Text.</p><section id="comments"><ol class="comment-list"><li class="comment"><cite class="author fn">Alan Goodale</cite> said…</li></ol></section>';
    expect(run(comments, { author: 'string' }).json).toEqual({ author: null });
  });

  it('takes no description from a navigation link and decodes entities a template escaped twice', () => {
    const nav = `<div id="p-navigation" class="portal"><ul><li id="n-mainpage-description"><a href="/wiki/Main_Page">Main page</a></li></ul></div><h1>Mozilla</h1><p>Mozilla is a free-software community.</p>`;
    expect(run(nav, { description: 'string' }).json).toEqual({ description: null });
    expect(
      run('<meta name="description" content="Tears &amp;#x1F62D; &amp;amp; laughter">', { description: 'string' }).json,
    ).toEqual({ description: 'Tears 😭 & laughter' });
  });

  it('answers the names of a byline without "By", job titles, wire credits or dates', () => {
    const cases: [string, string][] = [
      ['<div class="byline">By TOM KRISHER, AP Auto Writer</div>', 'TOM KRISHER'],
      [
        '<div class="article-authors"><span>By </span><a href="/people/meg-james"><span>Meg James</span></a><span class="title">Staff Writer </span></div>',
        'Meg James',
      ],
      [
        '<div class="story-byline"><div>By DANICA KIRKA and JILL LAWLESS</div><div>Associated Press</div></div>',
        'DANICA KIRKA and JILL LAWLESS',
      ],
      ['<div class="author-text">by Tom Rogan | November 18, 2019 12:26 PM</div>', 'Tom Rogan'],
      ['<div class="author-info">Suzanne Gamboa 1 day ago</div>', 'Suzanne Gamboa'],
      ['<span class="byline">Posted by Michael David Smith on November 19, 2019</span>', 'Michael David Smith'],
      ['<span class="author">The Associated Press</span>', 'The Associated Press'],
    ];
    for (const [byline, name] of cases)
      expect(run(`<h1>Story</h1>${byline}<p>Text of the story.</p>`, { author: 'string' }).json, byline).toEqual({
        author: name,
      });
  });

  it('summarises with the first real paragraph after the headline when the page gives no description', () => {
    const html = `<header><p>Menu and a short tagline</p></header><h1>Evolve</h1><p class="note">Short note.</p>
      <p>Once you have mastered the art of mutable history in a single repository, you might want to move up to the next level.</p><p>Second paragraph of the guide, which is no summary.</p>`;
    expect(run(html, { description: 'string' }).json).toEqual({
      description:
        'Once you have mastered the art of mutable history in a single repository, you might want to move up to the next level.',
    });
    expect(
      run(`<meta name="description" content="The guide to evolve.">${html}`, { description: 'string' }).json,
    ).toEqual({ description: 'The guide to evolve.' });
  });
});
