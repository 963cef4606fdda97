/**
 * The skipping tokenizer must hand the parser exactly what htmlparser2's own tokenizer
 * does: every callback, with the same arguments, in the same order — on tricky markup
 * written here, on generated markup, and on the real pages of shared/fixtures.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Parser, Tokenizer } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { FastTokenizer } from '../../../src/engine/document/fast-tokenizer.js';
import { FIXTURES, readHtml } from '../../../bench/lib/fixtures.js';

/** Every parser event as a line, from a parse with the given tokenizer, fed in `chunks`. */
function events(html: string, T: typeof Tokenizer, chunks = 1): string[] {
  const out: string[] = [];
  const log =
    (name: string) =>
    (...args: unknown[]) =>
      void out.push(`${name} ${JSON.stringify(args)}`);
  const parser = new Parser(
    {
      onopentag: log('open'),
      onclosetag: log('close'),
      ontext: log('text'),
      oncomment: log('comment'),
      oncdatastart: log('cdata'),
      onprocessinginstruction: log('pi'),
      onattribute: log('attr'),
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, Tokenizer: T },
  );
  const size = Math.ceil(html.length / chunks) || 1;
  for (let i = 0; i < html.length; i += size) parser.write(html.slice(i, i + size));
  parser.end();
  return out;
}

const same = (html: string, chunks = 1) =>
  expect(events(html, FastTokenizer, chunks)).toEqual(events(html, Tokenizer, chunks));

const TRICKY = [
  '<p>plain text &amp; an entity, &notanentity; &#x41;&#65; &copy &lt;tag&gt; a < b > c</p>',
  '<a href="/x?a=1&amp;b=2&c=3" title=\'it&apos;s "quoted"\' data-x=unquoted&amp;y>link</a>',
  '<div class="a b" id=x hidden><img src="a.png" alt="a > b"/><br/><input value="&quot;"></div>',
  '<script>if (a < b && c > d) { x = "</div>"; }</script><p>after</p><style>p > a { color: red }</style>',
  '<title>Title &amp; more &lt;b&gt;</title><textarea>raw <b>bold</b> &amp;</textarea>',
  '<!-- a comment with <tags> & entities --><!----><!-->short<!doctype html><?xml version="1.0"?>',
  '<![CDATA[ some <cdata> ]]><svg><![CDATA[ x ]]></svg><math><mi>x</mi></math>',
  '</p><p>unclosed <b>bold <i>both</b> italic</i> text</a></div>< p>not a tag</ p>',
  '<p>trailing &amp',
  '<p>trailing &',
  '<a href="unterminated',
  '<div <p>>x</p>',
  'text only, no tags at all & one ampersand',
  '<p>é ü 日本語 🙂 &eacute;&#128578;</p>',
  '<P CLASS=Up>Upper</P><SCRIPT>x</SCRIPT>',
  '<a href=x>1</a><a href=\'y\'>2</a><a href="z">3</a>',
  '</ script></script x><script>a</script ><style></style\t>',
  '<p>&amp&amp;&#;&#x;&#xZZ;&ampersand;</p>',
];

/** Deterministic random markup made of the pieces that change the tokenizer's state. */
function generated(seed: number, n: number): string {
  let s = seed >>> 0;
  const r = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const pieces = [
    '<p>',
    '</p>',
    '<a href="/x?a=1&amp;b=2">',
    '</a>',
    'text ',
    ' & ',
    '&amp;',
    '&lt;',
    '&#169;',
    '&copy',
    '<br/>',
    "<img alt='a&quot;b' src=x.png>",
    '<!-- c -->',
    '<script>var a = "<p>";</script>',
    '<title>t &amp; t</title>',
    '<div class=x data-y=z>',
    '</div>',
    '"',
    "'",
    '<',
    '>',
    '=',
    '\n',
    '\t',
    '  ',
    '<![CDATA[x]]>',
    '<!doctype html>',
    '<?pi x?>',
    'é',
    '日本',
    '<textarea>a<b>c</textarea>',
    '</ x>',
    '<a b=c&d>',
  ];
  let out = '';
  for (let i = 0; i < n; i++) out += pieces[Math.floor(r() * pieces.length)];
  return out;
}

/** The first page (in name order) under a fixture folder. */
function firstPage(dir: string): string | undefined {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (/\.html(\.gz)?$/.test(name)) return path;
    if (statSync(path).isDirectory()) {
      const found = firstPage(path);
      if (found) return found;
    }
  }
  return undefined;
}

describe('FastTokenizer', () => {
  it('gives the same events as htmlparser2 on tricky markup, whole and in chunks', () => {
    for (const html of TRICKY) for (const chunks of [1, 3, 7]) same(html, chunks);
  });

  it('gives the same events on generated markup', () => {
    for (let seed = 1; seed <= 300; seed++) same(generated(seed, 60), seed % 4 === 0 ? 5 : 1);
  });

  it('gives the same events on the real pages of shared/fixtures (articles and shops)', () => {
    const dir = join(FIXTURES, 'content/scrapinghub-aeb');
    if (!existsSync(dir)) return void console.warn(`skipped: ${dir} is absent (shared/fixtures beside the checkout)`);
    const ids = readdirSync(dir).sort().slice(0, 40);
    for (const id of ids) same(readHtml(join(dir, id, 'source.html')));
    // Shop pages: script-heavy, attribute-heavy, JSON in markup; whole and in chunks.
    const shops = join(FIXTURES, 'marketplace');
    const pages = readdirSync(shops)
      .sort()
      .flatMap((site) => firstPage(join(shops, site)) ?? []);
    expect(pages.length).toBeGreaterThan(10);
    for (const [i, path] of pages.slice(0, 12).entries()) same(readHtml(path), i % 2 ? 5 : 1);
  });
});
