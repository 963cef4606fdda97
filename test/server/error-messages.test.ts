/** Errors that say what to do (issue 43): every fault of a body at once, and "did you mean". */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didYouMean, parseBody } from '../../src/contract/validation.js';
import { ExtractBody, MetaAdsBody, ScrapeBody } from '../../src/contract/schemas.js';
import { TrawlError } from '../../src/errors.js';
import { startTestService, type TestService } from '../helpers/service.js';

const faultOf = (schema: Parameters<typeof parseBody>[0], body: unknown) => {
  try {
    parseBody(schema, body);
  } catch (e) {
    expect(e).toBeInstanceOf(TrawlError);
    return (e as TrawlError).toBody() as { error: string; detail: string; errors: { field: string; detail: string }[] };
  }
  throw new Error('expected a fault');
};

describe('validation faults', () => {
  it('lists every bad field: the first in detail, all in errors', () => {
    const body = faultOf(MetaAdsBody, { advertiser: 'Nike!', country: 'usa', limit: 0 });
    expect(body.error).toBe('invalid_request');
    expect(body.detail).toMatch(/^advertiser: must be a page handle/);
    expect(body.errors).toEqual([
      { field: 'advertiser', detail: expect.stringMatching(/^advertiser: must be a page handle/) },
      { field: 'country', detail: expect.stringMatching(/^country: must be an upper-case ISO 3166-1 alpha-2 code/) },
      { field: 'limit', detail: 'limit: must be an integer from 1 to 500' },
    ]);
  });

  it('lists the faults in the order the body sent its fields, not the schema order', () => {
    const body = faultOf(MetaAdsBody, { limit: 0, country: 'usa', advertiser: 'Nike!' });
    expect(body.errors.map((e) => e.field)).toEqual(['limit', 'country', 'advertiser']);
    expect(body.detail).toBe(body.errors[0].detail);
    // Nested and array fields sit where their parent was sent; unknown keys too.
    const nested = faultOf(ScrapeBody, {
      timeoutMs: 1,
      formats: ['markdown', 'nope'],
      pdf: { max_pages: 0 },
      url: 'ftp://x/',
    });
    expect(nested.errors.map((e) => e.field)).toEqual(['timeoutMs', 'formats[1]', 'pdf.max_pages', 'url']);
    expect(nested.detail).toBe('timeoutMs: unknown field; did you mean timeout_ms?');
    // A required field not sent comes after every field that was.
    const missing = faultOf(MetaAdsBody, { limit: 0, country: 'usa' });
    expect(missing.errors.map((e) => e.field)).toEqual(['limit', 'country', 'advertiser']);
    expect(missing.errors[2].detail).toBe('advertiser: is required');
    // "url" sent where "urls" is expected: the unknown key first, the missing one named beside it.
    const urls = faultOf(ExtractBody, { url: 'https://example.com/', schema: { a: 'string' } });
    expect(urls.errors.map((e) => e.field)).toEqual(['url', 'urls']);
    expect(urls.detail).toMatch(/^url: unknown field; did you mean urls\?; urls: is required$/);
  });

  it('has no errors array for a single fault', () => {
    const body = faultOf(ScrapeBody, { url: 'https://example.com/', timeout_ms: 5 });
    expect(body).toEqual({ error: 'invalid_request', detail: 'timeout_ms: must be an integer from 1000 to 120000' });
  });

  it('suggests the field meant, for camelCase and typos', () => {
    expect(faultOf(ScrapeBody, { url: 'https://example.com/', onlyMainContent: false }).detail).toBe(
      'onlyMainContent: unknown field; did you mean only_main_content?',
    );
    expect(faultOf(ScrapeBody, { url: 'https://example.com/', formts: ['markdown'] }).detail).toBe(
      'formts: unknown field; did you mean formats?',
    );
    expect(faultOf(ScrapeBody, { url: 'https://example.com/', waitFor: 100, timeoutMs: 2000 }).detail).toBe(
      'waitFor: unknown field; did you mean wait_for?; timeoutMs: unknown field; did you mean timeout_ms?',
    );
    // Nested objects know their own keys.
    expect(faultOf(ScrapeBody, { url: 'https://example.com/', pdf: { maxPages: 3 } }).detail).toBe(
      'pdf.maxPages: unknown field; did you mean pdf.max_pages?',
    );
    // Nothing near: no suggestion.
    expect(faultOf(ScrapeBody, { url: 'https://example.com/', banana: 1 }).detail).toBe('banana: unknown field');
  });

  it('did-you-mean reads camelCase, kebab-case and small typos only', () => {
    const known = ['only_main_content', 'formats', 'url', 'timeout_ms'];
    expect(didYouMean('onlyMainContent', known)).toBe('only_main_content');
    expect(didYouMean('only-main-content', known)).toBe('only_main_content');
    expect(didYouMean('fromats', known)).toBe('formats');
    expect(didYouMean('uri', known)).toBe('url');
    expect(didYouMean('query', known)).toBeUndefined();
  });
});

describe('through the service', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('answers three bad fields of meta-ads in one 400, charging nothing', async () => {
    const { key, accountId } = await svc.newKey(3);
    const res = await svc.post('/v1/meta-ads', { advertiser: 'Nike!', country: 'usa', limit: 0 }, key);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.detail).toMatch(/^advertiser: /);
    expect(body.errors.map((e: { field: string }) => e.field)).toEqual(['advertiser', 'country', 'limit']);
    expect(await svc.credits(accountId)).toBe(3);
  });

  it('suggests only_main_content for onlyMainContent', async () => {
    const { key } = await svc.newKey(3);
    const res = await svc.post('/v1/scrape', { url: 'https://example.com/', onlyMainContent: true }, key);
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toBe('onlyMainContent: unknown field; did you mean only_main_content?');
  });
});
