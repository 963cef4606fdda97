/** `scrape`: one page as markdown (and/or schema JSON, links), cut to the caller's token budget. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { cutText, tokensToChars, trimJson } from '../budget.js';
import { callerOf, type ToolContext } from '../context.js';
import { defined, guarded, ok } from '../results.js';
import { maxTokens, renderMode, schemaObject, timeoutMs } from './shared.js';

export const SCRAPE_TOKENS = 6000;
/** Links shown at most; the answer says how many there were. */
const MAX_LINKS = 200;

interface ScrapeAnswer {
  url: string;
  markdown?: string;
  html?: string;
  json?: unknown;
  links?: string[];
  metadata: Record<string, unknown> & { title?: string | null };
  warnings?: string[];
}

const input = {
  url: z.string().describe('The page to read: an http or https URL.'),
  formats: z
    .array(z.enum(['markdown', 'json', 'links', 'html']))
    .min(1)
    .optional()
    .describe(
      'What to return: "markdown" (default), "json" (data shaped by `schema`), "links" (every link of the page), "html" (cleaned main-content HTML).',
    ),
  schema: schemaObject.optional(),
  only_main_content: z
    .boolean()
    .optional()
    .describe('Keep only the main content, without navigation and page chrome (default true).'),
  render: renderMode,
  wait_for: z
    .union([z.string(), z.number().int().min(0).max(60_000)])
    .optional()
    .describe('With a browser: a CSS selector to wait for, or milliseconds to wait.'),
  timeout_ms: timeoutMs(120_000, 30_000),
  max_tokens: maxTokens(SCRAPE_TOKENS, 'the markdown (or html)'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Continue a page that was cut: the `next_offset` of the previous answer. Read from the copy fetched then (kept 10 minutes: no new fetch, no credit); after that the page is fetched again.',
    ),
};

const output = {
  url: z.string(),
  title: z.string().nullable(),
  markdown: z.string().optional(),
  html: z.string().optional(),
  json: z.unknown().optional(),
  links: z.array(z.string()).optional(),
  links_total: z.number().int().optional(),
  metadata: z.record(z.string(), z.unknown()),
  truncated: z.boolean().describe('Whether text was cut to fit max_tokens.'),
  offset: z.number().int(),
  total_chars: z.number().int(),
  next_offset: z.number().int().optional().describe('Pass as `offset` to read on.'),
  warnings: z.array(z.string()).optional(),
};

export function registerScrape(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'scrape',
    {
      title: 'Scrape a web page',
      description:
        'Fetch one web page and return its main content as clean markdown (PDFs too), and optionally JSON extracted by a schema, its links, or cleaned HTML. ' +
        `Long pages are cut at a paragraph boundary to max_tokens (default ${SCRAPE_TOKENS}); the answer then gives next_offset to read on. Costs 1 credit per fetch.`,
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'scrape', async () => {
        const body = defined({
          url: args.url,
          formats: args.formats ?? (args.schema ? ['markdown', 'json'] : undefined),
          schema: args.schema,
          only_main_content: args.only_main_content,
          render: args.render,
          wait_for: args.wait_for,
          timeout_ms: args.timeout_ms,
        });
        const key = `${callerOf(extra)} ${JSON.stringify(body)}`;
        let page = args.offset ? ctx.pages.get<ScrapeAnswer>(key) : undefined;
        if (!page) {
          page = await (await ctx.api(extra)).post<ScrapeAnswer>('/v1/scrape', body, extra.signal);
          ctx.pages.set(key, page);
        }
        return present(page, args.url, args.max_tokens ?? SCRAPE_TOKENS, args.offset ?? 0);
      }),
  );
}

function present(page: ScrapeAnswer, askedUrl: string, tokens: number, offset: number) {
  const field = page.markdown !== undefined ? 'markdown' : page.html !== undefined ? 'html' : undefined;
  const whole = field ? page[field]! : '';
  const cut = cutText(whole, tokensToChars(tokens), offset);
  const title = page.metadata?.title ?? null;
  const structured: Record<string, unknown> = {
    url: page.url,
    title,
    ...(field ? { [field]: cut.text } : {}),
    metadata: page.metadata ?? {},
    truncated: cut.truncated,
    offset: Math.min(offset, cut.totalChars),
    total_chars: cut.totalChars,
    ...(cut.nextOffset !== undefined ? { next_offset: cut.nextOffset } : {}),
    ...(page.warnings?.length ? { warnings: page.warnings } : {}),
  };
  // The markdown usually opens with the page's heading: no title line then, it would say it twice.
  const lines = [
    ...(title && !(field === 'markdown' && offset === 0 && cut.text.startsWith('# ')) ? [`Title: ${title}`] : []),
    `URL: ${page.url}`,
  ];
  if (offset > 0) lines.push(`(continued from character ${offset} of ${cut.totalChars})`);
  if (field)
    lines.push(
      '',
      cut.text ||
        (offset > 0 && offset >= cut.totalChars
          ? `(offset ${offset} is past the end: the text has ${cut.totalChars} characters)`
          : '(the page has no readable text)'),
    );
  if (cut.truncated) {
    lines.push(
      '',
      `[Cut to fit ${tokens} tokens: characters ${offset}–${cut.nextOffset} of ${cut.totalChars} shown. ` +
        `To read on, call scrape again with url "${askedUrl}", the same options and offset ${cut.nextOffset}; or ask for a larger max_tokens.]`,
    );
  }
  if (page.html !== undefined && field === 'markdown') {
    // Both asked: the markdown is what `offset` pages through; the html is cut once, from its start.
    const h = cutText(page.html, tokensToChars(tokens));
    structured.html = h.text;
    lines.push(
      '',
      'HTML:',
      h.text,
      ...(h.truncated ? [`[html cut to ${tokens} tokens of ${h.totalChars} characters]`] : []),
    );
  }
  if (page.json !== undefined) {
    // JSON shares the budget: it is usually small, and cut (long strings, long lists) when not.
    const j = trimJson(page.json, tokensToChars(tokens));
    structured.json = j.value;
    lines.push('', 'JSON:', '```json', JSON.stringify(j.value, null, 2), '```', ...j.notes.map((n) => `[${n}]`));
  }
  if (page.links) {
    structured.links = page.links.slice(0, MAX_LINKS);
    structured.links_total = page.links.length;
    lines.push(
      '',
      `Links (${page.links.length}${page.links.length > MAX_LINKS ? `, first ${MAX_LINKS} shown` : ''}):`,
      ...page.links.slice(0, MAX_LINKS).map((l) => `- ${l}`),
    );
  }
  for (const w of page.warnings ?? []) lines.push('', `Warning: ${w}`);
  return ok(lines.join('\n'), structured);
}
