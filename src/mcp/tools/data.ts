/**
 * The structured-data tools: `extract` (schema-guided JSON from pages), `marketplace` (a product
 * record from a retail marketplace), `meta_ads` (an advertiser's ads in Meta's Ad Library). Their
 * answers are JSON, made to fit the token budget by cutting long texts and long lists.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { tokensToChars, trimJson } from '../budget.js';
import type { ToolContext } from '../context.js';
import { defined, guarded, ok } from '../results.js';
import { maxTokens, postApi, renderMode, schemaObject, timeoutMs } from './shared.js';

export const DATA_TOKENS = 6000;
/** Fewer than the API's 50 by default: each ad is ~150 tokens. */
const META_ADS_LIMIT = 25;

const MARKETPLACES =
  'amazon_us, amazon_uk, amazon_de, amazon_fr, amazon_it, amazon_es, amazon_ca, amazon_mx, amazon_jp, amazon_in, amazon_au, walmart_us, walmart_ca, ' +
  'ebay_us, ebay_uk, ebay_de, ebay_fr, ebay_it, ebay_es, ebay_ie, ebay_ca, ebay_au, etsy_us, etsy_uk, etsy_de, etsy_fr, etsy_es, target_us, bestbuy_us, bestbuy_ca';

const record = z.record(z.string(), z.unknown());
const notes = z.array(z.string()).describe('What was cut to fit max_tokens.');

/** One JSON answer: a line saying what it is, the JSON, and what was cut. */
function jsonAnswer(head: string, structured: Record<string, unknown>, tokens: number, keys: string[]) {
  const shown = trimJson(
    Object.fromEntries(keys.filter((k) => structured[k] !== undefined).map((k) => [k, structured[k]])),
    tokensToChars(tokens),
  );
  const value = shown.value as Record<string, unknown>;
  const text = [
    head,
    '',
    JSON.stringify(value),
    ...(shown.notes.length
      ? ['', `[Cut to fit ${tokens} tokens: ${shown.notes.join('; ')}. Ask for a larger max_tokens for all of it.]`]
      : []),
  ].join('\n');
  return ok(text, { ...structured, ...value, notes: shown.notes });
}

export function registerData(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'extract',
    {
      title: 'Extract structured data',
      description:
        "Extract JSON shaped by a schema from 1 to 20 pages (product details, article facts, contacts …). Values come from the pages' structured data, meta tags and text, typed and validated; `data` merges all pages (first value found wins). Costs 1 credit per call.",
      inputSchema: {
        urls: z.array(z.string()).min(1).max(20).describe('The pages to extract from (http or https).'),
        schema: schemaObject,
        prompt: z
          .string()
          .optional()
          .describe('A hint for the optional LLM pass (used only when the server has an LLM configured).'),
        render: renderMode,
        timeout_ms: timeoutMs(120_000, 60_000),
        max_tokens: maxTokens(DATA_TOKENS, 'the JSON'),
      },
      outputSchema: {
        data: record.describe('The merged values, every schema field present (null when not found).'),
        results: z.array(
          z.object({
            url: z.string(),
            status: z.string(),
            json: z.unknown().optional(),
            error: z.string().optional(),
            detail: z.string().optional(),
          }),
        ),
        notes,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'extract', async () => {
        const r = await postApi<{ data: Record<string, unknown>; results: Record<string, unknown>[] }>(
          ctx,
          extra,
          '/v1/extract',
          {
            urls: args.urls,
            schema: args.schema,
            prompt: args.prompt,
            render: args.render,
            timeout_ms: args.timeout_ms,
          },
        );
        // Per-page JSON repeats `data` when there is one page; the sources are left to the API.
        const results = r.results.map((x) =>
          defined({
            url: x.url as string,
            status: x.status as string,
            json: args.urls.length > 1 ? x.json : undefined,
            error: x.error as string | undefined,
            detail: x.detail as string | undefined,
          }),
        );
        const failed = results.filter((x) => x.status !== 'ok').length;
        const head = `Extracted from ${results.length - failed} of ${results.length} page${results.length === 1 ? '' : 's'}${failed ? ` (${failed} failed: see results)` : ''}.`;
        return jsonAnswer(head, { data: r.data, results }, args.max_tokens ?? DATA_TOKENS, ['data', 'results']);
      }),
  );

  server.registerTool(
    'marketplace',
    {
      title: 'Marketplace product data',
      description:
        'Read a product page (or a search/category page) of Amazon, Walmart, eBay, Etsy, Target or Best Buy into a product record: title, price, currency, availability, brand, rating, images, variants, seller, identifiers … Missing values are null, never guessed. Costs 1 credit.',
      inputSchema: {
        marketplace: z.string().describe(`Marketplace id, <name>_<region>: ${MARKETPLACES}.`),
        url: z.string().describe('A product (or search/category) page of that marketplace and region.'),
        mode: z
          .enum(['rich', 'basic'])
          .optional()
          .describe(
            '"rich" (default: every field) or "basic" (id, url, title, price, currency, availability, in_stock).',
          ),
        render: renderMode,
        timeout_ms: timeoutMs(120_000, 30_000),
        max_tokens: maxTokens(DATA_TOKENS, 'the JSON'),
      },
      outputSchema: {
        marketplace: z.string(),
        product: record.optional().describe('The product of a product page.'),
        products: z.array(record).optional().describe('The products of a search or category page, in page order.'),
        notes,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'marketplace', async () => {
        const r = await postApi<{
          marketplace: string;
          product?: Record<string, unknown>;
          products?: Record<string, unknown>[];
        }>(ctx, extra, '/v1/marketplace', {
          marketplace: args.marketplace,
          url: args.url,
          mode: args.mode,
          render: args.render,
          timeout_ms: args.timeout_ms,
        });
        const head = r.product
          ? `${r.marketplace} product${r.product.title ? `: ${r.product.title}` : ''}`
          : `${r.marketplace}: ${r.products?.length ?? 0} products listed on the page`;
        return jsonAnswer(
          head,
          defined({ marketplace: r.marketplace, product: r.product, products: r.products }),
          args.max_tokens ?? DATA_TOKENS,
          ['product', 'products'],
        );
      }),
  );

  server.registerTool(
    'meta_ads',
    {
      title: 'Meta Ad Library',
      description:
        "An advertiser's ads from Meta's Ad Library (Facebook, Instagram): text, title, link, call to action, media, platforms, dates, status. Costs 1 credit.",
      inputSchema: {
        advertiser: z.string().describe('The advertiser\'s Facebook page handle, lower case, e.g. "nike".'),
        country: z.string().describe('Upper-case ISO 3166-1 alpha-2 country where the ads ran, e.g. "US", or "ALL".'),
        active_status: z
          .enum(['active', 'inactive', 'all'])
          .optional()
          .describe('Which ads: "active" (default), "inactive" or "all".'),
        platforms: z
          .array(z.enum(['facebook', 'instagram']))
          .min(1)
          .optional()
          .describe('Only ads shown on these (default both).'),
        limit: z.number().int().min(1).max(500).optional().describe(`Most ads to return (default ${META_ADS_LIMIT}).`),
        timeout_ms: timeoutMs(120_000, 60_000),
        max_tokens: maxTokens(DATA_TOKENS, 'the JSON'),
      },
      outputSchema: {
        advertiser: z.string(),
        country: z.string(),
        page: record.nullable().describe("The advertiser's page: id, name, url."),
        total: z.number().int().nullable().describe("The library's count of ads (null when unknown)."),
        ads: z.array(record),
        notes,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'meta_ads', async () => {
        const r = await postApi<{
          advertiser: string;
          country: string;
          page: Record<string, unknown> | null;
          ads: Record<string, unknown>[];
          total: number | null;
        }>(ctx, extra, '/v1/meta-ads', {
          advertiser: args.advertiser,
          country: args.country,
          active_status: args.active_status,
          platforms: args.platforms,
          limit: args.limit ?? META_ADS_LIMIT,
          timeout_ms: args.timeout_ms,
        });
        const name = (r.page?.name as string | undefined) ?? r.advertiser;
        const head = `${r.ads.length} ad${r.ads.length === 1 ? '' : 's'} of ${name} (${r.country})${r.total !== null && r.total !== undefined ? `; the library counts ${r.total}` : ''}.`;
        return jsonAnswer(
          head,
          { advertiser: r.advertiser, country: r.country, page: r.page ?? null, total: r.total ?? null, ads: r.ads },
          args.max_tokens ?? DATA_TOKENS,
          ['page', 'total', 'ads'],
        );
      }),
  );
}
