/**
 * POST /v1/meta-ads through the real service against a local stand-in for Meta (helpers/
 * fake-meta.ts) answering with the shared fixtures' real formats: validation; the web library
 * (handle → page id, tokens read from the results page, first batch, pagination to `limit`,
 * collation, empty result, rate limit then success, rate limit to the end, login wall, not
 * found, a missing doc_id); the Graph API with cursor paging and the token kept out of answers.
 * No failure costs a credit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMeta, type FakeMeta } from '../helpers/fake-meta.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SHARED = join(import.meta.dirname, '../../../shared/fixtures/meta-ads');
const have = existsSync(join(SHARED, 'web-graphql-search/search_page1.json'));
const load = (p: string) => JSON.parse(readFileSync(join(SHARED, p), 'utf8'));

describe.skipIf(!have)('POST /v1/meta-ads (shared fixtures in ../shared/fixtures/meta-ads)', () => {
  let meta: FakeMeta;
  let svc: TestService;
  let graphSvc: TestService;
  let page1: any;

  beforeAll(async () => {
    page1 = load('web-graphql-search/search_page1.json').data;
    // Page 2: the same records under new ids (the fixture has one page), ending the listing.
    const results = page1.ad_library_main.search_results_connection.edges[0].node.collated_results;
    const page2 = structuredClone(page1);
    const conn2 = page2.ad_library_main.search_results_connection;
    conn2.edges[0].node.collated_results = results.map((r: any, i: number) => ({
      ...r,
      ad_archive_id: `99900000000000${i}`,
      is_active: false,
      collation_count: null,
    }));
    conn2.page_info = { end_cursor: null, has_next_page: false };
    meta = await startFakeMeta({
      pages: {
        shaktimats: { id: '775991435791863', name: 'Shakti Mat' },
        quietbrand: { id: '111', name: 'Quiet Brand' },
      },
      firstBatch: page1,
      nextPages: { [page1.ad_library_main.search_results_connection.page_info.end_cursor]: page2 },
      rateLimited: load('web-graphql-search/rate_limited_1675004.json'),
      graphRecords: load('graph-api-ads_archive/ambanum-2019-eu-ads.part-shared.json'),
      graphPageSize: 6,
      loginWalled: ['walled'],
    });
    const env = { META_AD_LIBRARY_BASE_URL: meta.url, META_GRAPH_BASE_URL: meta.url, TRAWL_META_RETRY_BASE_MS: '50' };
    svc = await startTestService('sqlite', env);
    graphSvc = await startTestService('sqlite', { ...env, META_ACCESS_TOKEN: 'EAAtestsecrettoken' });
  });
  afterAll(async () => {
    await svc?.stop();
    await graphSvc?.stop();
    await meta?.close();
  });

  const ask = async (s: TestService, key: string, body: unknown) => {
    const res = await s.post('/v1/meta-ads', body, key);
    return { status: res.status, body: (await res.json()) as any };
  };

  it('validates every field and names it, charging nothing', async () => {
    const { key, accountId } = await svc.newKey(5);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ country: 'US' }, /^advertiser: is required/],
      [{ advertiser: 'Shakti Mats', country: 'US' }, /^advertiser: must be a page handle/],
      [{ advertiser: '-x', country: 'US' }, /^advertiser: /],
      [{ advertiser: 'a'.repeat(65), country: 'US' }, /^advertiser: /],
      [{ advertiser: 'shaktimats' }, /^country: is required/],
      [{ advertiser: 'shaktimats', country: 'us' }, /^country: must be an upper-case ISO 3166-1 alpha-2 code/],
      [{ advertiser: 'shaktimats', country: 'USA' }, /^country: /],
      [
        { advertiser: 'shaktimats', country: 'US', active_status: 'paused' },
        /^active_status: must be one of active, inactive, all/,
      ],
      [
        { advertiser: 'shaktimats', country: 'US', platforms: ['tiktok'] },
        /^platforms\[0\]: must be one of facebook, instagram/,
      ],
      [{ advertiser: 'shaktimats', country: 'US', platforms: [] }, /^platforms: must list at least one/],
      [
        { advertiser: 'shaktimats', country: 'US', platforms: ['facebook', 'facebook'] },
        /^platforms: must not list a platform twice/,
      ],
      [{ advertiser: 'shaktimats', country: 'US', limit: 0 }, /^limit: must be an integer from 1 to 500/],
      [{ advertiser: 'shaktimats', country: 'US', limit: 501 }, /^limit: must be an integer from 1 to 500/],
    ];
    for (const [body, detail] of cases) {
      const r = await ask(svc, key, body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error: 'invalid_request' });
      expect(r.body.detail).toMatch(detail);
    }
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('resolves the handle, reads the first batch and pages on with the tokens of the results page, to the limit', async () => {
    const { key, accountId } = await svc.newKey(5);
    const before = meta.graphqlCalls.length;
    const r = await ask(svc, key, { advertiser: 'shaktimats', country: 'US', limit: 5 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'ok',
      advertiser: 'shaktimats',
      country: 'US',
      page: { id: '775991435791863', name: 'Shakti Mat', url: `${meta.url}/shaktimats` },
      source: 'web',
    });
    expect(r.body.ads).toHaveLength(5);
    const first = r.body.ads[0];
    expect(first).toEqual({
      id: '1484741342809479',
      status: 'active',
      platforms: ['facebook', 'instagram', 'audience_network', 'messenger'],
      started_at: '2025-11-13T08:00:00.000Z',
      ended_at: null,
      body: 'Sick of feeling sore? Turn a little pinch into hours of pleasure with the help of a few thousand spikes.',
      title: 'The 20-minute antidote to everyday stress.',
      link_url: 'http://shaktimat.com/',
      cta: 'Shop now',
      media: [{ type: 'video', url: expect.stringMatching(/^https:\/\/video\./) }],
      snapshot_url: `${meta.url}/ads/library/?id=1484741342809479`,
      collation_count: 2,
    });
    // Page two: inactive ads have ended.
    expect(r.body.ads[3]).toMatchObject({ id: '999000000000000', status: 'inactive', collation_count: 1 });
    expect(r.body.ads[3].ended_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const call = meta.graphqlCalls[before];
    expect(call).toMatchObject({ lsd: 'AVq0fixtureLsd', docId: '9241757445859501' });
    expect(call.variables).toMatchObject({
      cursor: 'AQHRfixturecursor1',
      viewAllPageID: '775991435791863',
      countries: ['US'],
      activeStatus: 'ACTIVE',
    });
    expect(r.body.total).toBe(6); // page two ended the listing: all six distinct ads were seen
    expect(await svc.credits(accountId)).toBe(4);
    // Read to the end: total is the count of distinct ads.
    const all = await ask(svc, key, { advertiser: 'shaktimats', country: 'US', limit: 500 });
    expect(all.body.ads).toHaveLength(6);
    expect(all.body.total).toBe(6);
    // Limit 2: the first batch alone, no GraphQL call.
    const calls = meta.graphqlCalls.length;
    const two = await ask(svc, key, { advertiser: 'shaktimats', country: 'US', limit: 2 });
    expect(two.body.ads).toHaveLength(2);
    expect(two.body.total).toBeNull(); // the listing goes on and the library reported no count
    expect(meta.graphqlCalls.length).toBe(calls);
  });

  it('waits out a rate limit and goes on; gives up with a clear 502 when it lasts, charging nothing', async () => {
    const { key, accountId } = await svc.newKey(5);
    meta.rateLimitNext(2);
    const ok = await ask(svc, key, { advertiser: 'shaktimats', country: 'US', limit: 6 });
    expect(ok.status).toBe(200);
    expect(ok.body.ads).toHaveLength(6);
    meta.rateLimitNext(1000);
    const gave = await ask(svc, key, { advertiser: 'shaktimats', country: 'US', limit: 6, timeout_ms: 2000 });
    expect(gave.status).toBe(502);
    expect(gave.body.error).toBe('fetch_failed');
    expect(gave.body.detail).toMatch(/rate-limited.*1675004/);
    meta.rateLimitNext(0);
    expect(await svc.credits(accountId)).toBe(4);
  });

  it('answers 404 for an unknown advertiser and 502 blocked for a login wall, without charge', async () => {
    const { key, accountId } = await svc.newKey(5);
    const nf = await ask(svc, key, { advertiser: 'nosuchpage', country: 'US' });
    expect(nf.status).toBe(404);
    expect(nf.body).toMatchObject({ error: 'not_found' });
    expect(nf.body.detail).toMatch(/nosuchpage/);
    const wall = await ask(svc, key, { advertiser: 'walled', country: 'US' });
    expect(wall.status).toBe(502);
    expect(wall.body.error).toBe('blocked');
    expect(await svc.credits(accountId)).toBe(5);
  });

  it('answers an empty listing as no ads', async () => {
    const empty = await startFakeMeta({
      pages: { quietbrand: { id: '111', name: 'Quiet Brand' } },
      firstBatch: load('web-graphql-search/search_empty.json').data,
      nextPages: {},
    });
    const s = await startTestService('sqlite', { META_AD_LIBRARY_BASE_URL: empty.url });
    try {
      const { key } = await s.newKey(5);
      const r = await ask(s, key, { advertiser: 'quietbrand', country: 'ALL', active_status: 'all' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ads: [], total: 0, page: { id: '111' } });
    } finally {
      await s.stop();
      await empty.close();
    }
  });

  it("finds an advertiser through the library's search when the handle is not a page's own", async () => {
    const noPages = await startFakeMeta({ pages: {}, firstBatch: page1, nextPages: {} });
    const s = await startTestService('sqlite', { META_AD_LIBRARY_BASE_URL: noPages.url });
    try {
      const { key } = await s.newKey(5);
      const r = await ask(s, key, { advertiser: 'shaktimats', country: 'US', limit: 2 });
      expect(r.status).toBe(200);
      expect(r.body.page).toMatchObject({ id: '775991435791863', name: 'Shakti Mat' });
      expect((await ask(s, key, { advertiser: 'someoneelse', country: 'US' })).status).toBe(404);
    } finally {
      await s.stop();
      await noPages.close();
    }
  });

  it('names the missing token when the results page has no doc_id for the next page', async () => {
    const broken = await startFakeMeta({
      pages: { shaktimats: { id: '775991435791863', name: 'Shakti Mat' } },
      firstBatch: page1,
      nextPages: {},
      withoutDocId: true,
    });
    const s = await startTestService('sqlite', { META_AD_LIBRARY_BASE_URL: broken.url });
    try {
      const { key, accountId } = await s.newKey(5);
      const r = await ask(s, key, { advertiser: 'shaktimats', country: 'US', limit: 10 });
      expect(r.status).toBe(502);
      expect(r.body).toMatchObject({ error: 'fetch_failed' });
      expect(r.body.detail).toMatch(/doc_id for AdLibrarySearchPaginationQuery/);
      expect(await s.credits(accountId)).toBe(5);
    } finally {
      await s.stop();
      await broken.close();
    }
  });

  it("a monitor on an advertiser's Ad Library URL watches their ads: total and ad_ids", async () => {
    const { key } = await svc.newKey(5);
    const url = `${meta.url}/ads/library/?active_status=all&ad_type=all&country=US&view_all_page_id=775991435791863`;
    const mixed = await svc.post(
      '/v1/monitors',
      { url, interval: '1d', watch: ['total', 'title'], webhook: 'http://127.0.0.1:9/hook' },
      key,
    );
    expect(mixed.status).toBe(400);
    expect(((await mixed.json()) as any).detail).toMatch(
      /^watch: total and ad_ids watch the advertiser's ads and cannot be mixed with page fields \(title\)/,
    );
    const created = (await (
      await svc.post(
        '/v1/monitors',
        { url, interval: '1d', watch: ['total', 'ad_ids'], webhook: 'http://127.0.0.1:9/hook' },
        key,
      )
    ).json()) as any;
    const id = created.monitor.monitor_id;
    await fetch(`${svc.url}/v1/monitors/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"state":"paused"}',
    });
    const run = ((await (await svc.post(`/v1/monitors/${id}/run`, {}, key)).json()) as any).run;
    expect(run.status).toBe('succeeded');
    expect(run.values.total).toBe(6);
    expect(run.values.ad_ids).toEqual([
      '1484741342809479',
      '1503864457761633',
      '1904115526929549',
      '999000000000000',
      '999000000000001',
      '999000000000002',
    ]);
    // The page id came from the URL: no handle lookup was needed.
    expect(meta.graphqlCalls.at(-1)!.variables.viewAllPageID).toBe('775991435791863');
  });

  it('uses the Graph API with cursor paging when META_ACCESS_TOKEN is set, and never returns the token', async () => {
    const { key } = await graphSvc.newKey(5);
    const before = meta.graphCalls.length;
    const r = await ask(graphSvc, key, { advertiser: 'shaktimats', country: 'DE', active_status: 'all', limit: 500 });
    expect(r.status).toBe(200);
    expect(r.body.source).toBe('graph_api');
    expect(r.body.page).toEqual({
      id: '775991435791863',
      name: 'Shakti Mat',
      url: 'https://www.facebook.com/shaktimats',
    });
    const records = load('graph-api-ads_archive/ambanum-2019-eu-ads.part-shared.json');
    expect(r.body.ads).toHaveLength(records.length);
    expect(r.body.total).toBe(records.length);
    expect(JSON.stringify(r.body)).not.toMatch(/access_token|EAAtestsecrettoken/);
    const a = r.body.ads[0];
    expect(a).toMatchObject({
      id: '408322803338923',
      status: 'inactive',
      started_at: '2019-05-13T15:30:13.000Z',
      ended_at: '2019-05-16T15:30:04.000Z',
      title: records[0].ad_creative_link_title ?? null,
      snapshot_url: 'https://www.facebook.com/ads/archive/render_ad/?id=408322803338923',
      impressions: { lower: 5000, upper: 9999 },
    });
    expect(a.body).toMatch(/^When we bring our full European potential together/);
    const calls = meta.graphCalls.slice(before);
    const archive = calls.filter((u) => u.pathname.endsWith('/ads_archive'));
    expect(archive.length).toBe(Math.ceil(records.length / 6));
    expect(archive[0].searchParams.get('search_page_ids')).toBe('["775991435791863"]');
    expect(archive[0].searchParams.get('ad_reached_countries')).toBe('["DE"]');
    expect(archive[0].searchParams.get('ad_active_status')).toBe('ALL');
    expect(archive[1].searchParams.get('after')).toBe('6');
    expect(calls.every((u) => u.searchParams.get('access_token') === 'EAAtestsecrettoken')).toBe(true);
    const nf = await ask(graphSvc, key, { advertiser: 'nosuchpage', country: 'US' });
    expect(nf.status).toBe(404);
  });
});

/** The same paths on fixture data written for these tests (test/fixtures/meta-ads): runs where the shared fixtures are absent. */
describe('POST /v1/meta-ads on own fixtures', () => {
  const OWN = join(import.meta.dirname, '../fixtures/meta-ads');
  const own = (p: string) => JSON.parse(readFileSync(join(OWN, p), 'utf8'));

  it('maps web results (collation, cards, placeholders) and Graph API records (plural and singular fields, token stripped)', async () => {
    const meta = await startFakeMeta({
      pages: { abyssgear: { id: '4242', name: 'Abyss Gear' } },
      firstBatch: own('search_page.json').data,
      nextPages: {},
      graphRecords: own('ads_archive.json'),
    });
    const web = await startTestService('sqlite', { META_AD_LIBRARY_BASE_URL: meta.url });
    const graph = await startTestService('sqlite', {
      META_AD_LIBRARY_BASE_URL: meta.url,
      META_GRAPH_BASE_URL: meta.url,
      META_ACCESS_TOKEN: 'EAAownsecret',
    });
    try {
      const { key } = await web.newKey(5);
      const r = (await (
        await web.post('/v1/meta-ads', { advertiser: 'abyssgear', country: 'US', active_status: 'all' }, key)
      ).json()) as any;
      expect(r.total).toBe(2);
      expect(r.ads[0]).toMatchObject({
        id: '2000000000000001',
        status: 'active',
        collation_count: 3,
        body: 'Lamps for the deep sea.',
        title: 'Deep Sea Lamp',
        cta: 'Shop now',
        ended_at: null,
        media: [{ type: 'image', url: 'https://scontent.example/lamp.jpg' }],
      });
      // A dynamic-creative placeholder is not text: the card's own text is used.
      expect(r.ads[1]).toMatchObject({
        id: '2000000000000002',
        status: 'inactive',
        body: 'Kayaks that float.',
        title: 'Abyss Kayak',
        link_url: 'https://abyss.example/kayak',
        cta: 'Learn more',
        platforms: ['instagram'],
        ended_at: '2025-10-20T22:40:00.000Z',
        media: [{ type: 'image', url: 'https://scontent.example/kayak.jpg' }],
      });
      // Only Instagram asked: both ads ran there; only Facebook asked: the Instagram-only one is left out.
      const fb = (await (
        await web.post(
          '/v1/meta-ads',
          { advertiser: 'abyssgear', country: 'US', active_status: 'all', platforms: ['facebook'] },
          key,
        )
      ).json()) as any;
      expect(fb.ads.map((a: any) => a.id)).toEqual(['2000000000000001']);

      const g = await graph.newKey(5);
      const body = (await (
        await graph.post('/v1/meta-ads', { advertiser: 'abyssgear', country: 'US', active_status: 'all' }, g.key)
      ).json()) as any;
      expect(JSON.stringify(body)).not.toMatch(/SECRET|EAAownsecret|access_token/);
      expect(body.ads).toEqual([
        expect.objectContaining({
          id: '3000000000000001',
          status: 'active',
          body: 'Dive deeper.',
          title: 'Abyss Gear',
          platforms: ['facebook', 'instagram'],
          spend: { lower: 100, upper: 199, currency: 'USD' },
          impressions: { lower: 1000, upper: 4999 },
          snapshot_url: 'https://www.facebook.com/ads/archive/render_ad/?id=3000000000000001',
        }),
        expect.objectContaining({
          id: '3000000000000002',
          status: 'inactive',
          body: 'An older ad.',
          title: 'Old title',
          started_at: '2019-05-13T15:30:13.000Z',
          ended_at: '2019-05-16T15:30:04.000Z',
        }),
        expect.objectContaining({ id: '3000000000000003', body: null, title: null, media: [], link_url: null }),
      ]);
    } finally {
      await web.stop();
      await graph.stop();
      await meta.close();
    }
  });
});
