/**
 * What `trawl serve` tells the person who started it (on stderr, when that is a terminal): where
 * the API, the dashboard and the reference are, how the deployment runs, and the CLI commands
 * that make the first account and key. No secret and no connection string ever goes in it.
 */
import type { Config } from '../../config.js';
import { DOCS_PATH } from './docs.js';

export interface BannerInput {
  /** The address the server listens on, as startService reports it (`http://0.0.0.0:3000` …). */
  url: string;
  config: Pick<Config, 'host' | 'dataDir' | 'databaseUrl' | 'redisUrl' | 'metricsToken'>;
}

const WILDCARD = /^http:\/\/(?:0\.0\.0\.0|\[::\])(?=:\d+$)/;
const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function startupBanner({ url, config }: BannerInput): string {
  // A wildcard address is where it listens, not where a browser can go.
  const base = url.replace(WILDCARD, 'http://localhost');
  const everywhere = base !== url;
  const mode = config.databaseUrl && config.redisUrl
    ? 'scale-out: PostgreSQL and Redis; monitors, webhooks and jobs run in `trawl worker` processes (start at least one)'
    : `embedded: ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}; monitors, webhooks and jobs run in this process`;
  const metrics = config.metricsToken
    ? 'needs Authorization: Bearer $TRAWL_METRICS_TOKEN'
    : LOOPBACK.test(config.host) ? 'no token: this address is local only' : 'open to anyone who reaches this port: set TRAWL_METRICS_TOKEN';
  const lines = [
    '',
    `  Trawl is running (${mode})`,
    '',
    `  API         ${base}/v1   (Authorization: Bearer trawl_…)`,
    `  Dashboard   ${base}/`,
    `  API docs    ${base}${DOCS_PATH}   (OpenAPI: ${base}/v1/openapi.json)`,
    `  Health      ${base}/healthz   ${base}/readyz`,
    `  Metrics     ${base}/metrics   (${metrics})`,
    ...(everywhere ? [`  Listening on every interface (HOST=${config.host}): reachable from other machines`] : []),
    '',
    '  First account and API key (in another terminal, from this directory):',
    "    npx trawl account create --email you@example.com --password 'a long passphrase' --credits 1000",
    '    npx trawl keys create --email you@example.com',
    '  then try it:',
    `    curl -s ${base}/v1/scrape -H "Authorization: Bearer trawl_…" -H 'Content-Type: application/json' -d '{"url":"https://example.com"}'`,
    '  or log in to the dashboard with that email and password.',
    '',
  ];
  return `${lines.join('\n')}\n`;
}
