/** The MCP server: Trawl's tools on one `McpServer`, each calling the public HTTP API. */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from './context.js';
import { registerCrawl } from './tools/crawl.js';
import { registerData } from './tools/data.js';
import { registerMap } from './tools/map.js';
import { registerMonitors } from './tools/monitors.js';
import { registerScrape } from './tools/scrape.js';
import { registerSearch } from './tools/search.js';

/** The package's version (dist/mcp and src/mcp are both two levels under the package root). */
export const VERSION: string = (() => {
  try {
    return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
  } catch {
    return '0.0.0';
  }
})();

const INSTRUCTIONS =
  "Trawl reads the web for you. search finds pages (cite results as [n]); scrape reads one page as markdown; map lists a site's URLs; crawl reads many pages of a site; " +
  'extract, marketplace and meta_ads return structured data; monitors_* watch pages and send webhooks on change. Long text is cut to max_tokens with a note saying how to read on. Each fetch costs the account 1 credit.';

export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(
    { name: 'trawl', title: 'Trawl', version: VERSION },
    { instructions: INSTRUCTIONS, capabilities: { tools: {} } },
  );
  registerScrape(server, ctx);
  registerSearch(server, ctx);
  registerMap(server, ctx);
  registerCrawl(server, ctx);
  registerData(server, ctx);
  registerMonitors(server, ctx);
  return server;
}
