/** Hostile request bodies and connections answer in the contract's shape, never 500 or a silent close. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonTooDeepAt } from '../../src/server/validation.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('jsonTooDeepAt', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonTooDeepAt('[[1]]', 2)).toBeUndefined();
    expect(jsonTooDeepAt('[[[1]]]', 2)).toBe(3);
    expect(jsonTooDeepAt('{"a":{"b":{}}}', 2)).toBe(11);
    expect(jsonTooDeepAt('{"a":"[[[[{{{{\\"[[["}', 2)).toBeUndefined();
  });
});

describe('deeply nested JSON bodies', () => {
  let svc: TestService;
  let key: string;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
    key = (await svc.newKey()).key;
  });
  afterAll(async () => svc?.stop());

  const bodies: Array<[string, string]> = [
    ['arrays 20,000 deep', '['.repeat(20_000) + ']'.repeat(20_000)],
    ['objects 20,000 deep', '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000)],
    ['a field 20,000 deep', '{"url":' + '['.repeat(20_000) + ']'.repeat(20_000) + '}'],
  ];
  for (const path of ['/v1/scrape', '/v1/monitors']) {
    for (const [name, body] of bodies) {
      it(`${path}: ${name} is 400 invalid_request naming the limit`, async () => {
        const res = await svc.post(path, body, key);
        expect(res.status).toBe(400);
        const json = await res.json();
        expect(json.error).toBe('invalid_request');
        expect(json.detail).toMatch(new RegExp(`^body: nested more than ${MAX_JSON_DEPTH} levels deep`));
      });
    }
  }

  it('a body at the limit is parsed and validated as usual', async () => {
    const body = '{"url":' + '['.repeat(MAX_JSON_DEPTH - 1) + ']'.repeat(MAX_JSON_DEPTH - 1) + '}';
    const res = await svc.post('/v1/scrape', body, key);
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toBe('url: must be an http or https URL');
  });
});
