/**
 * Identifiers in the page's URL (`/dp/B07FW264WL`, `/p/12345.html`, `?sku=…`), kept only
 * when the same token also appears in the page itself, so a slug word is never taken for one.
 */
import { type Candidate } from '../candidate.js';

export function urlCandidates(url: string, html: string | undefined, out: Candidate[]): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  const tokens = new Set<string>();
  for (const [k, v] of u.searchParams)
    if (/^(?:sku|id|pid|productid|item|itemid|product|article|art|code)$/i.test(k) && /^[A-Za-z0-9_-]{3,40}$/.test(v))
      tokens.add(v);
  // Later segments name the item, earlier ones its categories: read from the end.
  for (const seg of u.pathname.split('/').reverse()) {
    const s = seg.replace(/\.(?:html?|aspx?|php|jsp)$/i, '');
    // Whole segments that look like ids (digits, or mixed letters+digits), and the id at
    // the end of a slug ("blue-shirt-12345", "shirt-w712550a").
    if (/^(?=.*\d)[A-Za-z0-9_-]{4,}$/.test(s) && !/^\d{4}$/.test(s) && !s.includes('--')) {
      const tail = /(?:^|[-_])((?=[A-Za-z]*\d)[A-Za-z0-9]{4,30})$/.exec(s);
      const id = /^[A-Za-z0-9]{4,40}$/.test(s) ? s : tail?.[1];
      if (id && looksLikeId(id)) tokens.add(id);
    }
  }
  // "-p400105394.html": a one- or two-letter marker before the number the shop uses; also
  // several in one segment ("c5780a200532255": category 5780, ad 200532255).
  const quoted = (d: string) =>
    !!html && (html.includes(`"${d}"`) || html.includes(`'${d}'`) || html.includes(`>${d}<`));
  for (const t of [...tokens]) {
    if (!/^(?:[a-z]{1,2}\d+){1,3}$/i.test(t)) continue;
    const numbers = [...t.matchAll(/[a-z]{1,2}(\d{5,})/gi)].map((m) => m[1]).filter(quoted);
    if (!numbers.length) continue;
    tokens.delete(t);
    for (const d of numbers) tokens.add(d);
  }
  let order = 0;
  for (const t of tokens) {
    // Confirmed by the page: quoted as a value, or repeated (image paths, form fields).
    if (html && !containsOutsideUrl(html, t) && countOf(html, t, 2) < 2) continue;
    out.push({ path: ['urlid'], value: t, kind: 'url', source: 'url', order: order++, confidence: 0.35 });
  }
}

function containsOutsideUrl(html: string, token: string): boolean {
  let i = html.indexOf(token);
  let seen = 0;
  while (i >= 0 && seen < 50) {
    const before = html.slice(Math.max(0, i - 1), i);
    // Inside a link or path it says nothing; as a value (quoted, in text) it does.
    if (!/[/=-]/.test(before)) return true;
    i = html.indexOf(token, i + token.length);
    seen++;
  }
  return false;
}

/** Digits-only (5+), or codes in capitals (B07FW264WL), or mostly digits; not slug words like "13ftx17ft". */
function looksLikeId(t: string): boolean {
  if (/^\d{5,}$/.test(t)) return true;
  const digits = (t.match(/\d/g) ?? []).length;
  return /^[A-Z0-9]+$/.test(t) ? digits >= 2 && t.length >= 6 : digits / t.length >= 0.5;
}

function countOf(html: string, token: string, max: number): number {
  let n = 0;
  for (let i = html.indexOf(token); i >= 0 && n < max; i = html.indexOf(token, i + token.length)) n++;
  return n;
}

/** Id-like tokens of a URL, for corroborating identifiers found in the page. */
export function urlTokens(url: string): Set<string> {
  const out = new Set<string>();
  try {
    const u = new URL(url);
    for (const part of `${u.pathname} ${[...u.searchParams.values()].join(' ')}`.split(/[^A-Za-z0-9]+/))
      if (part.length >= 4 && /\d/.test(part)) out.add(part.toLowerCase());
  } catch {
    // No URL, no tokens.
  }
  return out;
}
