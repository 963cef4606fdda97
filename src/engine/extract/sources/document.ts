/** The page's own headings: the first `<h1>` names the page's subject; `<title>` is a weaker echo. */
import type { Document, Element } from '../../document/dom.js';
import { absoluteUrl, collapse, elements, findFirst, textOf } from '../../document/dom.js';
import { isHiddenInPage, visibleTextOf } from '../../document/visibility.js';
import type { Candidate } from '../candidate.js';

export function documentCandidates(doc: Document, baseUrl: string, out: Candidate[]): void {
  let title: string | undefined;
  let h1: string | undefined;
  let canonical: string | undefined;
  let byline: string | undefined;
  let lead: string | undefined;
  let order = 0;
  for (const el of elements(doc)) {
    order++;
    if (el.name === 'title' && title === undefined) title = collapse(textOf(el));
    else if (
      el.name === 'h1' &&
      h1 === undefined &&
      !isUiHeading(el) &&
      !isHiddenInPage(el) &&
      !isLogoHeading(el, baseUrl)
    ) {
      h1 = collapse(visibleTextOf(el));
      if (h1.length < 3 || h1.length > 300) h1 = undefined;
      else
        for (const name of ['name', 'title', 'headline'])
          out.push({ path: [name], value: h1, kind: 'dom', source: 'css:h1', confidence: 0.7, el });
    } else if (el.name === 'a' && !byline && /(?:^|\s)author(?:\s|$)/i.test(el.attribs.rel ?? '')) {
      // The post's byline link: `<a rel="author" href="/author/…">Mike Conley</a>`.
      byline = collapse(visibleTextOf(el));
      if (byline.length >= 2 && byline.length <= 100)
        out.push({
          path: ['author'],
          value: byline,
          kind: 'dom',
          source: 'html:a[rel=author]',
          order,
          confidence: 0.75,
          el,
        });
    } else if (el.name === 'p' && h1 !== undefined && lead === undefined) {
      // The first real paragraph after the headline: a summary when the page gives none.
      const text = collapse(visibleTextOf(el));
      if (text.length >= 80 && !isHiddenInPage(el)) {
        lead = text.length > 1000 ? `${text.slice(0, 1000).replace(/\s+\S*$/, '')}…` : text;
        out.push({ path: ['description'], value: lead, kind: 'dom', source: 'html:p', order, confidence: 0.3, el });
      }
    } else if (el.name === 'link' && !canonical && /(?:^|\s)canonical(?:\s|$)/i.test(el.attribs.rel ?? '')) {
      canonical = absoluteUrl(el.attribs.href, baseUrl);
    }
  }
  if (title) {
    const clean = withoutSiteName(title, baseUrl);
    for (const name of ['title', 'name'])
      out.push({ path: [name], value: clean, kind: 'dom', source: 'html:title', order: 0, confidence: 0.55 });
  }
  if (canonical)
    out.push({
      path: ['url'],
      value: canonical,
      kind: 'dom',
      source: 'html:link[rel=canonical]',
      order: 0,
      confidence: 0.8,
    });
}

/**
 * "Amazon.com: Relay Module : Automotive" → "Relay Module": the longest part of the title
 * once parts naming the site (its host's main label) are set aside.
 */
const UI_NAMES =
  /message|modal|popup|cart|basket|dialog|toast|alert|notif|error|success|overlay|menu|logo|drawer|flyout/i;

/** Headings of cart pop-ups, alerts and logos are not the page's subject. */
function isUiHeading(el: Element): boolean {
  for (let n: Element | null = el, i = 0; n && i < 4; n = n.parent as Element | null, i++) {
    if (n.attribs && UI_NAMES.test(`${n.attribs.class ?? ''} ${n.attribs.id ?? ''}`)) return true;
  }
  return false;
}

/** The main label of a URL's host: "walmart" for www.walmart.com, "amazon" for amazon.co.uk. */
function siteLabel(url: string): string {
  try {
    const labels = new URL(url).hostname.replace(/^www\./, '').split('.');
    return (
      (labels.length > 2 && labels[labels.length - 2].length <= 3
        ? labels[labels.length - 3]
        : (labels[labels.length - 2] ?? labels[0])) ?? ''
    );
  } catch {
    return '';
  }
}

const letters = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** Whether a text is the site's own name and nothing else ("eHow" on ehow.com, "Walmart.com"). */
export function isSiteName(text: string, url: string): boolean {
  const site = letters(siteLabel(url));
  const t = letters(text);
  return (
    site.length >= 3 &&
    t.startsWith(site) &&
    /^(?:com|net|org|co|de|fr|uk|couk|io|shop|store)?$/.test(t.slice(site.length))
  );
}

/**
 * A shared title without the site's name at its end, the rest kept as written:
 * "Pokémon GO Plus + - Walmart.com" → "Pokémon GO Plus +", "… 660416｜PChome商店街" →
 * "… 660416". The last part names the site when it holds the host's main label or is the
 * page's og:site_name; a first part only when it is the site's name alone ("Walmart.com |
 * …"), since brands' own sites begin product names with the brand ("Nintendo Switch - …").
 */
export function trimSiteName(title: string, url: string, siteName?: string): string {
  const site = letters(siteLabel(url));
  const named = letters(siteName ?? '');
  const isSite = (p: string) =>
    (site.length >= 3 && (p === site || (p.startsWith(site) && p.length - site.length <= 5))) ||
    (named.length >= 2 && p === named);
  const parts = title.split(/(\s+[|–—·-]\s+|\s+::\s+|\s*｜\s*)/);
  // parts alternate text, separator, text…
  let from = 0;
  let to = parts.length - 1;
  const last = letters(parts[to]);
  if (to >= 2 && last && (isSite(last) || (site.length >= 3 && last.includes(site)))) to -= 2;
  if (to - from >= 2 && isSite(letters(parts[from]))) from += 2;
  const kept = parts
    .slice(from, to + 1)
    .join('')
    .trim();
  return kept.length >= 3 ? kept : title;
}

/** A heading that is the site's logo: its words are one link to the home page. */
function isLogoHeading(el: Element, baseUrl: string): boolean {
  const link = findFirst(el, (n) => n.name === 'a');
  if (!link) return false;
  let home: boolean;
  try {
    const u = new URL(link.attribs.href ?? '', baseUrl);
    home = u.pathname === '/' && !u.search && u.origin === new URL(baseUrl).origin;
  } catch {
    return false;
  }
  return home && collapse(textOf(link)) === collapse(textOf(el));
}

export function withoutSiteName(title: string, url: string): string {
  const site = siteLabel(url);
  const parts = title
    .split(/\s+[|–—:-]\s+|:\s+/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length < 2 || !site) return title;
  const kept = parts.filter(
    (p) =>
      !p
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')
        .includes(site.toLowerCase().replace(/[^a-z0-9]/g, '')),
  );
  if (!kept.length || kept.length === parts.length) return title;
  return kept.reduce((a, b) => (b.length > a.length ? b : a));
}
