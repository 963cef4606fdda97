/** `search`: ranked web results numbered [n] for citation, with the passages that answer the query. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { cutText, shareBudget, tokensToChars } from '../budget.js';
import type { ToolContext } from '../context.js';
import { guarded, ok } from '../results.js';
import { maxTokens, postApi, timeoutMs } from './shared.js';

export const SEARCH_TOKENS = 4000;
/** An excerpt shorter than this says nothing the highlights did not: left out. */
const MIN_EXCERPT = 200;

interface SearchResult {
  position: number;
  citation: string;
  title: string;
  url: string;
  source: string;
  snippet: string;
  published_at?: string | null;
  markdown?: string;
  highlights: { text: string; score: number }[];
  score: number;
}

const input = {
  query: z.string().describe('What to search the web for (1 to 400 characters).'),
  limit: z.number().int().min(1).max(20).optional().describe('Number of results (default 5).'),
  include_content: z
    .boolean()
    .optional()
    .describe(
      'Fetch each result page to rank by its content and quote its best passages (default true; false is faster: titles and snippets only).',
    ),
  country: z.string().optional().describe('ISO 3166-1 alpha-2 country to search from, e.g. "US".'),
  language: z.string().optional().describe('ISO 639-1 language of the results, e.g. "en".'),
  timeout_ms: timeoutMs(60_000, 20_000),
  max_tokens: maxTokens(SEARCH_TOKENS, 'page excerpts (beside titles, snippets and highlights)'),
};

const output = {
  query: z.string(),
  results: z.array(
    z.object({
      citation: z.string().describe('Cite this result as this, e.g. [1].'),
      position: z.number().int(),
      title: z.string(),
      url: z.string(),
      source: z.string(),
      snippet: z.string(),
      published_at: z.string().nullable().optional(),
      highlights: z
        .array(z.string())
        .describe('Passages of the page that answer the query best, quotable as they are.'),
      excerpt: z.string().optional().describe('The start of the page, cut to the token budget.'),
    }),
  ),
  excerpts_cut: z.boolean(),
};

export function registerSearch(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'search',
    {
      title: 'Search the web',
      description:
        'Search the live web. Results are re-ranked by what their pages say and numbered [1], [2] … for citation; each carries the passages of its page that answer the query (highlights) and an excerpt of the page. ' +
        'Cite facts with the result number. Costs 1 credit.',
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'search', async () => {
        const answer = await postApi<{ query: string; results: SearchResult[] }>(ctx, extra, '/v1/search', {
          query: args.query,
          limit: args.limit,
          scrape: args.include_content,
          country: args.country,
          language: args.language,
          timeout_ms: args.timeout_ms,
        });
        return present(answer.query, answer.results, args.max_tokens ?? SEARCH_TOKENS);
      }),
  );
}

function present(query: string, results: SearchResult[], tokens: number) {
  const shares = shareBudget(
    results.map((r) => r.markdown?.length ?? 0),
    tokensToChars(tokens),
  );
  let cutAny = false;
  const shaped = results.map((r, i) => {
    const excerpt =
      r.markdown && shares[i] >= Math.min(MIN_EXCERPT, r.markdown.length) ? cutText(r.markdown, shares[i]) : undefined;
    if (r.markdown && (!excerpt || excerpt.truncated)) cutAny = true;
    return {
      citation: r.citation,
      position: r.position,
      title: r.title,
      url: r.url,
      source: r.source,
      snippet: r.snippet,
      ...(r.published_at ? { published_at: r.published_at } : {}),
      highlights: r.highlights.map((h) => h.text),
      ...(excerpt?.text ? { excerpt: excerpt.text } : {}),
    };
  });
  const lines = [
    `Search results for "${query}" (${results.length}). Cite a result by its number, e.g. ${results[0]?.citation ?? '[1]'}.`,
  ];
  if (!results.length) lines.push('', 'No results: try other words, or a broader query.');
  for (const r of shaped) {
    lines.push(
      '',
      `${r.citation} ${r.title} — ${r.source}${r.published_at ? ` (published ${r.published_at})` : ''}`,
      `URL: ${r.url}`,
    );
    if (r.snippet) lines.push(`Snippet: ${r.snippet}`);
    for (const h of r.highlights) lines.push(`> ${h.replace(/\n+/g, ' ')}`);
    if (r.excerpt) lines.push('Excerpt:', r.excerpt);
  }
  if (cutAny)
    lines.push(
      '',
      `[Page excerpts were cut to fit ${tokens} tokens; call scrape with a result's URL to read the whole page.]`,
    );
  return ok(lines.join('\n'), { query, results: shaped, excerpts_cut: cutAny });
}
