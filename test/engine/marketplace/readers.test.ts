/**
 * Marketplace readers on fixture pages written after the real pages' structure
 * (test/fixtures/marketplace, each says where its structure came from), and the small rules:
 * ids in URLs, regional number formats, bylines, availability words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../../src/engine/document/dom.js';
import { brandFromByline } from '../../../src/engine/marketplace/amazon.js';
import { parsePrice } from '../../../src/engine/marketplace/dom-helpers.js';
import { marketplaceExtraction } from '../../../src/engine/marketplace/extraction.js';
import { availabilityOf } from '../../../src/engine/marketplace/product.js';
import { productIdFromUrl } from '../../../src/engine/marketplace/registry.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/marketplace');
const read = (marketplace: string, file: string, url: string, mode: 'basic' | 'rich' = 'rich') => {
  const html = readFileSync(join(FIXTURES, file), 'utf8');
  return marketplaceExtraction(marketplace, mode).here(parseHtml(html), url, html, url);
};

describe('marketplace readers', () => {
  it('reads an Amazon.de deal: German numbers, was-price, limited stock, specs, seller, images, variants', () => {
    const { json: p, sources } = read('amazon_de', 'amazon-de-deal.html', 'https://www.amazon.de/dp/B0TESTDE01');
    expect(p).toMatchObject({
      id: 'B0TESTDE01',
      title: 'Tiefsee-Lampe Pro, 2er-Pack',
      price: 1049.99,
      currency: 'EUR',
      list_price: 1299,
      discount_percent: 19,
      availability: 'limited',
      in_stock: true,
      brand: 'Tiefsee',
      rating: 4.6,
      review_count: 1234,
      model: 'TS-200',
      gtin: '4006381333931',
      condition: 'new',
      features: ['Wasserdicht bis 300 m', 'Akku für 40 Stunden'],
      categories: ['Baumarkt', 'Lampen'],
      seller: { name: 'Tiefsee GmbH', id: 'A1SELLER0DE', rating: null },
      shipping: 'KOSTENLOSE Lieferung Freitag, 28. November',
    });
    expect(p.images).toEqual([
      'https://m.media-amazon.com/images/I/lamp1._AC_SL1500_.jpg',
      'https://m.media-amazon.com/images/I/lamp2._AC_.jpg',
    ]);
    expect(p.variants).toEqual([
      {
        id: 'B0TESTDE01',
        attributes: { Farbe: 'Schwarz', Größe: '2er-Pack' },
        price: null,
        in_stock: null,
        url: 'https://www.amazon.de/dp/B0TESTDE01',
      },
      {
        id: 'B0TESTDE02',
        attributes: { Farbe: 'Weiß', Größe: '2er-Pack' },
        price: null,
        in_stock: null,
        url: 'https://www.amazon.de/dp/B0TESTDE02',
      },
    ]);
    expect((p.specifications as Record<string, string>).Marke).toBe('Tiefsee');
    expect(sources.price).toBe('amazon:#corePriceDisplay_desktop_feature_div');
    expect(sources.brand).toBe('amazon:#bylineInfo');
  });

  it('reads an unavailable Amazon.com page: no price guessed, out of stock, brand and UPC', () => {
    const { json: p } = read('amazon_us', 'amazon-us-unavailable.html', 'https://www.amazon.com/dp/B0TESTUS01');
    expect(p).toMatchObject({
      id: 'B0TESTUS01',
      price: null,
      currency: null,
      list_price: null,
      discount_percent: null,
      availability: 'out_of_stock',
      in_stock: false,
      brand: '365 by Deep Sea',
      gtin: '099482467999',
      condition: null,
      seller: null,
      variants: [],
    });
  });

  it('basic mode answers exactly the basic fields', () => {
    const { json: p } = read('amazon_de', 'amazon-de-deal.html', 'https://www.amazon.de/dp/B0TESTDE01', 'basic');
    expect(Object.keys(p).sort()).toEqual(['availability', 'currency', 'id', 'in_stock', 'price', 'title', 'url']);
  });

  it("reads eBay's current layout: price, was-price, condition, specifics, seller, full-size images", () => {
    const { json: p } = read('ebay_uk', 'ebay-modern.html', 'https://www.ebay.co.uk/itm/302474151999');
    expect(p).toMatchObject({
      id: '302474151999',
      title: 'Pony Cart Harness - Small',
      price: 45,
      currency: 'GBP',
      list_price: 60,
      discount_percent: 25,
      condition: 'Used',
      availability: 'limited',
      in_stock: true,
      brand: 'Shires',
      mpn: null, // "Does not apply" is not a part number
      seller: { name: 'clipclopthriftshop', id: 'clipclopthriftshop', rating: 99.5 },
    });
    expect(p.images).toEqual([
      'https://i.ebayimg.com/images/g/abcd/s-l1600.jpg',
      'https://i.ebayimg.com/images/g/efgh/s-l1600.jpg',
    ]);
  });

  it("reads Walmart's page state: was-price, out of stock, seller, specs, variants with their own price and stock", () => {
    const { json: p, sources } = read(
      'walmart_us',
      'walmart-kayak.html',
      'https://www.walmart.com/ip/Deep-Sea-Kayak/555000111',
    );
    expect(p).toMatchObject({
      id: '555000111',
      title: 'Deep Sea Kayak, 10 ft',
      price: 299,
      currency: 'USD',
      list_price: 349,
      discount_percent: 14,
      availability: 'out_of_stock',
      in_stock: false,
      brand: 'Abyss',
      rating: 4.2,
      review_count: 1380,
      description: 'Paddle further.',
      categories: ['Sports & Outdoors', 'Kayaks'],
      gtin: '012345678905',
      model: 'DSK-10',
      mpn: 'DSK10-BLU',
      condition: 'New',
      seller: { name: 'Walmart.com', id: 'F55CDC31AB754BB68FE0B39041159D63', rating: null },
      specifications: { Length: '10 ft', Material: 'Polyethylene' },
      features: ['Capacity: 300 lb'],
    });
    expect(p.images).toEqual([
      'https://i5.walmartimages.com/seo/kayak-1.jpeg',
      'https://i5.walmartimages.com/asr/kayak-2.jpeg',
    ]);
    expect(p.variants).toEqual([
      {
        id: '555000111',
        attributes: { Color: 'Blue' },
        price: 299,
        in_stock: false,
        url: 'https://www.walmart.com/ip/555000111',
      },
      {
        id: '555000112',
        attributes: { Color: 'Red' },
        price: 289,
        in_stock: true,
        url: 'https://www.walmart.com/ip/555000112',
      },
    ]);
    expect(sources.price).toBe('walmart:__NEXT_DATA__.product.priceInfo.currentPrice.price');
  });

  it("reads Target's data-test hooks: sale price with regular price, out of stock, rating and count, brand, crumbs", () => {
    const { json: p } = read(
      'target_us',
      'target-sale-out-of-stock.html',
      'https://www.target.com/p/deep-sea-mug/-/A-87654321',
    );
    expect(p).toMatchObject({
      id: '87654321',
      title: 'Deep Sea Mug 16oz - Threshold™',
      price: 6,
      currency: 'USD',
      list_price: 8,
      discount_percent: 25,
      availability: 'out_of_stock',
      in_stock: false,
      rating: 4.6,
      review_count: 1208,
      brand: 'Threshold',
      categories: ['Kitchen & Dining', 'Mugs'],
    });
    expect(p.images).toEqual([
      'https://target.scene7.com/is/image/Target/GUEST_mug1',
      'https://target.scene7.com/is/image/Target/GUEST_mug2',
    ]);
  });

  it("reads Etsy's buy box: the price paid (VAT included) over JSON-LD's pre-tax offer, the original price, the shop", () => {
    const { json: p, sources } = read(
      'etsy_de',
      'etsy-de-sale.html',
      'https://www.etsy.com/de/listing/550571999/fussmatte',
    );
    expect(p).toMatchObject({
      id: '550571999',
      title: 'Fußmatte Kürbis, handbemalt',
      price: 42.84,
      currency: 'EUR',
      list_price: 47.6,
      discount_percent: 10,
      in_stock: true,
      seller: { name: 'OliveCreativeCompany', id: '12418300', rating: null },
    });
    expect(sources.price).toBe('etsy:[data-buy-box-region=price]');
  });

  it('reads search-results pages as products in page order (Amazon, eBay, Walmart)', () => {
    const amazon = read('amazon_uk', 'amazon-search.html', 'https://www.amazon.co.uk/s?k=deep+sea+lamp').json
      .products as any[];
    expect(amazon).toEqual([
      {
        id: 'B0SEARCH01',
        url: 'https://www.amazon.co.uk/Deep-Sea-Lamp/dp/B0SEARCH01/ref=sr_1_1',
        title: 'Deep Sea Lamp, 2 Pack',
        price: 1049.99,
        currency: 'GBP',
        availability: 'unknown',
        in_stock: null,
      },
      {
        id: 'B0SEARCH02',
        url: 'https://www.amazon.co.uk/Abyss-Torch/dp/B0SEARCH02',
        title: 'Abyss Torch',
        price: null,
        currency: null,
        availability: 'out_of_stock',
        in_stock: false,
      },
      {
        id: 'B0SEARCH03',
        url: 'https://www.amazon.co.uk/sspa/click?url=%2FReef-Light%2Fdp%2FB0SEARCH03',
        title: 'Reef Light (Sponsored)',
        price: 12.5,
        currency: 'GBP',
        availability: 'unknown',
        in_stock: null,
      },
    ]);
    const ebay = read('ebay_us', 'ebay-search.html', 'https://www.ebay.com/sch/i.html?_nkw=pony+harness').json
      .products as any[];
    expect(ebay.map((p) => [p.id, p.title, p.price, p.currency, p.url])).toEqual([
      ['302474151804', 'Pony Cart Harness - Small', 45, 'USD', 'https://www.ebay.com/itm/302474151804'],
      ['302474151805', 'Shetland Bridle', 12.99, 'USD', 'https://www.ebay.com/itm/302474151805'],
    ]);
    const walmart = read('walmart_us', 'walmart-search.html', 'https://www.walmart.com/search?q=kayak').json
      .products as any[];
    expect(walmart).toEqual([
      {
        id: '555000111',
        url: 'https://www.walmart.com/ip/Deep-Sea-Kayak/555000111',
        title: 'Deep Sea Kayak, 10 ft',
        price: 299,
        currency: 'USD',
        availability: 'in_stock',
        in_stock: true,
      },
      {
        id: '555000222',
        url: 'https://www.walmart.com/ip/Abyss-Paddle/555000222',
        title: 'Abyss Paddle',
        price: 39.97,
        currency: 'USD',
        availability: 'out_of_stock',
        in_stock: false,
      },
    ]);
  });

  it("reads Best Buy Canada's page state: sale price with savings, sold out online, model, UPC, rating", () => {
    const { json: p, sources } = read(
      'bestbuy_ca',
      'bestbuy-ca-sale.html',
      'https://www.bestbuy.ca/en-ca/product/deep-sea-doorbell/15432345',
    );
    expect(p).toMatchObject({
      id: '15432345',
      title: 'Deep Sea Doorbell - Black',
      price: 149.99,
      currency: 'CAD',
      list_price: 199.99,
      discount_percent: 25,
      availability: 'out_of_stock',
      in_stock: false,
      brand: 'ABYSS',
      model: 'DSD-1',
      gtin: '0123456789012',
      rating: 4.2,
      review_count: 88,
      description: 'A doorbell for the deep.',
    });
    expect(p.images).toHaveLength(2);
    expect(sources.price).toBe('bestbuy:__INITIAL_STATE__.product.priceWithoutEhf');
  });

  it('reads product ids from every marketplace URL shape', () => {
    const cases: [string, string, string | undefined][] = [
      ['amazon_us', 'https://www.amazon.com/Some-Name/dp/b07fw264wl?th=1', 'B07FW264WL'],
      ['amazon_uk', 'https://www.amazon.co.uk/gp/product/B0057OC5O8/', 'B0057OC5O8'],
      ['ebay_de', 'https://www.ebay.de/itm/Some-Title/302474151804?hash=x', '302474151804'],
      ['walmart_us', 'https://www.walmart.com/ip/Widget-Pro/123456789', '123456789'],
      ['etsy_es', 'https://www.etsy.com/es/listing/550571276/el-original', '550571276'],
      ['target_us', 'https://www.target.com/p/widget/-/A-54191097', '54191097'],
      ['bestbuy_us', 'https://www.bestbuy.com/site/widget/6644753.p?skuId=6644753', '6644753'],
      ['bestbuy_us', 'https://www.bestbuy.com/product/anker/JJ858RL86Q/sku/6644753', '6644753'],
      ['bestbuy_ca', 'https://www.bestbuy.ca/en-ca/product/widget/15432345', '15432345'],
      ['amazon_us', 'https://www.amazon.com/s?k=widgets', undefined],
    ];
    for (const [m, url, id] of cases) expect(productIdFromUrl(m, url), url).toBe(id);
  });

  it("reads prices in each region's number format", () => {
    expect(parsePrice('1.049,99 €', ',')).toBe(1049.99);
    expect(parsePrice('1.299 €', ',')).toBe(1299);
    expect(parsePrice('12,99 €', ',')).toBe(12.99);
    expect(parsePrice('$1,299.00', '.')).toBe(1299);
    expect(parsePrice('£1,299', '.')).toBe(1299);
    expect(parsePrice('EUR 1,299', ',')).toBe(1.299);
    expect(parsePrice('¥12,800', '.')).toBe(12800);
    expect(parsePrice('no price', '.')).toBeUndefined();
  });

  it('reads bylines and availability words in the regions’ languages', () => {
    expect(brandFromByline('Visit the SainSmart Store')).toBe('SainSmart');
    expect(brandFromByline('Visiter la boutique PetSafe')).toBe('PetSafe');
    expect(brandFromByline('Besuche den Bosch-Store')).toBe('Bosch');
    expect(brandFromByline('Marca: Retevis')).toBe('Retevis');
    expect(availabilityOf('Only 3 left in stock - order soon.')).toBe('limited');
    expect(availabilityOf('Derzeit nicht verfügbar.')).toBe('out_of_stock');
    expect(availabilityOf('https://schema.org/PreOrder')).toBe('preorder');
    expect(availabilityOf('In stock')).toBe('in_stock');
    expect(availabilityOf(undefined, null)).toBe('unknown');
  });
});
