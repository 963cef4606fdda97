/** `map`: a site's URLs (from sitemaps and a fast link harvest) without their content. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { tokensToChars } from '../budget.js';
import type { ToolContext } from '../context.js';
import { defined, guarded, ok } from '../results.js';
import { maxTokens, postApi, timeoutMs } from './shared.js';

export const MAP_TOKENS = 4000;
/** Fewer than the API's 1,000 by default: a model rarely reads more, and each costs tokens. */
const MAP_LIMIT = 200;

const input = {
  url: z.string().describe("The site's start page (http or https)."),
  search: z
    .string()
    .optional()
    .describe('Words to rank the URLs by (matching paths and link texts first), e.g. "pricing docs".'),
  limit: z.number().int().min(1).max(30_000).optional().describe(`Most URLs to return (default ${MAP_LIMIT}).`),
  use_sitemap: z.boolean().optional().describe("Read the site's sitemaps (default true)."),
  allow_subdomains: z.boolean().optional().describe('Count subdomains as the same site (default false).'),
  timeout_ms: timeoutMs(120_000, 30_000),
  max_tokens: maxTokens(MAP_TOKENS, 'the URL list'),
};

const output = {
  links: z.array(z.object({ url: z.string(), title: z.string().optional() })),
  total: z.number().int().describe('Distinct URLs found on the site.'),
  shown: z.number().int(),
};

export function registerMap(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'map',
    {
      title: 'Map a website',
      description:
        "List a website's URLs quickly, from its sitemaps and links, without fetching their content; `search` ranks them by relevance. Use it to find the pages worth scraping. Costs 1 credit.",
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'map', async () => {
        const r = await postApi<{ links: { url: string; title?: string }[]; total: number }>(ctx, extra, '/v1/map', {
          url: args.url,
          search: args.search,
          limit: args.limit ?? MAP_LIMIT,
          use_sitemap: args.use_sitemap,
          allow_subdomains: args.allow_subdomains,
          timeout_ms: args.timeout_ms,
        });
        const budget = tokensToChars(args.max_tokens ?? MAP_TOKENS);
        const lines: string[] = [];
        const links: { url: string; title?: string }[] = [];
        let used = 0;
        for (const l of r.links) {
          const line = `- ${l.url}${l.title ? ` — ${l.title}` : ''}`;
          if (used + line.length + 1 > budget) break;
          used += line.length + 1;
          lines.push(line);
          links.push(defined({ url: l.url, title: l.title }) as { url: string; title?: string });
        }
        const head = `${r.total} URL${r.total === 1 ? '' : 's'} found on ${args.url}; ${links.length} shown${args.search ? `, most relevant to "${args.search}" first` : ''}.`;
        const more =
          links.length < r.total
            ? [`\n[${r.total - links.length} more not shown: raise limit and max_tokens, or narrow them with search.]`]
            : [];
        return ok([head, '', ...lines, ...more].join('\n'), { links, total: r.total, shown: links.length });
      }),
  );
}
