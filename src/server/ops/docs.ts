/**
 * The interactive API reference at /docs (Swagger UI from @fastify/swagger-ui), reading the same
 * document as GET /v1/openapi.json. Every asset is served by this process from the package's own
 * files: no CDN, no font service, no validator badge (validatorUrl null), and a CSP that would
 * refuse any other origin should one creep in. Public, like the document: it holds no secret.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const DOCS_PATH = '/docs';

/** The top bar's name, inlined as a data: image like the plugin's own logo (no request). */
const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40" viewBox="0 0 150 40"><text x="0" y="28" font-family="sans-serif" font-size="24" font-weight="700" fill="#ffffff">Trawl API</text></svg>';

/** Scripts are files (no inline script); Swagger UI sets inline styles and uses data: images. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: CSP,
    theme: { title: 'Trawl API reference' },
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: DOCS_PATH, target: '_self' },
    uiConfig: {
      // The document as clients fetch it (the plugin's own /docs/json is the same object).
      urls: [{ url: '/v1/openapi.json', name: 'Trawl API v1' }],
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayRequestDuration: true,
      tryItOutEnabled: false,
    },
  });
}
