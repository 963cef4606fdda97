/**
 * Large bodies (issue 39, finding 2): a batch body of up to 80 MiB is answered from its headers
 * when the key, the rate limit or the account's credits refuse it — before a byte of it is read —
 * and parsed and validated off the event loop otherwise, so other requests are answered while it is.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** performance.now() when the whole answer had arrived (for ordering, never for budgets). */
  at: number;
}

/** An HTTP/1.1 answer parsed from what arrived, once all of it did. */
function parseAnswer(raw: Buffer): Omit<Answer, 'at'> | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const length = Number(headers['content-length'] ?? 0);
  const body = raw.subarray(end + 4, end + 4 + length);
  if (body.length < length) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body.toString('utf8')) };
}

/** A POST whose headers go now and whose body goes when the test says (or never). */
function rawPost(base: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(base);
  const socket: Socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  let raw = Buffer.alloc(0);
  const answer = new Promise<Answer>((resolve, reject) => {
    socket.on('data', (d: Buffer) => {
      raw = Buffer.concat([raw, d]);
      const a = parseAnswer(raw);
      if (a) resolve({ ...a, at: performance.now() });
    });
    socket.on('close', () => reject(new Error(`closed without a whole answer: ${raw.toString('latin1', 0, 300)}`)));
  });
  answer.catch(() => undefined);
  const head = Object.entries({ host: 'localhost', 'content-type': 'application/json', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
  const send = (bytes: Buffer | string) => new Promise<void>((resolve) => socket.write(bytes, () => resolve()));
  return { socket, answer, send };
}

/** 10,000 URLs of ~8,100 characters (81 MB), the last one not a URL: read whole, then refused. */
const HUGE = Buffer.from(
  JSON.stringify({
    urls: Array.from({ length: 10_000 }, (_, i) =>
      i === 9_999 ? 'not a url' : `http://127.0.0.1:9/${i}/${'a'.repeat(8_080)}`,
    ),
  }),
);

describe.each(DIALECTS)('large bodies (%s)', (dialect) => {
  let svc: TestService;
  beforeAll(async () => {
    // A body that never comes ends in 408 after this: a test that waits for it fails quickly.
    svc = await startTestService(dialect, { TRAWL_REQUEST_TIMEOUT_MS: '5000' });
  }, 60_000);
  afterAll(async () => svc?.stop());

  const huge = (key?: string, extra: Record<string, string> = {}) => ({
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    'content-length': String(HUGE.length),
    ...extra,
  });

  it('an account without credits gets 402 from the headers: the body is never read', async () => {
    const { key, accountId } = await svc.newKey(0);
    for (const [path, expected] of [
      ['/v1/batch/scrape', { error: 'insufficient_credits' }],
      ['/firecrawl/v2/batch/scrape', { success: false, code: 'insufficient_credits' }],
    ] as const) {
      // Only the start of the body is sent; the rest never is.
      const c = rawPost(svc.url, path, huge(key));
      await c.send('{"urls":["http://127.0.0.1:9/');
      const a = await c.answer;
      expect(a.status, path).toBe(402);
      expect(a.body).toMatchObject(expected);
      c.socket.destroy();
    }
    // A body of unannounced length counts as large.
    const chunked = rawPost(svc.url, '/v1/batch/scrape', {
      authorization: `Bearer ${key}`,
      'transfer-encoding': 'chunked',
    });
    const chunk = '{"urls":["http://';
    await chunked.send(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect((await chunked.answer).status).toBe(402);
    chunked.socket.destroy();
    expect(await svc.credits(accountId)).toBe(0);
  });

  it('a large body refused from its headers has its connection closed, not read to its end', async () => {
    const { key } = await svc.newKey(0);
    const c = rawPost(svc.url, '/v1/batch/scrape', huge(key));
    const closed = new Promise<void>((resolve) => c.socket.once('close', () => resolve()));
    await c.send(HUGE.subarray(0, 1024));
    const a = await c.answer;
    expect(a.status).toBe(402);
    expect(a.headers.connection).toBe('close');
    // The server hangs up rather than waiting for the other 81 MB (its request timeout is 5 s here).
    await closed;
  });

  it('a missing, malformed or unknown key gets 401 from the headers', async () => {
    for (const key of [undefined, 'nope', `trawl_${'x'.repeat(40)}`]) {
      const c = rawPost(svc.url, '/v1/batch/scrape', huge(key));
      await c.send('{"urls":[');
      const a = await c.answer;
      expect(a.status).toBe(401);
      expect(a.body).toEqual({ error: 'unauthorized' });
      c.socket.destroy();
    }
  });

  it("a body of unannounced length is held to its route's limit as it arrives: 413, read no further", async () => {
    const { key } = await svc.newKey(5);
    const c = rawPost(svc.url, '/v1/scrape', { authorization: `Bearer ${key}`, 'transfer-encoding': 'chunked' });
    const chunk = `{"url":"http://a.test/${'x'.repeat(256 * 1024)}`;
    for (let i = 0; i < 5; i++) await c.send(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(await c.answer).toMatchObject({
      status: 413,
      body: { error: 'payload_too_large', detail: 'body: the request body is larger than 1 MiB' },
    });
    c.socket.destroy();
  });

  it('a body up to 1 MiB keeps the contract order: a bad body is 400 before credits are looked at', async () => {
    const { key } = await svc.newKey(0);
    const res = await svc.post('/v1/batch/scrape', { urls: ['nope'] }, key);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', detail: 'urls[0]: must be an http or https URL' });
  });

  it('an account has at most two large bodies in flight: a third is 429 until one is answered', async () => {
    const { key } = await svc.newKey(5);
    // Three bodies that do not come: two are let in and wait for theirs (408 after 5 s), the
    // third — whichever reaches the check last — is refused at once.
    const three = [0, 1, 2].map(() => rawPost(svc.url, '/v1/batch/scrape', huge(key)));
    await Promise.all(three.map((c) => c.send('{"urls":[')));
    const first = await Promise.race(three.map((c) => c.answer));
    expect(first).toMatchObject({ status: 429, body: { error: 'rate_limited', retry_after: 1 } });
    expect(first.headers['retry-after']).toBe('1');
    for (const c of three) c.socket.destroy();
    // Once they are gone, a large body is read again (here: refused for its last URL).
    let next: Response | undefined;
    for (let i = 0; i < 50 && next?.status !== 400; i++) {
      next = await fetch(`${svc.url}/v1/batch/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: HUGE,
      });
      if (next.status === 429) await new Promise((r) => setTimeout(r, 20));
    }
    expect(next!.status).toBe(400);
    expect(await next!.json()).toEqual({
      error: 'invalid_request',
      detail: 'urls[9999]: must be an http or https URL',
    });
  });

  it('three 81 MB bodies are parsed and validated while other requests are answered', async () => {
    const senders = await Promise.all([svc.newKey(5), svc.newKey(5), svc.newKey(5)]);
    const bystander = await svc.newKey(5);
    const bigs = senders.map(({ key }) => rawPost(svc.url, '/v1/batch/scrape', huge(key)));
    // All of each body but its last byte: nothing can be parsed before that byte.
    await Promise.all(bigs.map((c) => c.send(HUGE.subarray(0, HUGE.length - 1))));
    // (Round trips that let the server take in what is still on its way.)
    for (let i = 0; i < 20; i++) await fetch(`${svc.url}/healthz`);
    for (const c of bigs) c.socket.write(HUGE.subarray(HUGE.length - 1));
    const answered: number[] = [];
    let waiting = true;
    const answers = Promise.all(bigs.map((c) => c.answer)).finally(() => (waiting = false));
    for (let i = 0; waiting; i++) {
      const res =
        i % 2
          ? await fetch(`${svc.url}/v1/account`, { headers: { authorization: `Bearer ${bystander.key}` } })
          : await fetch(`${svc.url}/healthz`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      answered.push(performance.now());
    }
    const big = await answers;
    for (const a of big)
      expect(a).toMatchObject({
        status: 400,
        body: { error: 'invalid_request', detail: 'urls[9999]: must be an http or https URL' },
      });
    const times = big.map((a) => a.at).sort((x, y) => x - y);
    // Parsed on the event loop, the three held it from the first answer to the last (and the one
    // before the first): requests sent meanwhile were answered only after.
    expect(answered.filter((t) => t < times[0]).length).toBeGreaterThanOrEqual(10);
    expect(answered.filter((t) => t > times[0] && t < times[2]).length).toBeGreaterThanOrEqual(10);
    for (const { accountId } of senders) expect(await svc.credits(accountId)).toBe(5);
  }, 120_000);
});
