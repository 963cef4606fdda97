/**
 * What `trawl serve` tells the person who started it (on stderr, when that is a terminal): where
 * the API, the dashboard and the reference are, how the deployment runs, and the CLI commands
 * that make the first account and key. No secret and no connection string ever goes in it.
 */
import { resolve } from 'node:path';
import type { Config } from '../../config.js';
import { DOCS_PATH } from './docs.js';

export interface BannerInput {
  /** The address the server listens on, as startService reports it (`http://0.0.0.0:3000` …). */
  url: string;
  config: Pick<Config, 'host' | 'dataDir' | 'databaseUrl' | 'redisUrl' | 'metricsToken'>;
}

const WILDCARD = /^http:\/\/(?:0\.0\.0\.0|\[::\])(?=:\d+$)/;

/** A word for a POSIX shell: quoted when it holds anything but path characters. */
const shellWord = (s: string) => (/^[\w./:@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|::1|localhost)$/;

export function startupBanner({ url, config }: BannerInput): string {
  // A wildcard address is where it listens, not where a browser can go.
  const base = url.replace(WILDCARD, 'http://localhost');
  const everywhere = base !== url;
  const mode =
    config.databaseUrl && config.redisUrl
      ? 'scale-out: PostgreSQL and Redis; monitors, webhooks and jobs run in `trawl worker` processes (start at least one)'
      : `embedded: ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`}; monitors, webhooks and jobs run in this process`;
  const metrics = config.metricsToken
    ? 'needs Authorization: Bearer $TRAWL_METRICS_TOKEN'
    : LOOPBACK.test(config.host)
      ? 'no token: this address is local only'
      : 'open to anyone who reaches this port: set TRAWL_METRICS_TOKEN';
  // The CLI finds the store as the server did: a data dir the server was given on its command
  // line is not in the other terminal's environment, and the key would land in ./data instead.
  const cli =
    !config.databaseUrl && config.dataDir !== resolve('./data')
      ? `TRAWL_DATA_DIR=${shellWord(config.dataDir)} npx trawl`
      : 'npx trawl';
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
    `  First account and API key (in another terminal, from this directory${config.databaseUrl ? ', with the same DATABASE_URL in its environment or .env' : ''}):`,
    `    ${cli} account create --email you@example.com --password 'a long passphrase' --credits 1000`,
    `    ${cli} keys create --email you@example.com`,
    '  then try it:',
    `    curl -s ${base}/v1/scrape -H "Authorization: Bearer trawl_…" -H 'Content-Type: application/json' -d '{"url":"https://example.com"}'`,
    '  or log in to the dashboard with that email and password.',
    '',
  ];
  return `${lines.join('\n')}\n`;
}
