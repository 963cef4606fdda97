/** What markdown copies from the page rather than renders: TeX of formulas (MathML, MathJax scripts) and pictures. */
import { BR, collapseWs, escapeUrl } from './markdown-text.js';
import type { Element } from './dom.js';
import { absoluteUrl, isElement, isTextNode, textOf } from './dom.js';

/** MathML as TeX when the page carries it (annotation or alttext), else its plain text. */
export function renderMath(el: Element): string {
  let tex = el.attribs.alttext;
  for (const a of elementsIn(el)) {
    if (a.name === 'annotation' && /tex/i.test(a.attribs.encoding ?? '')) tex = textOf(a);
  }
  const block = el.attribs.display === 'block';
  if (tex && tex.trim()) return block ? `${BR}$$${tex.trim()}$$${BR}` : `$${tex.trim()}$`;
  return collapseWs(textOf(el)).trim();
}

function elementsIn(el: Element): Element[] {
  const out: Element[] = [];
  const stack = [...el.children];
  while (stack.length) {
    const c = stack.pop()!;
    if (isElement(c)) {
      out.push(c);
      stack.push(...c.children);
    }
  }
  return out;
}

/** MathJax 2 keeps TeX in <script type="math/tex">. */
export const isTexScript = (el: Element) => el.name === 'script' && /^math\/tex/i.test(el.attribs.type ?? '');

export function texScript(el: Element): string {
  let tex = '';
  for (const c of el.children) if (isTextNode(c)) tex += c.data;
  tex = tex.trim();
  if (!tex) return '';
  return /mode=display/i.test(el.attribs.type ?? '') ? `${BR}$$${tex}$$${BR}` : `$${tex}$`;
}

const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-srcset', 'data-lazy', 'data-url'];

function imageSource(img: Element): string | undefined {
  const src = img.attribs.src;
  if (src && !src.startsWith('data:')) return src;
  for (const a of LAZY_SRC) {
    const v = img.attribs[a];
    if (v && !v.startsWith('data:')) return v.trim().split(/\s+/)[0];
  }
  const srcset = img.attribs.srcset;
  if (srcset) return srcset.trim().split(/\s+/)[0];
  return undefined;
}

export function renderImage(img: Element, ctx: { baseUrl: string }): string {
  const src = absoluteUrl(imageSource(img), ctx.baseUrl);
  if (!src) return '';
  const alt = collapseWs(img.attribs.alt ?? '')
    .trim()
    .replace(/[[\]]/g, '');
  return `![${alt}](${escapeUrl(src)})`;
}
