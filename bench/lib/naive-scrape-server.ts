/** The peer of bench:scrape: the usual quick build — Fastify, undici fetch, Turndown on the whole page. */
import Fastify from 'fastify';
import TurndownService from 'turndown';
import { request } from 'undici';

const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
td.remove(['script', 'style', 'nav', 'footer']);
const app = Fastify();
app.get('/healthz', async () => ({ ok: true }));
app.post('/scrape', async (req) => {
  const { url } = req.body as { url: string };
  const res = await request(url);
  const html = await res.body.text();
  return { status: 'ok', url, markdown: td.turndown(html) };
});
await app.listen({ port: Number(process.env.PORT ?? 3918), host: '127.0.0.1' });
