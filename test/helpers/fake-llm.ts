/** A local OpenAI-compatible chat-completions server that answers from a function (tests only). */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeLlm {
  url: string;
  requests: { body: Record<string, unknown>; headers: IncomingMessage['headers'] }[];
  /** What to answer next: an object (sent as the message content), 'timeout' or 'garbage'. */
  answer: Record<string, unknown> | 'timeout' | 'garbage';
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const fake: FakeLlm = { url: '', requests: [], answer: {}, close: async () => undefined };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') return void res.writeHead(404).end();
      fake.requests.push({ body: JSON.parse(raw), headers: req.headers });
      const a = fake.answer;
      if (a === 'timeout') return; // never answers
      if (a === 'garbage')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"choices":[{"message":{"content":"not json at all"}}]}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(a) }, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}
