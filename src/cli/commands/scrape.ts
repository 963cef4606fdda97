/** `trawl scrape`: one URL scraped in this process, with the same body and checks as POST /v1/scrape. */
import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { loadConfig } from '../../config.js';
import { TrawlError } from '../../errors.js';
import type { Format } from '../../engine/index.js';
import { fileWriter, formatOfFile, parseAction, parseCookie, parseHeader, parseViewport } from '../scrape-options.js';
import { list, positiveInt, type Cli } from '../shared.js';

export function registerScrapeCommand({ program, print, json }: Cli): void {
  program
    .command('scrape')
    .description('scrape one URL locally (no server needed)')
    .argument('<url>')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['markdown', 'json', 'html', 'raw_html', 'links'])
        .default('markdown'),
    )
    .option('--schema <file>', 'JSON file with a schema object (implies --format json)')
    .option('--all-content', 'keep navigation and page chrome (only_main_content=false)')
    .addOption(new Option('--render <mode>', 'how to fetch').choices(['auto', 'http', 'browser']).default('auto'))
    .option('--timeout-ms <ms>', 'time budget', positiveInt('timeout-ms'), 30_000)
    .option(
      '--screenshot <file>',
      'write a screenshot of the page to this file (.png, or .jpg for JPEG); implies the browser',
    )
    .option('--full-page', 'with --screenshot: the whole page (up to 16,384 px high), not only the viewport')
    .option(
      '--action <step>',
      'a browser step, in order (repeatable): wait:500, wait:#list, click:#more, click-all:.expand, write:text, press:Enter, scroll:down[:px], scroll:bottom, screenshot[:full], scrape, js:return document.title, or a JSON step',
      list,
    )
    .option('--header <header>', '"Name: value" sent to the target\'s own site (repeatable)', list)
    .option('--cookie <cookie>', '"name=value" sent to the target\'s host (repeatable)', list)
    .option('--mobile', 'a phone: mobile user agent, 412x915 viewport, touch')
    .option('--viewport <size>', 'browser viewport, e.g. 1280x800')
    .option('--country <code>', 'ISO country code: the time zone and, without --language, the language (e.g. DE)')
    .option('--language <tag>', 'a preferred language, e.g. de-DE (repeatable, in order)', list)
    .action(async (url: string, o: ScrapeFlags) => {
      let schemaRaw: unknown;
      if (o.schema) {
        try {
          schemaRaw = JSON.parse(readFileSync(o.schema, 'utf8'));
        } catch (e) {
          throw new TrawlError(
            'invalid_schema',
            `schema: ${o.schema} is not a readable JSON file (${(e as Error).message})`,
          );
        }
      }
      const [
        { FREE_STEALTH, compileSchema, createEngine, scrape },
        { ScrapeBody },
        { parseBody },
        { checkPageOptions, engineScrapeOptions },
      ] = await Promise.all([
        import('../../engine/index.js'),
        import('../../contract/schemas.js'),
        import('../../contract/validation.js'),
        import('../../contract/page-options.js'),
      ]);
      const format: Format = o.schema ? 'json' : o.format;
      const shot = o.screenshot ? (o.fullPage ? 'screenshot@full_page' : 'screenshot') : undefined;
      // The same body, shapes and checks as POST /v1/scrape.
      const body = parseBody(ScrapeBody, {
        url,
        formats: [format, ...(shot ? [shot] : [])],
        ...(schemaRaw !== undefined ? { schema: schemaRaw } : {}),
        only_main_content: !o.allContent,
        render: o.render === 'auto' ? undefined : o.render,
        timeout_ms: o.timeoutMs,
        ...(o.screenshot ? { screenshot_format: formatOfFile(o.screenshot) } : {}),
        ...(o.action?.length ? { actions: o.action.map(parseAction) } : {}),
        ...(o.header?.length ? { headers: Object.fromEntries(o.header.map(parseHeader)) } : {}),
        ...(o.cookie?.length ? { cookies: o.cookie.map(parseCookie) } : {}),
        ...(o.mobile ? { mobile: true } : {}),
        ...(o.viewport ? { viewport: parseViewport(o.viewport) } : {}),
        ...(o.country || o.language?.length
          ? {
              location: {
                ...(o.country ? { country: o.country } : {}),
                ...(o.language?.length ? { languages: o.language } : {}),
              },
            }
          : {}),
      });
      checkPageOptions(body);
      const schema = schemaRaw !== undefined ? compileSchema(schemaRaw) : undefined;
      const engine = createEngine(loadConfig());
      try {
        const r = await scrape(engine, {
          ...engineScrapeOptions({ ...body, schema }),
          render: o.render,
          files: fileWriter(o.screenshot, !!shot),
          // The operator's own scrape: the stealth tier costs no credit here.
          stealthGate: FREE_STEALTH,
        });
        const { url: finalUrl, metadata, ...content } = r;
        // Warnings go to stderr so the markdown on stdout stays clean for pipes.
        for (const w of r.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
        if (!json()) {
          if (r.screenshot) process.stderr.write(`screenshot: ${r.screenshot}\n`);
          if (r.actions) process.stderr.write(`actions: ${JSON.stringify(r.actions)}\n`);
        }
        const human =
          format === 'json'
            ? JSON.stringify(r.json, null, 2)
            : format === 'links'
              ? (r.links ?? []).join('\n')
              : String(r[format as 'markdown'] ?? '');
        print({ status: 'ok', url: finalUrl, ...content, metadata }, human);
      } finally {
        await engine.close();
      }
    });
}

interface ScrapeFlags {
  format: Format;
  schema?: string;
  allContent?: boolean;
  render: 'auto' | 'http' | 'browser';
  timeoutMs: number;
  screenshot?: string;
  fullPage?: boolean;
  action?: string[];
  header?: string[];
  cookie?: string[];
  mobile?: boolean;
  viewport?: string;
  country?: string;
  language?: string[];
}
