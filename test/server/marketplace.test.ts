/**
 * POST /v1/marketplace through the real service: validation (ids, hosts, regions), pages served
 * under their real hosts with TRAWL_RESOLVE, bot walls (502 blocked, no charge), basic vs rich,
 * and the real Amazon/eBay pages of the shared fixtures when they are present.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SHARED = join(import.meta.dirname, '../../../shared/fixtures/marketplace');
const OWN = join(import.meta.dirname, '../fixtures/marketplace');
const REAL = {
  amazonUs: join(SHARED, 'amazon_us/zyte-peb-0094967f37c64740/page.html'),
  ebayUs: join(SHARED, 'ebay_us/zyte-peb-21e72a8e6d249209/page.html'),
};
const ROBOT_CHECK = `<html><head><title>Robot Check</title></head><body><p>Type the characters you see in this image:</p><form action="/errors/validateCaptcha"></form></body></html>`;

describe('POST /v1/marketplace', () => {
  let svc: TestService;
  let site: FixtureServer;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/dp/B0TESTDE01': readFileSync(join(OWN, 'amazon-de-deal.html'), 'utf8'),
      '/s': readFileSync(join(OWN, 'amazon-search.html'), 'utf8'),
      '/dp/B0ROBOT001': (_q, res) => res.writeHead(503, { 'content-type': 'text/html' }).end(ROBOT_CHECK),
      '/dp/B07FW264WL': existsSync(REAL.amazonUs) ? readFileSync(REAL.amazonUs, 'utf8') : 'missing',
      '/itm/302474151804': existsSync(REAL.ebayUs) ? readFileSync(REAL.ebayUs, 'utf8') : 'missing',
    });
    const hosts = ['www.amazon.de', 'www.amazon.com', 'www.ebay.com'];
    svc = await startTestService('sqlite', {
      TRAWL_RESOLVE: hosts.map((h) => `${h}=127.0.0.1:${site.port}`).join(','),
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await site?.close();
  });

  it('validates marketplace, url and mode, naming the field, and charges nothing', async () => {
    const { key, accountId } = await svc.newKey(5);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: 'http://www.amazon.de/dp/B0TESTDE01' }, /^marketplace: is required/],
      [
        { marketplace: 'amazon_xx', url: 'http://www.amazon.de/dp/B0TESTDE01' },
        /^marketplace: "amazon_xx" is not a marketplace id; use one of amazon_us, .*etsy_es.*bestbuy_ca$/,
      ],
      [
        { marketplace: 'amazon_us', url: 'http://www.amazon.de/dp/B0TESTDE01' },
        /^url: www\.amazon\.de\/dp\/B0TESTDE01 is not a page of marketplace amazon_us/,
      ],
      [
        { marketplace: 'ebay_uk', url: 'https://www.ebay.com/itm/1234567890' },
        /^url: .* is not a page of marketplace ebay_uk/,
      ],
      [{ marketplace: 'etsy_de', url: 'https://www.etsy.com/fr/listing/1/x' }, /^url: .* etsy_de/],
      [{ marketplace: 'amazon_de', url: 'ftp://www.amazon.de/x' }, /^url: /],
      [
        { marketplace: 'amazon_de', url: 'http://www.amazon.de/dp/B0TESTDE01', mode: 'full' },
        /^mode: must be one of basic, rich/,
      ],
    ];
    for (const [body, detail] of cases) {
      const res = await svc.post('/v1/marketplace', body, key);
      const b = (await res.json()) as Record<string, string>;
      expect({ body, status: res.status, error: b.error }).toEqual({ body, status: 400, error: 'invalid_request' });
      expect(b.detail).toMatch(detail);
    }
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('answers the rich record (with sources) and charges one credit', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/marketplace',
      { marketplace: 'amazon_de', url: 'http://www.amazon.de/dp/B0TESTDE01' },
      key,
    );
    expect(res.status).toBe(200);
    const b = (await res.json()) as any;
    expect(b.status).toBe('ok');
    expect(b.marketplace).toBe('amazon_de');
    expect(b.product).toMatchObject({
      id: 'B0TESTDE01',
      price: 1049.99,
      currency: 'EUR',
      availability: 'limited',
      in_stock: true,
      list_price: 1299,
      discount_percent: 19,
    });
    for (const k of [
      'brand',
      'rating',
      'review_count',
      'images',
      'description',
      'features',
      'specifications',
      'categories',
      'seller',
      'variants',
      'gtin',
      'mpn',
      'sku',
      'model',
      'condition',
      'shipping',
    ])
      expect(b.product).toHaveProperty(k);
    expect(b.sources.price).toMatch(/^amazon:/);
    expect(await svc.credits(accountId)).toBe(4);
    const basic = (await (
      await svc.post(
        '/v1/marketplace',
        { marketplace: 'amazon_de', url: 'http://www.amazon.de/dp/B0TESTDE01', mode: 'basic' },
        key,
      )
    ).json()) as any;
    expect(Object.keys(basic.product).sort()).toEqual([
      'availability',
      'currency',
      'id',
      'in_stock',
      'price',
      'title',
      'url',
    ]);
  });

  it('answers a search-results URL with its products (beyond the contract)', async () => {
    const { key } = await svc.newKey(5);
    const b = (await (
      await svc.post(
        '/v1/marketplace',
        { marketplace: 'amazon_us', url: 'http://www.amazon.com/s?k=deep+sea+lamp' },
        key,
      )
    ).json()) as any;
    expect(b.product).toBeUndefined();
    expect(b.products.map((p: any) => p.id)).toEqual(['B0SEARCH01', 'B0SEARCH02', 'B0SEARCH03']);
    expect(b.sources.products).toBe('amazon:result cards');
  });

  it('answers a bot wall with 502 blocked and charges nothing', async () => {
    const { key, accountId } = await svc.newKey(5);
    const res = await svc.post(
      '/v1/marketplace',
      { marketplace: 'amazon_us', url: 'http://www.amazon.com/dp/B0ROBOT001' },
      key,
    );
    expect(res.status).toBe(502);
    const b = (await res.json()) as Record<string, string>;
    expect(b.error).toBe('blocked');
    expect(b.detail).toMatch(/Amazon robot check/);
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('a monitor on a marketplace URL watches product fields through the marketplace reader', async () => {
    const { key } = await svc.newKey(5);
    const created = (await (
      await svc.post(
        '/v1/monitors',
        {
          url: 'http://www.amazon.de/dp/B0TESTDE01',
          interval: '1d',
          watch: ['price', 'in_stock', 'availability', 'rating'],
          webhook: 'http://127.0.0.1:9/hook',
        },
        key,
      )
    ).json()) as any;
    expect(created.monitor.marketplace).toBe('amazon_de');
    const id = created.monitor.monitor_id;
    await fetch(`${svc.url}/v1/monitors/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"state":"paused"}',
    });
    const run = (await (await svc.post(`/v1/monitors/${id}/run`, {}, key)).json()) as any;
    expect(run.run).toMatchObject({
      status: 'succeeded',
      values: { price: 1049.99, in_stock: true, availability: 'limited', rating: 4.6 },
    });
  });

  it.skipIf(!existsSync(REAL.amazonUs))('reads the real out-of-stock Amazon.com page (shared fixture)', async () => {
    const { key } = await svc.newKey(5);
    const b = (await (
      await svc.post('/v1/marketplace', { marketplace: 'amazon_us', url: 'http://www.amazon.com/dp/B07FW264WL' }, key)
    ).json()) as any;
    expect(b.product).toMatchObject({
      id: 'B07FW264WL',
      in_stock: false,
      availability: 'out_of_stock',
      brand: '365 by Whole Foods Market',
      gtin: '099482467999',
    });
    expect(b.product.title).toMatch(/365 by Whole Foods Market/);
  });

  it.skipIf(!existsSync(REAL.ebayUs))(
    'reads the real eBay item page (shared fixture): price, currency shown, item number, in stock',
    async () => {
      const { key } = await svc.newKey(5);
      const b = (await (
        await svc.post('/v1/marketplace', { marketplace: 'ebay_us', url: 'http://www.ebay.com/itm/302474151804' }, key)
      ).json()) as any;
      expect(b.product).toMatchObject({
        id: '302474151804',
        price: 1.99,
        currency: 'GBP',
        in_stock: true,
        mpn: 'Fake Wounds',
      });
      expect(b.product.title).toMatch(/^Halloween Zombie Scars/);
      expect(b.product.seller.name).toBe('phoenixemporium');
    },
  );
});
