/** POST /v1/crawl through the real service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startTestService, type TestService } from '../helpers/service.js';

let site: FixtureServer;
let svc: TestService;
const page = (t: string, links: string[]) =>
  `<html><head><title>${t}</title></head><body><h1>${t}</h1><p>${t} has enough words, with commas, to count as content.</p>${links.map((l) => `<a href="${l}">x</a>`).join('')}</body></html>`;

beforeAll(async () => {
  site = await startFixtureServer({
    '/': page('Home', ['/one', '/two']),
    '/one': page('One', ['/']),
    '/two': page('Two', ['/three']),
    '/three': page('Three', []),
  });
  svc = await startTestService('sqlite');
});
afterAll(async () => {
  await svc?.stop();
  await site?.close();
});

describe('POST /v1/crawl', () => {
  it('answers the contract shape and charges one credit', async () => {
    const { key, accountId } = await svc.newKey(3);
    const res = await svc.post(
      '/v1/crawl',
      { url: `${site.url}/`, max_depth: 1, limit: 10, formats: ['markdown', 'links'] },
      key,
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'ok', total: 3, truncated: false, errors: [] });
    expect(body.pages.map((p: { url: string }) => p.url)).toEqual([
      `${site.url}/`,
      `${site.url}/one`,
      `${site.url}/two`,
    ]);
    expect(body.pages[0]).toMatchObject({
      depth: 0,
      status_code: 200,
      title: 'Home',
      links: [`${site.url}/one`, `${site.url}/two`],
    });
    expect(body.pages[1].markdown).toContain('One has enough words');
    expect(await svc.credits(accountId)).toBe(2);
  });

  it('extracts json per page when a schema is given', async () => {
    const { key } = await svc.newKey(3);
    const res = await svc.post('/v1/crawl', { url: `${site.url}/two`, max_depth: 1, schema: { title: 'string' } }, key);
    const body = await res.json();
    expect(body.pages.map((p: { json: unknown }) => p.json)).toEqual([{ title: 'Two' }, { title: 'Three' }]);
  });

  it('validates bounds and answers 502 for a start page that cannot be fetched, without charge', async () => {
    const { key, accountId } = await svc.newKey(3);
    for (const [body, detail] of [
      [{ url: `${site.url}/`, max_depth: 11 }, 'max_depth: must be an integer from 0 to 10'],
      [{ url: `${site.url}/`, limit: 0 }, 'limit: must be an integer from 1 to 1000'],
      [{ url: `${site.url}/`, include_paths: '/a' }, 'include_paths: must be an array'],
      [{ url: `${site.url}/`, allow_subdomains: 'yes' }, 'allow_subdomains: must be true or false'],
    ] as const) {
      const res = await svc.post('/v1/crawl', body, key);
      expect(res.status).toBe(400);
      expect((await res.json()).detail).toContain(detail);
    }
    const res = await svc.post('/v1/crawl', { url: `${site.url}/missing` }, key);
    expect(res.status).toBe(502);
    expect((await res.json()).error).toBe('fetch_failed');
    expect(await svc.credits(accountId)).toBe(3);
  });
});
