/**
 * Writes src/generated/requests.ts from Trawl's OpenAPI document.
 *
 *   npx tsx scripts/generate-types.ts                      # starts the service of this checkout in-process
 *   npx tsx scripts/generate-types.ts http://host/v1/openapi.json
 *   npx tsx scripts/generate-types.ts ./openapi.json
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderRequestTypes, type OpenApiDocument } from './openapi-to-ts.js';

const OUT = join(import.meta.dirname, '../src/generated/requests.ts');

/** The document of this checkout's server: started on a free port with a throw-away data directory. */
async function fromCheckout(): Promise<OpenApiDocument> {
  const { loadConfig } = await import('../../../src/config.js');
  const { startService } = await import('../../../src/runtime.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-sdk-types-'));
  const service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', TRAWL_DATA_DIR: dataDir }), {
    logger: false,
    scheduler: false,
  });
  try {
    return (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as OpenApiDocument;
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function load(source: string | undefined): Promise<OpenApiDocument> {
  if (!source) return fromCheckout();
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source);
    if (!res.ok) throw new Error(`${source} answered ${res.status}`);
    return (await res.json()) as OpenApiDocument;
  }
  return JSON.parse(readFileSync(source, 'utf8')) as OpenApiDocument;
}

const text = renderRequestTypes(await load(process.argv[2]));
writeFileSync(OUT, text);
console.log(`wrote ${OUT} (${text.length} characters)`);
