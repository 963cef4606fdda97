/**
 * The keyless default: DuckDuckGo's HTML results page. Result links point through
 * `/l/?uddg=<target>`; ads (`result--ad`) are skipped.
 */
import { parseHtml, elements, textOf, collapse } from '../document/dom.js';
import type { Element } from '../document/dom.js';
import type { HttpClient } from '../fetch/http.js';
import {
  askProvider,
  providerFailed,
  type ProviderResult,
  type SearchProvider,
  type SearchRequest,
} from './provider.js';

export const DUCKDUCKGO_DEFAULT_URL = 'https://html.duckduckgo.com/html/';

function target(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    const u = new URL(href, base);
    const wrapped = u.searchParams.get('uddg');
    const real = wrapped ? new URL(wrapped) : u;
    return /^https?:$/.test(real.protocol) ? real.href : undefined;
  } catch {
    return undefined;
  }
}

export function parseDuckDuckGo(html: string, base = DUCKDUCKGO_DEFAULT_URL): ProviderResult[] {
  const doc = parseHtml(html);
  const out: ProviderResult[] = [];
  const hasClass = (el: Element, c: string) => ` ${el.attribs.class ?? ''} `.includes(` ${c} `);
  for (const el of elements(doc)) {
    if (!hasClass(el, 'result') || hasClass(el, 'result--ad')) continue;
    let title: Element | undefined;
    let snippet: Element | undefined;
    for (const d of elements(el)) {
      if (!title && hasClass(d, 'result__a')) title = d;
      if (!snippet && hasClass(d, 'result__snippet')) snippet = d;
    }
    const url = target(title?.attribs.href, base);
    if (!title || !url || url.includes('duckduckgo.com/y.js')) continue;
    out.push({ url, title: collapse(textOf(title)), snippet: snippet ? collapse(textOf(snippet)) : '' });
  }
  return out;
}

export class DuckDuckGoProvider implements SearchProvider {
  readonly name = 'duckduckgo';
  constructor(
    private readonly http: HttpClient,
    private readonly endpoint = DUCKDUCKGO_DEFAULT_URL,
  ) {}

  async search(req: SearchRequest): Promise<ProviderResult[]> {
    const u = new URL(this.endpoint);
    u.searchParams.set('q', req.query);
    if (req.country || req.language)
      u.searchParams.set('kl', `${(req.country ?? 'wt').toLowerCase()}-${(req.language ?? 'wt').toLowerCase()}`);
    const html = (await askProvider(this.http, this.name, u.href, req, { accept: 'text/html' })).toString('utf8');
    const results = parseDuckDuckGo(html, this.endpoint);
    if (!results.length && /anomaly|captcha|unusual traffic/i.test(html))
      throw providerFailed(this.name, 'it answered with a bot check; configure SEARXNG_URL or BRAVE_API_KEY');
    if (!results.length && !/no results|no-results|result/i.test(html))
      throw providerFailed(this.name, 'the results page could not be read');
    return results;
  }
}
