import { isElement, isTextNode, type AnyNode, type Element } from './dom.js';

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*(?:;|$)/i;
// Also a library's namespaced form of "hidden": a short prefix (a-hidden, aok-hidden, g-hdn,
// vjs-hidden, is-hidden); longer compounds (overflow-hidden, field--label-hidden, hidden-xs)
// are layout or responsive classes, not hidden content.
const HIDDEN_CLASS =
  /(?:^|\s)(?:(?:[a-z]{1,3}-)?(?:hidden|hdn)|d-none|(?:[a-z0-9]+-)?(?:sr-only|visually-hidden)|screen-reader-text|visuallyhidden|a11y-hidden|hide)(?:\s|$)/i;

/** Boxes shown only on hover or click: a tooltip's or a person card's text is not the page's. */
const POPUP_CLASS =
  /(?:^|\s)(?:[a-z]-)?(?:(?:tooltip|popover|hovercard)|(?:tooltip|popover|hovercard|rollover)(?:[-_][a-z]+)*[-_](?:block|content|inner|body|box|text|card|preload))(?=\s|$)/i;

/** Whether an element is invisible to a reader (and so is not content). */
export function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined) return true;
  if (a['aria-hidden'] === 'true' && el.name !== 'img' && el.name !== 'figure' && el.name !== 'picture') return true;
  if (a.style && HIDDEN_STYLE.test(a.style)) return true;
  if (a.class && HIDDEN_CLASS.test(a.class)) return true;
  if (a.class && POPUP_CLASS.test(a.class)) return true;
  return false;
}

/** Text a reader sees: hidden elements (see isHidden), scripts and styles left out. */
export function visibleTextOf(node: AnyNode): string {
  if (isTextNode(node)) return node.data;
  if (!isElement(node) || node.name === 'script' || node.name === 'style' || isHidden(node)) return '';
  let s = '';
  for (const c of node.children) s += visibleTextOf(c);
  return s;
}

/** Whether the element or one of its ancestors is hidden. */
export function isHiddenInPage(el: Element): boolean {
  for (let n: Element | null = el; n && isElement(n); n = n.parent as Element | null) if (isHidden(n)) return true;
  return false;
}
