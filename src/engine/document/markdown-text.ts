/**
 * Markdown's text runs: whitespace collapsed as a browser does, characters markdown would read
 * as syntax escaped, paragraph and line starts made safe (markdown.ts).
 */
import type { AnyNode, PipelineText } from './dom.js';

export const BR = '\u0000';
/** A run of hard breaks (and the spaces around them); breaks at the ends of a paragraph. */
const BREAK_RUN = new RegExp(`[ ${BR}]*${BR}[ ${BR}]*`, 'g');
const EDGE_BREAKS = new RegExp(`^[\\s${BR}]+|[\\s${BR}]+$`, 'g');

export const escapeUrl = (u: string) => u.replace(/[()\s]/g, (c) => encodeURIComponent(c));

const NEEDS_COLLAPSE = /[\t\n\r\f]| {2}/;
export const collapseWs = (s: string) => (NEEDS_COLLAPSE.test(s) ? s.replace(/[\t\n\r\f ]+/g, ' ') : s);

/** Escape characters that would otherwise turn text into markdown syntax. */
const NEEDS_ESCAPE = /[\\*`_<\u00a0]/;

/**
 * Anything collapsing or escaping might change (and \v, which collapsing in main-content's
 * scoring counts): most text has none. Main-content scoring tests every text node with it
 * and marks those without as plain, so markdown takes them as they are.
 */
const NEEDS_WORK = /[\t\n\v\f\r\\*`_<\u00a0]| {2}/;

/**
 * NEEDS_WORK.test(s). A long text (a paragraph) is searched for each character by indexOf
 * instead: V8 runs those as native scans, 1.6x faster than the regex's per-position
 * alternation on the bench site's text (~2.5 ns/char), and this reads every text node of
 * every page. Most text has a newline, found first.
 */
export function needsWork(s: string): boolean {
  if (s.length < 48) return NEEDS_WORK.test(s);
  return (
    s.includes('\n') ||
    s.includes('  ') ||
    s.includes('\t') ||
    s.includes('\r') ||
    s.includes('\u00a0') ||
    s.includes('*') ||
    s.includes('_') ||
    s.includes('`') ||
    s.includes('<') ||
    s.includes('\\') ||
    s.includes('\f') ||
    s.includes('\v')
  );
}

/** A text node as markdown; one that main-content scoring found plain as it is. */
export const textOfNode = (n: AnyNode & { data: string }) => ((n as PipelineText).plain ? n.data : textRun(n.data));

/** A text node as markdown: whitespace collapsed, syntax characters escaped. */
export const textRun = (s: string) => (needsWork(s) ? escapeText(collapseWs(s)) : s);

function escapeText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s
    .replace(/[\\*`]/g, '\\$&')
    .replace(/(^|[^\p{L}\p{N}])_|_(?=$|[^\p{L}\p{N}])/gu, (m) => m.replace('_', '\\_'))
    .replace(/<(?=[A-Za-z/!?])/g, '\\<')
    .replace(/\u00a0/g, ' ');
}

export function oneLine(s: string): string {
  return s.replaceAll(BR, ' ').replace(/\s+/g, ' ').trim();
}

/** Turn an inline run into a paragraph: collapse spaces, hard breaks, escape line starts. */
const LINE_START = /^(#{1,6} |>|[-+] |(\d+)([.)]) )/;

export function finishParagraph(run: string): string {
  if (!run) return '';
  if (!run.includes(BR)) {
    const t = run.replace(/ {2,}/g, ' ').trim();
    return LINE_START.test(t) ? escapeLineStart(t) : t;
  }
  let s = run.replace(/ {2,}/g, ' ');
  s = s.replace(BREAK_RUN, (m) => (m.split(BR).length > 2 ? '\n\n' : BR));
  s = s.replace(EDGE_BREAKS, '');
  if (!s) return '';
  s = s.replaceAll(BR, '  \n');
  return s.split('\n').map(escapeLineStart).join('\n');
}

function escapeLineStart(l: string): string {
  return l.replace(LINE_START, (m, _a, num, punct) => (num ? `${num}\\${punct} ` : `\\${m}`));
}
