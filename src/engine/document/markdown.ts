/**
 * DOM → GitHub-flavoured markdown, written against htmlparser2's tree so the page is parsed
 * once (bench:markdown measures it against Readability+Turndown). Blocks are rendered
 * recursively into arrays of strings and joined by blank lines; inline runs are collapsed
 * the way a browser collapses whitespace. Structure kept: headings, lists (nested,
 * numbered with `start`), tables (GFM), fenced code with language, block quotes, emphasis,
 * strike-through, images and links made absolute.
 */
import { BR, collapseWs, escapeUrl, finishParagraph, oneLine, textOfNode, textRun } from './markdown-text.js';
import { isTexScript, renderImage, renderMath, texScript } from './markdown-embeds.js';
import type { AnyNode, Element, ParentNode } from './dom.js';
import { absoluteUrl, isElement, isTextNode, textOf, HEADING_TAGS } from './dom.js';
import { isHidden } from './visibility.js';

export interface MarkdownOptions {
  /** URL that relative links and images are resolved against. */
  baseUrl: string;
}

export interface Ctx {
  baseUrl: string;
  inTable: boolean;
  inLink: boolean;
}

/** Elements never rendered: not content, or not representable as text. */
const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'title',
  'meta',
  'link',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'button',
  'input',
  'select',
  'option',
  'textarea',
  'video',
  'audio',
  'source',
  'track',
  'map',
  'area',
  'dialog',
]);

const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'nav',
  ...HEADING_TAGS,
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'hr',
  'address',
  'details',
  'summary',
  'center',
  'form',
  'fieldset',
  'legend',
  'body',
  'html',
  'hgroup',
  'caption',
  'menu',
  'picture',
]);

export function toMarkdown(root: ParentNode, options: MarkdownOptions): string {
  const ctx: Ctx = { baseUrl: options.baseUrl, inTable: false, inLink: false };
  const md = renderBlocks(root.children, ctx).join('\n\n');
  return md.replace(/\n{3,}/g, '\n\n').trim();
}

/** Whether a subtree holds block-level content (decides inline vs block rendering). */
function hasBlockDescendant(el: Element): boolean {
  for (const c of el.children) {
    if (!isElement(c)) continue;
    if (BLOCK.has(c.name)) return true;
    if (c.children.length && hasBlockDescendant(c)) return true;
  }
  return false;
}

function renderBlocks(nodes: readonly AnyNode[], ctx: Ctx): string[] {
  const out: string[] = [];
  let run = '';
  const flush = () => {
    const p = finishParagraph(run);
    if (p) out.push(p);
    run = '';
  };
  for (const n of nodes) {
    if (isTextNode(n)) {
      run += textOfNode(n);
      continue;
    }
    if (!isElement(n) || (SKIP.has(n.name) && !isTexScript(n)) || isHidden(n)) continue;
    if (
      BLOCK.has(n.name) ||
      (n.name === 'a' && hasBlockDescendant(n) && !ctx.inLink && blockLink(n, ctx, out, flush))
    ) {
      if (n.name === 'a') continue; // blockLink rendered it
      flush();
      for (const b of renderBlock(n, ctx)) if (b) out.push(b);
    } else {
      run += renderInline(n, ctx);
    }
  }
  flush();
  return out;
}

/** A link wrapping blocks (cards): render its blocks, linking the first heading or paragraph. */
function blockLink(a: Element, ctx: Ctx, out: string[], flush: () => void): boolean {
  const href = absoluteUrl(a.attribs.href, ctx.baseUrl);
  flush();
  const inner = renderBlocks(a.children, { ...ctx, inLink: true });
  if (inner.length && href) {
    const first = inner[0];
    const m = /^(#{1,6} )?([\s\S]*)$/.exec(first)!;
    if (!m[2].includes('\n') && !/^[>|`-]/.test(m[2])) inner[0] = `${m[1] ?? ''}[${m[2]}](${href})`;
  }
  out.push(...inner);
  return true;
}

function renderBlock(el: Element, ctx: Ctx): string[] {
  switch (el.name) {
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6': {
      const text = oneLine(renderInlineChildren(el, ctx));
      return text ? [`${'#'.repeat(Number(el.name[1]))} ${text}`] : [];
    }
    case 'p': {
      if (hasBlockDescendant(el)) return renderBlocks(el.children, ctx);
      const p = finishParagraph(renderInlineChildren(el, ctx));
      return p ? [p] : [];
    }
    case 'hr':
      return ['---'];
    case 'pre':
      return [renderPre(el)];
    case 'blockquote': {
      const inner = renderBlocks(el.children, ctx).join('\n\n');
      return inner
        ? [
            inner
              .split('\n')
              .map((l) => (l ? `> ${l}` : '>'))
              .join('\n'),
          ]
        : [];
    }
    case 'ul':
    case 'ol':
    case 'menu':
      return [renderList(el, ctx)].filter(Boolean);
    case 'li':
      return [renderListItem(renderBlocks(el.children, ctx), '- ')].filter(Boolean);
    case 'table':
      return renderTable(el, ctx);
    case 'dt': {
      const t = oneLine(renderInlineChildren(el, ctx));
      return t ? [`**${t}**`] : [];
    }
    case 'figcaption':
    case 'caption':
    case 'summary':
    case 'legend': {
      const t = finishParagraph(renderInlineChildren(el, ctx));
      return t ? [t] : [];
    }
    default:
      return renderBlocks(el.children, ctx);
  }
}

function renderList(list: Element, ctx: Ctx): string {
  // A table cell holds one line: its list items are separated by semicolons.
  if (ctx.inTable) {
    return list.children
      .filter((c): c is Element => isElement(c) && !isHidden(c))
      .map((c) => renderBlocks(c.children, ctx).join(' ').replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join('; ');
  }
  const ordered = list.name === 'ol';
  let n = ordered ? parseInt(list.attribs?.start ?? '1', 10) : 1;
  if (!Number.isFinite(n)) n = 1;
  const items: string[] = [];
  for (const c of list.children) {
    if (isTextNode(c)) {
      if (c.data.trim()) items.push(`- ${textRun(c.data).trim()}`);
      continue;
    }
    if (!isElement(c) || SKIP.has(c.name) || isHidden(c)) continue;
    if (c.name === 'ul' || c.name === 'ol') {
      // A list directly inside a list (invalid but common): nest it under the previous item.
      const nested = renderList(c, ctx);
      if (nested) items.push(indent(nested, '  '));
      continue;
    }
    const blocks = c.name === 'li' ? renderBlocks(c.children, ctx) : renderBlock(c, ctx);
    if (!blocks.length) continue;
    items.push(renderListItem(blocks, ordered ? `${n++}. ` : '- '));
  }
  return items.join('\n');
}

/** One list item: nested lists follow tightly, further paragraphs after a blank line. */
function renderListItem(blocks: string[], marker: string): string {
  if (!blocks.length) return '';
  let body = blocks[0];
  for (const b of blocks.slice(1)) body += (/^([-*+]|\d+\.) /.test(b) ? '\n' : '\n\n') + b;
  return marker + indent(body, ' '.repeat(marker.length)).slice(marker.length);
}

function indent(s: string, pad: string): string {
  return s
    .split('\n')
    .map((l) => (l ? pad + l : l))
    .join('\n');
}

const LANG_RE = /(?:^|\s)(?:lang(?:uage)?-|highlight-(?:source-)?|brush:\s*)([A-Za-z0-9_+#.-]+)/;

function codeLanguage(pre: Element): string {
  const code = pre.children.find((c): c is Element => isElement(c) && c.name === 'code');
  for (const el of [pre, code]) {
    if (!el) continue;
    const explicit = el.attribs['data-lang'] ?? el.attribs['data-language'];
    if (explicit && /^[\w+#.-]{1,30}$/.test(explicit)) return explicit.toLowerCase();
    const m = LANG_RE.exec(el.attribs.class ?? '');
    if (m) return m[1].toLowerCase();
  }
  const parentClass = (pre.parent && isElement(pre.parent) && pre.parent.attribs.class) || '';
  const m = LANG_RE.exec(parentClass);
  return m ? m[1].toLowerCase() : '';
}

function preText(node: AnyNode): string {
  if (isTextNode(node)) return node.data;
  if (!isElement(node)) return '';
  if (node.name === 'br') return '\n';
  if (SKIP.has(node.name) && node.name !== 'button') return '';
  let s = '';
  for (const c of node.children) s += preText(c);
  if (node.name === 'div' || node.name === 'p') s += s.endsWith('\n') ? '' : '\n';
  return s;
}

function renderPre(pre: Element): string {
  const text = preText(pre).replace(/^\n/, '').replace(/\s+$/, '');
  if (!text.trim()) return '';
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${codeLanguage(pre)}\n${text}\n${fence}`;
}

function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  const visit = (el: Element) => {
    for (const c of el.children) {
      if (!isElement(c)) continue;
      if (c.name === 'tr') rows.push(c);
      else if (c.name === 'thead' || c.name === 'tbody' || c.name === 'tfoot') visit(c);
    }
  };
  visit(table);
  return rows;
}

function renderTable(table: Element, ctx: Ctx): string[] {
  const rows = tableRows(table);
  const cellsOf = (tr: Element) =>
    tr.children.filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th'));
  const width = Math.max(0, ...rows.map((r) => cellsOf(r).reduce((w, c) => w + span(c), 0)));
  const nestedTable = rows.some((r) => cellsOf(r).some((c) => hasTag(c, 'table')));
  // Layout tables (one column, one row, or tables of tables) are containers, not data.
  if (ctx.inTable || nestedTable || width <= 1 || rows.length <= 1) {
    const out: string[] = [];
    const caption = table.children.find((c): c is Element => isElement(c) && c.name === 'caption');
    if (caption) out.push(...renderBlock(caption, ctx));
    for (const r of rows) for (const c of cellsOf(r)) out.push(...renderBlocks(c.children, ctx));
    return out;
  }
  const cellCtx = { ...ctx, inTable: true };
  const matrix = rows.map((r) => {
    const line: string[] = [];
    for (const c of cellsOf(r)) {
      const text = renderBlocks(c.children, cellCtx).join(' ').replace(/\n+/g, ' ').replace(/\|/g, '\\|').trim();
      line.push(text);
      for (let i = 1; i < span(c); i++) line.push('');
    }
    while (line.length < width) line.push('');
    return line;
  });
  const out: string[] = [];
  const caption = table.children.find((c): c is Element => isElement(c) && c.name === 'caption');
  if (caption) out.push(...renderBlock(caption, ctx));
  const fmt = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [fmt(matrix[0]), fmt(matrix[0].map(() => '---')), ...matrix.slice(1).map(fmt)];
  out.push(lines.join('\n'));
  return out;
}

function span(c: Element): number {
  const n = parseInt(c.attribs.colspan ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, 50) : 1;
}

function hasTag(el: Element, tag: string): boolean {
  for (const c of el.children) if (isElement(c) && (c.name === tag || hasTag(c, tag))) return true;
  return false;
}

function renderInlineChildren(el: Element, ctx: Ctx): string {
  let s = '';
  for (const c of el.children) s += renderInlineNode(c, ctx);
  return s;
}

function renderInlineNode(n: AnyNode, ctx: Ctx): string {
  if (isTextNode(n)) return textOfNode(n);
  if (!isElement(n) || (SKIP.has(n.name) && !isTexScript(n)) || isHidden(n)) return '';
  return renderInline(n, ctx);
}

function wrap(inner: string, mark: string): string {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner)!;
  if (!m[2] || m[2] === BR) return inner.replaceAll(BR, ' ');
  return `${m[1]}${mark}${m[2]}${mark}${m[3]}`;
}

function renderInline(el: Element, ctx: Ctx): string {
  switch (el.name) {
    case 'br':
      return ctx.inTable ? ' ' : BR;
    case 'strong':
    case 'b':
      return wrap(renderInlineChildren(el, ctx), '**');
    case 'em':
    case 'i':
    case 'cite':
    case 'dfn':
      return wrap(renderInlineChildren(el, ctx), '*');
    case 'del':
    case 's':
    case 'strike':
      return wrap(renderInlineChildren(el, ctx), '~~');
    case 'code':
    case 'kbd':
    case 'samp':
    case 'tt': {
      const t = collapseWs(textOf(el));
      if (!t.trim()) return t;
      const ticks = (t.match(/`+/g) ?? []).reduce((m, r) => Math.max(m, r.length), 0);
      const fence = '`'.repeat(ticks + 1);
      const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
      return `${fence}${pad}${t.trim()}${pad}${fence}`;
    }
    case 'a': {
      const inner = renderInlineChildren(el, { ...ctx, inLink: true });
      const href = absoluteUrl(el.attribs.href, ctx.baseUrl);
      const text = inner.replaceAll(BR, ' ');
      if (!href || ctx.inLink || !text.trim()) return text;
      const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
      return `${m[1]}[${m[2]}](${escapeUrl(href)})${m[3]}`;
    }
    case 'img':
      return renderImage(el, ctx);
    case 'math':
      return renderMath(el);
    case 'script':
      return isTexScript(el) ? texScript(el) : '';
    case 'sup':
      return renderInlineChildren(el, ctx);
    case 'q':
      return `“${renderInlineChildren(el, ctx)}”`;
    default:
      if (BLOCK.has(el.name)) {
        // Block inside inline context: keep its words apart from the neighbours'.
        const inner = renderBlocks(el.children, ctx).join(' ');
        return inner ? ` ${inner} ` : '';
      }
      return renderInlineChildren(el, ctx);
  }
}
