/**
 * Label/value pairs a person reads: `<dt>SKU</dt><dd>123</dd>`, `<th>Brand</th><td>Acme</td>`,
 * `<span>Item #</span><span>123</span>`, and "Label: value" text in short elements.
 */
import type { Document, Element } from '../../document/dom.js';
import { collapse, elements, findFirst, isElement, textOf } from '../../document/dom.js';
import { norm, type Candidate } from '../candidate.js';

const LABEL_MAX = 40;
const VALUE_MAX = 200;
const LABEL_VALUE = /^([\p{L}][\p{L}\p{N} .#/-]{0,38}?)\s*[:：]\s*(\S.*)$/u;
const TEXT_HOSTS = new Set(['p', 'li', 'div', 'span', 'td', 'dd', 'strong', 'b', 'small', 'label']);

/**
 * Names a label gives its value: itself, and each alternative of a compound label
 * ("Make/Manufacturer", "SKU / Item #" are a brand and a code).
 */
function labelNames(label: string): string[] {
  const whole = norm(label);
  const parts = label
    .split(/\s*\/\s*/)
    .map(norm)
    .filter((p) => p && p !== whole);
  return parts.length > 1 ? [whole, ...parts] : [whole];
}

/** The value after a label: the next element, or the text that follows it (`<b>Code - </b>123`). */
function nextValue(el: Element): { node: Element; text: string } | undefined {
  for (let n = el.next; n; n = n.next) {
    if (isElement(n)) return { node: n, text: collapse(textOf(n)) };
    if (n.type === 'text') {
      const text = collapse((n as unknown as { data: string }).data);
      if (text) return el.parent && isElement(el.parent) ? { node: el.parent, text } : undefined;
    }
  }
  return undefined;
}

/**
 * @param wanted normalised names the schema's fields answer to: a paragraph or div is a
 * label only when its whole text is one of them (`<p>Výrobca</p><p>ANPIX</p>`); any short
 * span, dt, th or label may be one.
 */
export function labelCandidates(doc: Document, out: Candidate[], wanted?: Set<string>): void {
  let order = 0;
  for (const el of elements(doc)) {
    order++;
    const inline = el.children.length <= 2 && (el.name === 'span' || el.name === 'strong' || el.name === 'b');
    if (!inline && !TEXT_HOSTS.has(el.name) && el.name !== 'dt' && el.name !== 'th' && el.name !== 'label') continue;
    const own = collapse(textOf(el));
    // (Collapsed text loses at most " : " to the strip: longer text is no label either way.)
    const label = own.length <= LABEL_MAX + 3 ? own.replace(/\s*[:：#–-]?\s*$/, '') : own;
    const block =
      (el.name === 'p' || el.name === 'div') &&
      el.children.length <= 2 &&
      label.length <= LABEL_MAX &&
      !!wanted?.has(norm(label));
    const labelHost = el.name === 'dt' || el.name === 'th' || el.name === 'label' || inline || block;
    // "Code: 73556" in one span is a whole pair, not the label of whatever follows it.
    const pair = own.length <= VALUE_MAX + LABEL_MAX ? LABEL_VALUE.exec(own) : null;
    if (!pair && labelHost) {
      if (!label || label.length > LABEL_MAX) continue;
      const next = nextValue(el);
      if (!next) continue;
      const sib = next.node;
      if ((el.name === 'dt' && sib.name !== 'dd') || (el.name === 'th' && sib.name !== 'td')) continue;
      const value = next.text.replace(/^[:：–-]\s*/, '');
      if (value && value.length <= VALUE_MAX) {
        for (const name of labelNames(label)) {
          out.push({
            path: [name],
            value,
            kind: 'label',
            source: `label:${label}`,
            order,
            confidence: el.name === 'dt' || el.name === 'th' ? 0.75 : 0.65,
            el: sib,
            raw: value,
          });
        }
      }
      continue;
    }
    const m = pair;
    if (m)
      for (const name of labelNames(m[1]))
        out.push({
          path: [name],
          value: m[2],
          kind: 'text',
          source: `text:${m[1]}`,
          order,
          confidence: 0.6,
          el,
          raw: m[2],
        });
  }
}

/** One "Label: value" statement of a description, up to the punctuation that ends it. */
const DESCRIPTION_PAIR =
  /(?<![\p{L}\p{N}])([\p{L}][\p{L}\p{N}]*(?: [\p{L}\p{N}]+){0,2})\s*[:：]\s*([^。；;|｜◎•\n]{1,60}?)(?=[。；;|｜◎•\n]|\.\s|$)/gu;

/**
 * "Label: value" statements in the page's description meta: shops write "直購價：$2320。…"
 * or "Price: $19.99 | Free delivery" there. Weaker than labels on the page itself, so they
 * count where the page's own markup says nothing.
 */
export function descriptionCandidates(doc: Document, out: Candidate[]): void {
  const head = findFirst(doc, (e) => e.name === 'head');
  if (!head) return;
  for (const el of elements(head)) {
    if (el.name !== 'meta') continue;
    const key = (el.attribs.name ?? el.attribs.property ?? '').toLowerCase();
    if (key !== 'description' && key !== 'og:description') continue;
    for (const m of (el.attribs.content ?? '').matchAll(DESCRIPTION_PAIR)) {
      const value = m[2].trim();
      if (value)
        for (const name of labelNames(m[1]))
          out.push({
            path: [name],
            value,
            kind: 'text',
            source: `meta:${key}:${m[1]}`,
            order: 0,
            confidence: 0.45,
            raw: value,
          });
    }
  }
}

/** "Label: value" lines of plain text (text and PDF pages). */
export function textLineCandidates(text: string, out: Candidate[]): void {
  let order = 0;
  for (const m of text.matchAll(/^[ \t]*([\p{L}][\p{L}\p{N} .#/-]{0,38}?)[ \t]*[:：][ \t]*(\S.*)$/gmu)) {
    out.push({
      path: [norm(m[1])],
      value: m[2].trim(),
      kind: 'text',
      source: `text:${m[1].trim()}`,
      order: order++,
      confidence: 0.6,
      raw: m[2],
    });
  }
}
