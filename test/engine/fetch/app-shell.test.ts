/**
 * The "is this page drawn by JavaScript?" check that every `render: auto` scrape asks: it
 * counts the body's visible text only as far as its verdicts need (bot-wall.ts
 * visibleTextLength). Its verdicts must be those of the whole-text rule it replaced, which is
 * written out here as the reference — on pages written here and on every shared real page.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHtml } from '../../../bench/lib/fixtures.js';
import { visibleText, visibleTextLength } from '../../../src/engine/fetch/bot-wall.js';
import { looksLikeAppShell } from '../../../src/engine/fetch/page.js';

/** The rule as it was: the body's whole visible text, built as a string. */
function reference(html: string): boolean {
  if (html.length > 2_000_000) return false;
  const text = visibleText(/<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html);
  const scripts = (
    html.match(/<script\b(?![^>]*type=["']?(?:application\/(?:ld\+)?json|text\/template))[^>]*>/gi) ?? []
  ).length;
  if (text.length < 200 && scripts > 0) return true;
  return (
    /<noscript>[^<]*(?:enable javascript|requires javascript|need to enable javascript)/i.test(html) &&
    text.length < 1000
  );
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const SHELL = `<!doctype html><html><head><title>App</title><script src="/bundle.js"></script></head><body><div id="root"></div><script>window.__STATE__={"a":"${'x'.repeat(5000)}"}</script></body></html>`;
const ARTICLE = `<html><head><script src="/analytics.js"></script></head><body><article><h1>Title</h1><p>${words(400)}</p></article></body></html>`;
const NOSCRIPT = `<html><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="app"><p>${words(60)}</p></div></body></html>`;
const JSON_ONLY = `<html><head><script type="application/ld+json">{"@type":"Article"}</script></head><body><p>Short.</p></body></html>`;
const TEXT_OUTSIDE_BODY = `<html><head><script src="/x.js"></script></head><body><div id="root"></div></body></html><p>${words(300)}</p>`;
const NO_BODY = `<script src="/x.js"></script><div>${'  spaced \n\t text '.repeat(20)}</div>`;
const STYLED = `<html><body><style>${'.a{color:red}'.repeat(500)}</style><template><p>${words(300)}</p></template><script>var a = "</div>";</script><p>${words(30)}</p><script src="/app.js"></script></body></html>`;

describe('looksLikeAppShell', () => {
  it('tells a JavaScript shell from a page with text, as the whole-text rule did', () => {
    const cases: [string, string, boolean][] = [
      ['a root div and a bundle', SHELL, true],
      ['an article with an analytics script', ARTICLE, false],
      ['a noscript plea over a little text', NOSCRIPT, true],
      ['JSON-LD only: nothing runs', JSON_ONLY, false],
      ["text after </body> is not the body's", TEXT_OUTSIDE_BODY, true],
      ['no body element: the whole page counts', NO_BODY, false],
      ['style, template and script text are not visible', STYLED, true],
    ];
    for (const [what, html, shell] of cases) {
      expect(looksLikeAppShell(html), what).toBe(shell);
      expect(reference(html), what).toBe(shell);
    }
  });

  it('counts visible text as visibleText does, and no further than asked', () => {
    for (const html of [
      SHELL,
      ARTICLE,
      NOSCRIPT,
      JSON_ONLY,
      NO_BODY,
      STYLED,
      '<p>a  b</p>\n<p> c </p>',
      '< a > b <> c',
      '<script>x',
    ]) {
      const full = visibleText(html).length;
      expect(visibleTextLength(html, Infinity)).toBe(full);
      expect(visibleTextLength(html, 50)).toBe(Math.min(full, 50));
    }
    // Between offsets: the body's text only.
    const html = '<p>head text</p><body><p>only this</p></body>';
    expect(visibleTextLength(html, 100, html.indexOf('<body>') + 6, html.indexOf('</body>'))).toBe('only this'.length);
  });

  const ROOT = resolve(__dirname, '../../../../shared/fixtures');
  const present = existsSync(ROOT);
  if (!present) console.warn(`skipping the real-page comparison: ${ROOT} is absent`);
  it.skipIf(!present)("gives the whole-text rule's verdict on every shared real page", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir)) {
        const p = join(dir, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (/^(source|page)\.html(\.gz)?$/.test(e)) files.push(p);
      }
    };
    walk(ROOT);
    expect(files.length).toBeGreaterThan(500);
    for (const f of files) {
      const html = readHtml(f);
      expect(looksLikeAppShell(html), f).toBe(reference(html));
    }
  });
});
