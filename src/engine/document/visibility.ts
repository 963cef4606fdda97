import type { Element } from './dom.js';

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*(?:;|$)/i;
const HIDDEN_CLASS = /(?:^|\s)(?:hidden|d-none|sr-only|screen-reader-text|visually-hidden|visuallyhidden|a11y-hidden|u-hidden|is-hidden|hide)(?:\s|$)/i;

/** Boxes shown only on hover or click: a tooltip's or a person card's text is not the page's. */
const POPUP_CLASS = /(?:^|\s)(?:(?:tooltip|popover|hovercard)|(?:tooltip|popover|hovercard|rollover)(?:[-_][a-z]+)*[-_](?:block|content|inner|body|box|text|card))(?=\s|$)/i;

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
