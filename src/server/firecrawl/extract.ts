/**
 * POST /firecrawl/{v1,v2}/extract: Trawl's extractor over 1–20 URLs with the JSON Schema read
 * as a schema object (json-schema.ts), answered at once: `{success, status: "completed", data}`.
 * v2's SDK takes that answer as it is. v1's SDK always polls GET /v1/extract/{id}, so a v1
 * answer also carries an id whose result this process keeps for a while (extract-results.ts).
 */
import type { FastifyInstance } from 'fastify';
import { compileSchema, extract } from '../../engine/index.js';
import { invalidRequest, TrawlError } from '../../errors.js';
import type { ServerContext } from '../context.js';
import { withCredit } from '../plugins/api-scope.js';
import { extractOptionsFor } from '../../app/extract.js';
import { httpUrl } from '../../contract/validation.js';
import { unsupported } from '../../contract/firecrawl/options.js';
import { ExtractResults } from './extract-results.js';
import { strictJsonSchema } from '../../engine/extract/json-schema.js';
import { bodyOf, boolAt, checkOptions, onlyAt, refuse, type OptionTable } from '../../contract/firecrawl/options.js';
import type { Version } from '../../contract/firecrawl/scrape-options.js';
import { HIDDEN } from './shared.js';

const URL_CHECK = httpUrl();

function extractTable(version: Version): OptionTable {
  const common: OptionTable = {
    urls: 'map',
    schema: 'map',
    prompt: 'map',
    showSources: 'map',
    ignoreInvalidURLs: 'map',
    systemPrompt: refuse("Trawl's extractor uses its own instructions; give a prompt as a hint"),
    allowExternalLinks: onlyAt([false], 'Trawl reads the URLs given, not the pages they link to'),
    enableWebSearch: onlyAt([false], 'extraction reads the URLs given; search first with /search'),
    includeSubdomains: onlyAt([false], 'URL wildcards are not supported, so there are no subdomains to include'),
    scrapeOptions: refuse("extraction reads each page with Trawl's own options"),
    agent: refuse('the FIRE-1 agent is a Firecrawl cloud feature'),
    webhook: refuse('extraction answers at once; there is nothing to notify'),
    origin: 'tag',
    integration: 'tag',
  };
  return version === 'v1'
    ? common
    : { ...common, threatProtection: refuse('threat protection is a Firecrawl cloud feature') };
}

/** Where each field's value came from, per URL (Trawl's sources), for `showSources`. */
function sourcesOf(results: Awaited<ReturnType<typeof extract>>['results']): Record<string, unknown> {
  const out: Record<string, { url: string; source: string }[]> = {};
  for (const r of results) {
    if (r.status !== 'ok' || !r.sources) continue;
    for (const [field, source] of Object.entries(r.sources)) (out[field] ??= []).push({ url: r.url, source });
  }
  return out;
}

export function extractRoutes(app: FastifyInstance, ctx: ServerContext, version: Version, kept: ExtractResults): void {
  app.post(`/${version}/extract`, HIDDEN, async (request, reply) => {
    const o = checkOptions(bodyOf(request.body), extractTable(version));
    const skipInvalid = boolAt(o.ignoreInvalidURLs, 'ignoreInvalidURLs') ?? false;
    if (!Array.isArray(o.urls) || !o.urls.length || o.urls.length > 20)
      throw invalidRequest('urls: must be an array of 1 to 20 http or https URLs');
    const urls: string[] = [];
    const invalid: string[] = [];
    o.urls.forEach((u: unknown, i: number) => {
      if (typeof u === 'string' && /\/\*$/.test(u))
        throw unsupported(`urls[${i}]`, 'URL wildcards (/*) are not supported; list the pages (POST /map finds them)');
      if (URL_CHECK.safeParse(u).success) urls.push(u as string);
      else if (skipInvalid) invalid.push(String(u));
      else throw invalidRequest(`urls[${i}]: must be an http or https URL`);
    });
    if (!urls.length) throw invalidRequest('urls: none is an http or https URL');
    if (o.prompt !== undefined && (typeof o.prompt !== 'string' || !o.prompt.length || o.prompt.length > 2000))
      throw invalidRequest('prompt: must be a string of 1 to 2000 characters');
    // A prompt alone drives the LLM when the server has one (the LLM then chooses the fields).
    if (o.schema === undefined && !(o.prompt !== undefined && ctx.engine.llm))
      throw unsupported(
        'schema',
        o.prompt === undefined
          ? 'add "schema" (a JSON Schema), or a "prompt" when the server has an LLM'
          : 'extraction from a prompt alone needs an LLM, and this server has none (its operator can set LLM_BASE_URL, LLM_MODEL and LLM_API_KEY): add "schema" (a JSON Schema)',
      );
    const schema = o.schema === undefined ? undefined : compileSchema(strictJsonSchema(o.schema, 'schema'), 'schema');
    const showSources = boolAt(o.showSources, 'showSources') ?? false;
    const r = await withCredit(ctx, request, reply, (signal, engine) =>
      extract(engine, extractOptionsFor(ctx, { urls, schema, prompt: o.prompt as string | undefined }, signal)),
    );
    const failed = r.results.filter((x) => x.status === 'error');
    const body: Record<string, unknown> = {
      success: true,
      status: 'completed',
      data: r.data,
      creditsUsed: 1,
      ...(failed.length
        ? {
            warning: `${failed.length} of ${r.results.length} URLs could not be read: ${failed.map((f) => `${f.url} (${f.status === 'error' ? f.detail : ''})`).join('; ')}`,
          }
        : {}),
      ...(invalid.length ? { invalidURLs: invalid } : {}),
      ...(showSources ? { sources: sourcesOf(r.results) } : {}),
    };
    if (version === 'v2') return body;
    const id = kept.put(request.auth!.accountId, body);
    return { ...body, id, expiresAt: kept.expiresAt(id) };
  });

  // The result of an extraction this process answered (v1's SDK reads it back by id).
  app.get<{ Params: { id: string } }>(`/${version}/extract/:id`, HIDDEN, async (request) => {
    const found = kept.get(request.auth!.accountId, request.params.id);
    if (!found)
      throw new TrawlError(
        'not_found',
        `extract job ${request.params.id.slice(0, 60)} does not exist, has expired, or was answered by another Trawl process (v2's /extract answers at once)`,
      );
    return { ...found, id: request.params.id, expiresAt: kept.expiresAt(request.params.id) };
  });
}
