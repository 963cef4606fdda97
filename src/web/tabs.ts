/** The playground's tabs (one per endpoint) and where its snippets send requests. */
import type { FastifyRequest } from 'fastify';
import { html, raw, type Raw } from './html.js';

export const TABS = [
  ['/playground', 'Scrape'],
  ['/playground/crawl', 'Crawl'],
  ['/playground/map', 'Map'],
  ['/playground/search', 'Search'],
  ['/playground/extract', 'Extract'],
] as const;

/** The tabs, as links (the page works without script); the current one marked. */
export const tabNav = (current: string): Raw =>
  html`<nav class="tabs" aria-label="Playground endpoints">${TABS.map(([href, label]) => html`<a href="${href}" ${raw(current === href ? 'aria-current="page"' : '')}>${label}</a>`)}</nav>`;

/** Where the snippets send the request: this server as the browser reached it. */
export const apiBase = (request: FastifyRequest) => `${request.protocol}://${request.headers.host}`;
