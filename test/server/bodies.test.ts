/** Hostile request bodies and connections answer in the contract's shape, never 500 or a silent close. */
import { connect } from 'node:net';
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

  it('a path with broken percent-encoding is 400 in the contract shape, on the API and the dashboard', async () => {
    for (const path of ['/%', '/v1/scrape%E0%A4%A', '/monitors/%']) {
      const res = await fetch(`${svc.url}${path}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: 'invalid_request',
        detail: expect.stringContaining('percent-encoding'),
      });
    }
  });
});

/** A raw connection to the service: what it has received, and when the server closed it. */
function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (received += d));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed, connected, received: () => received };
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

describe('slow requests', () => {
  let svc: TestService;
  let key: string;
  beforeAll(async () => {
    svc = await startTestService('sqlite', { TRAWL_REQUEST_TIMEOUT_MS: '1000' });
    key = (await svc.newKey()).key;
  });
  afterAll(async () => svc?.stop());

  it('a body that trickles in is cut off with 408 in the contract shape', async () => {
    const c = rawConnection(svc.url);
    await c.connected;
    c.socket.write(
      `POST /v1/scrape HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    // A byte each 100 ms: the 999 the body still owes would take 100 s, the server's limit is 1 s.
    let sent = 1;
    const timer = setInterval(() => {
      if (!c.socket.writable) return;
      c.socket.write(' ');
      sent++;
    }, 100);
    const raw = await c.closed;
    clearInterval(timer);
    expect(sent).toBeLessThan(1000);
    expect(statusOf(raw)).toBe(408);
    expect(bodyOf(raw)).toEqual({ error: 'timeout', detail: 'the request did not arrive in time; send it again' });
  });

  it('headers that trickle in are cut off with 408', async () => {
    const c = rawConnection(svc.url);
    await c.connected;
    c.socket.write('GET /healthz HTTP/1.1\r\n');
    const timer = setInterval(() => c.socket.writable && c.socket.write('X-A: b\r\n'), 100);
    const raw = await c.closed;
    clearInterval(timer);
    expect(statusOf(raw)).toBe(408);
  });

  it('a request that arrives in time is served', async () => {
    const res = await fetch(`${svc.url}/healthz`);
    expect(res.status).toBe(200);
  });
});

describe('connections per client address', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite', { TRAWL_MAX_CONNECTIONS_PER_IP: '3' });
  });
  afterAll(async () => svc?.stop());

  it('one over the cap gets 429 rate_limited with Retry-After and is closed; a freed slot serves again', async () => {
    const held = [rawConnection(svc.url), rawConnection(svc.url), rawConnection(svc.url)];
    await Promise.all(held.map((c) => c.connected));
    const over = rawConnection(svc.url);
    await over.connected;
    over.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const raw = await over.closed;
    expect(statusOf(raw)).toBe(429);
    expect(raw).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(bodyOf(raw)).toEqual({ error: 'rate_limited', retry_after: 1 });

    held[0].socket.destroy();
    await held[0].closed;
    await new Promise((r) => setTimeout(r, 50));
    const again = rawConnection(svc.url);
    await again.connected;
    again.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const ok = await again.closed;
    expect(statusOf(ok)).toBe(200);
    for (const c of held) c.socket.destroy();
  });
});

describe('empty JSON bodies', () => {
  let svc: TestService;
  let key: string;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
    key = (await svc.newKey(5)).key;
  });
  afterAll(async () => svc?.stop());

  /** As curl -H 'Content-Type: application/json' and many SDKs send a body-less request. */
  const bare = (method: string, path: string, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      ...(method === 'GET' ? {} : { body: '' }),
    });

  it('a body-less route sent Content-Type: application/json and no body answers as without it', async () => {
    const job = await svc.post('/v1/batch/scrape', { urls: ['http://127.0.0.1:9/a'] }, key);
    expect(job.status).toBe(202);
    const id = ((await job.json()) as any).job.job_id as string;
    const cancelled = await bare('DELETE', `/v1/jobs/${id}`);
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as any).job.job_id).toBe(id);
    const got = await bare('GET', `/v1/jobs/${id}`);
    expect(got.status).toBe(200);
    for (const path of ['/v1/monitors/mon_00000000000000000000', '/v1/jobs/job_00000000000000000000']) {
      const res = await bare('DELETE', path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as any).error).toBe('not_found');
    }
    // Whitespace only is no body too.
    const blank = await fetch(`${svc.url}/v1/jobs/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json; charset=utf-8' },
      body: ' \r\n',
    });
    expect(blank.status).toBe(200);
    const fc = await bare('DELETE', '/firecrawl/v1/crawl/job_00000000000000000000');
    expect(fc.status).toBe(404);
    expect(((await fc.json()) as any).code).toBe('not_found');
  });

  it('a POST with an empty body is 400 naming the body; a malformed one is 400 invalid JSON', async () => {
    const empty = await svc.post('/v1/scrape', '', key);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({
      error: 'invalid_request',
      detail: 'body: must be a JSON object (the body was empty)',
    });
    const blank = await svc.post('/v1/batch/scrape', ' \n', key);
    expect(blank.status).toBe(400);
    expect(await blank.json()).toEqual({
      error: 'invalid_request',
      detail: 'body: must be a JSON object (the body was empty)',
    });
    const broken = await svc.post('/v1/scrape', '{"url":', key);
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({
      error: 'invalid_request',
      detail: expect.stringMatching(/^body: is not valid JSON/),
    });
    const brokenDelete = await fetch(`${svc.url}/v1/jobs/job_00000000000000000000`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(brokenDelete.status).toBe(400);
  });
});
