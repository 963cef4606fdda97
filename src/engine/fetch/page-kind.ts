/** What a fetched body is (HTML, text, PDF, or none the pipeline reads), and whether HTML is a script shell to render. */
import { visibleTextLength } from './bot-wall.js';
import type { PageKind } from './page-model.js';

export function kindOf(contentType: string, body: Buffer): PageKind | undefined {
  const ct = contentType.split(';')[0].trim().toLowerCase();
  if (ct === 'text/html' || ct === 'application/xhtml+xml') return 'html';
  if (ct === 'application/pdf' || (!ct && body.subarray(0, 5).toString('latin1') === '%PDF-')) return 'pdf';
  if (
    ct.startsWith('text/') ||
    ct === 'application/json' ||
    ct.endsWith('+json') ||
    ct === 'application/xml' ||
    ct.endsWith('+xml')
  )
    return ct.includes('xml') && looksLikeHtml(body) ? 'html' : 'text';
  if (!ct || ct === 'application/octet-stream') {
    if (body.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
    if (looksLikeHtml(body)) return 'html';
  }
  return undefined;
}

function looksLikeHtml(body: Buffer): boolean {
  return /^\s*(?:<!doctype html|<html|<head|<body|<!--)/i.test(body.subarray(0, 512).toString('latin1'));
}

/** Little visible text but a script bundle: the content is drawn by JavaScript. */
export function looksLikeAppShell(html: string): boolean {
  if (html.length > 2_000_000) return false;
  // The body's text (all of the page without a body element), counted only as far as the
  // verdicts need: every page is asked this, and nearly every one has text enough at once.
  const open = /<body[^>]*>/i.exec(html);
  const end = open ? lastCloseBody(html) : -1;
  const [from, to] = open && end >= open.index + open[0].length ? [open.index + open[0].length, end] : [0, html.length];
  const text = visibleTextLength(html, 1000, from, to);
  if (text >= 1000) return false;
  // Only scripts that run count: JSON-LD and JSON data blocks draw nothing.
  const scripts = (
    html.match(/<script\b(?![^>]*type=["']?(?:application\/(?:ld\+)?json|text\/template))[^>]*>/gi) ?? []
  ).length;
  if (text < 200 && scripts > 0) return true;
  return /<noscript>[^<]*(?:enable javascript|requires javascript|need to enable javascript)/i.test(html);
}

/** Where the last `</body>` (any case) starts, or -1. */
function lastCloseBody(html: string): number {
  const re = /<\/body>/gi;
  let last = -1;
  for (let m = re.exec(html); m; m = re.exec(html)) last = m.index;
  return last;
}
