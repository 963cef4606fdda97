/**
 * Embedded application state: `__NEXT_DATA__`, `__NUXT_DATA__`, `window.__INITIAL_STATE__ =`,
 * `__PRELOADED_STATE__`, `__APOLLO_STATE__` and other JSON in scripts. Pages carry many
 * products there (recommendations, recently viewed), so candidates are numbered by their
 * breadth-first position and trusted less than markup meant for machines.
 */
import type { Document } from '../../document/dom.js';
import { elements, scriptText } from '../../document/dom.js';
import { norm, type Candidate } from '../candidate.js';
import { GENERIC_NAMES } from '../vocabulary.js';

const ASSIGN =
  /(?:window\.|var\s+|let\s+|const\s+)?(__[A-Z][A-Z0-9_]*__|__NEXT_DATA__|__NUXT__|__APOLLO_STATE__|__PRELOADED_STATE__|__INITIAL_STATE__|__INITIAL_DATA__|__APP_STATE__)\s*=\s*/;
const MAX_VALUES = 20_000;
const MAX_SCRIPT = 3_000_000;

const PAIR =
  /["']?([A-Za-z_$][\w$]{1,40})["']?\s*:\s*(?:"((?:[^"\\\n]|\\.){1,200})"|'((?:[^'\\\n]|\\.){1,200})'|(-?\d+(?:\.\d+)?)(?=\s*[,}\]]))/g;

export function appStateCandidates(doc: Document, out: Candidate[], wanted: string[] = []): void {
  let budget = MAX_VALUES;
  const wantedSet = new Set(wanted);
  let pairOrder = 0;
  const pairsFrom = out.length;
  for (const el of elements(doc)) {
    if (el.name !== 'script') continue;
    const type = (el.attribs.type ?? '').toLowerCase();
    if (type.includes('ld+json')) continue;
    const text = scriptText(el);
    if (text.length < 20 || text.length > MAX_SCRIPT) continue;
    let data: unknown;
    let name = el.attribs.id ?? 'script';
    if (type === 'application/json' || el.attribs.id === '__NEXT_DATA__') {
      data = tryParse(text);
    } else {
      const m = ASSIGN.exec(text);
      if (m) {
        name = m[1];
        data = tryParse(balancedJson(text, m.index + m[0].length));
      }
    }
    if (data === undefined || typeof data !== 'object' || data === null) {
      // Not one JSON document: analytics objects (dataLayer, Shopify meta, gtag) still carry
      // "sku": "…", price: 12.5 pairs; read the ones the schema asks about.
      if (!wantedSet.size || type === 'text/template' || type === 'text/x-template') continue;
      let found = 0;
      for (const m of text.matchAll(PAIR)) {
        const key = norm(m[1]);
        if (!wantedSet.has(key) || GENERIC_NAMES.has(key)) continue;
        const value = m[2] ?? m[3] ?? m[4];
        if (value === undefined || value === '') continue;
        out.push({
          path: [key],
          value: m[4] !== undefined ? Number(m[4]) : value,
          kind: 'app-state',
          source: `script:${m[1]}`,
          order: pairOrder++,
          confidence: 0.45,
        });
        if (++found > 500) break;
      }
      continue;
    }
    // Breadth-first: the page's own item sits shallower than lists of other items.
    const queue: [unknown, string[]][] = [[data, []]];
    let position = 0;
    while (queue.length && budget > 0) {
      const [v, path] = queue.shift()!;
      if (path.length > 12) continue;
      if (Array.isArray(v)) {
        if (v.length && v.every((x) => x === null || typeof x !== 'object')) {
          push(path, v);
        } else v.slice(0, 50).forEach((x) => queue.push([x, path]));
      } else if (v && typeof v === 'object') {
        const pair = namedPair(v as Record<string, unknown>);
        if (pair && wantedSet.has(pair.label)) {
          budget--;
          out.push({
            path: [pair.label],
            value: pair.value,
            kind: 'app-state',
            source: `app-state:${name}[${pair.shown}]`,
            order: position++,
            confidence: 0.6,
          });
        }
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) queue.push([x, [...path, norm(k)]]);
      } else if (path.length && v !== null && v !== '') push(path, v);
    }
    function push(path: string[], value: unknown) {
      budget--;
      out.push({
        path: path.slice(-3),
        value,
        kind: 'app-state',
        source: `app-state:${name}.${path.slice(-3).join('.')}`,
        order: position++,
        confidence: 0.55,
      });
    }
  }
  demoteListedPairs(out, pairsFrom);
}

const PAIR_NAME_KEYS = [
  'attrname',
  'name',
  'label',
  'key',
  'title',
  'displayname',
  'specname',
  'propertyname',
  'attributename',
];
const PAIR_VALUE_KEYS = ['attrvalue', 'value', 'val', 'displayvalue', 'specvalue', 'propertyvalue', 'attributevalue'];

/**
 * A specification written as data: `{"attrName": "Brand Name", "attrValue": "YONGLI"}`,
 * `{"name": "Brand", "value": "Acme"}` — a label and its value, as in a table on the page.
 */
function namedPair(o: Record<string, unknown>): { label: string; shown: string; value: string | number } | undefined {
  const keys = Object.keys(o);
  if (keys.length > 8) return undefined;
  let shown: unknown;
  let value: unknown;
  for (const k of keys) {
    const n = norm(k);
    if (shown === undefined && PAIR_NAME_KEYS.includes(n)) shown = o[k];
    else if (value === undefined && PAIR_VALUE_KEYS.includes(n)) value = o[k];
  }
  if (typeof shown !== 'string' || !shown.trim() || shown.length > 40) return undefined;
  if (!(typeof value === 'string' && value.trim() && value.length <= 200) && typeof value !== 'number')
    return undefined;
  return { label: norm(shown), shown: shown.trim(), value: typeof value === 'string' ? value.trim() : value };
}

/**
 * A key that analytics scripts repeat with many different values ("price": 169, 1200, 540…)
 * describes a list of products (impressions, recommendations), not the page's one item —
 * unless one value comes back again and again: that is the item the page tracks.
 */
function demoteListedPairs(out: Candidate[], from: number): void {
  const counts = new Map<string, Map<string, number>>();
  for (let i = from; i < out.length; i++) {
    const c = out[i];
    if (!c.source.startsWith('script:')) continue;
    const perValue = counts.get(c.path[0]) ?? new Map<string, number>();
    counts.set(c.path[0], perValue);
    perValue.set(String(c.value), (perValue.get(String(c.value)) ?? 0) + 1);
  }
  for (let i = from; i < out.length; i++) {
    const c = out[i];
    if (!c.source.startsWith('script:')) continue;
    const perValue = counts.get(c.path[0])!;
    if (perValue.size < 3) continue;
    const most = Math.max(...perValue.values());
    if (most < 2 || perValue.get(String(c.value))! < most) c.confidence *= 0.4;
  }
}

function tryParse(s: string | undefined): unknown {
  if (!s) return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** The JSON object or array literal starting at `from` (string-aware brace matching). */
export function balancedJson(text: string, from: number): string | undefined {
  const start = text.slice(from).search(/[[{]/);
  if (start < 0 || start > 20) return undefined;
  let i = from + start;
  const open = text[i];
  const close = open === '{' ? '}' : ']';
  let depth = 0;
  let inString = false;
  for (const begin = i; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === open || c === (open === '{' ? '[' : '{')) depth++;
    else if (c === close || c === (close === '}' ? ']' : '}')) {
      depth--;
      if (depth === 0) return text.slice(begin, i + 1);
    }
  }
  return undefined;
}
