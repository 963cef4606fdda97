/** Markdown output on pages written for the tests: structure kept, chrome dropped. */
import { describe, expect, it } from 'vitest';
import { processHtml } from '../../../src/engine/document/index.js';
import { parseHtml } from '../../../src/engine/document/dom.js';
import { isProductPage } from '../../../src/engine/document/main-content.js';
import { needsWork } from '../../../src/engine/document/markdown-text.js';

const md = (body: string, opts: { onlyMainContent?: boolean; url?: string } = {}) =>
  processHtml(`<html><head><title>T</title></head><body>${body}</body></html>`, {
    url: opts.url ?? 'https://example.com/blog/post',
    onlyMainContent: opts.onlyMainContent ?? false,
  }).markdown;

const LONG = 'This sentence is long enough to be counted as real reading text, with commas, clauses, and a full stop.';

describe('markdown conversion', () => {
  it('reads ruby text without its annotations (furigana)', () => {
    expect(
      md('<p><ruby>子<rt>こ</rt></ruby>どもへの<ruby>虐待<rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby>をなくす</p>', {
        onlyMainContent: false,
      }),
    ).toBe('子どもへの虐待をなくす');
  });

  it('keeps heading levels and emphasis', () => {
    expect(
      md(
        '<h1>One</h1><h2>Two <em>it</em></h2><h6>Six</h6><p><strong>bold</strong> and <i>italic</i> and <del>gone</del></p>',
      ),
    ).toBe('# One\n\n## Two *it*\n\n###### Six\n\n**bold** and *italic* and ~~gone~~');
  });

  it('renders nested and numbered lists', () => {
    expect(
      md('<ul><li>a</li><li>b<ul><li>b1</li><li>b2</li></ul></li></ul><ol start="4"><li>four</li><li>five</li></ol>'),
    ).toBe('- a\n- b\n  - b1\n  - b2\n\n4. four\n5. five');
  });

  it('renders GFM tables with escaped pipes and colspans', () => {
    const out = md(
      '<table><thead><tr><th>Name</th><th>Value</th><th>Unit</th></tr></thead><tbody><tr><td>a|b</td><td colspan="2">wide</td></tr><tr><td>x</td><td>1</td><td>kg</td></tr></tbody></table>',
    );
    expect(out).toBe('| Name | Value | Unit |\n| --- | --- | --- |\n| a\\|b | wide |  |\n| x | 1 | kg |');
  });

  it('uses the first row as header when there is no thead', () => {
    expect(md('<table><tr><td>h1</td><td>h2</td></tr><tr><td>1</td><td>2</td></tr></table>')).toBe(
      '| h1 | h2 |\n| --- | --- |\n| 1 | 2 |',
    );
  });

  it('treats one-column layout tables as containers', () => {
    expect(md('<table><tr><td><p>Only cell text</p></td></tr></table>')).toBe('Only cell text');
  });

  it('fences code blocks with their language and keeps whitespace', () => {
    expect(md('<pre><code class="language-python">def f(x):\n    return x * 2\n</code></pre>')).toBe(
      '```python\ndef f(x):\n    return x * 2\n```',
    );
    expect(md('<div class="highlight-source-rust"><pre>fn main() {}</pre></div>')).toBe('```rust\nfn main() {}\n```');
    expect(md('<pre>a ``` b</pre>')).toBe('````\na ``` b\n````');
    expect(md('<p>Call <code>f(x)</code> now</p>')).toBe('Call `f(x)` now');
  });

  it('renders block quotes, nested content included', () => {
    expect(md('<blockquote><p>First</p><p>Second</p></blockquote>')).toBe('> First\n>\n> Second');
  });

  it('makes links and images absolute, lazy images included', () => {
    expect(
      md(
        '<p><a href="../other?x=1#frag">link</a> <img src="/img/a.png" alt="An [image]"> <img src="data:image/gif;base64,AA" data-src="lazy.jpg" alt="lazy"></p>',
      ),
    ).toBe(
      '[link](https://example.com/other?x=1#frag) ![An image](https://example.com/img/a.png) ![lazy](https://example.com/blog/lazy.jpg)',
    );
  });

  it('honours <base href>', () => {
    const out = processHtml(
      '<html><head><base href="https://cdn.example.org/root/"></head><body><p><a href="x">x</a></p></body></html>',
      { url: 'https://example.com/' },
    ).markdown;
    expect(out).toBe('[x](https://cdn.example.org/root/x)');
  });

  it('collapses whitespace like a browser and keeps hard breaks', () => {
    expect(md('<p>  lots   of\n\n spaces  <br> next line </p>')).toBe('lots of spaces  \nnext line');
  });

  it('escapes text that would read as markdown', () => {
    expect(md('<p>2 * 3 = 6 and snake_case stays, _under_ not</p><p># not a heading</p><p>1. not a list</p>')).toBe(
      '2 \\* 3 = 6 and snake_case stays, \\_under\\_ not\n\n\\# not a heading\n\n1\\. not a list',
    );
  });

  it('escapes and collapses text in the main content as outside it (scoring marks only plain text as needing nothing)', () => {
    const tricky = [
      '2 * 3',
      'snake _under_ x',
      'a `tick`',
      'back\\slash',
      '1 < 2 <b',
      'two  spaces',
      'tab\there',
      'line\nbreak',
      'no\u00a0break',
      'v\vtab',
    ];
    const body = `<article><h1>Title here</h1><p>${LONG}</p>${tricky.map((t) => `<p>${LONG} ${t.replace('<', '&lt;')} end.</p>`).join('')}<p>${LONG} plain words only.</p></article>`;
    const scored = md(body, { onlyMainContent: true })!;
    const whole = md(body, { onlyMainContent: false })!;
    expect(scored).toContain('2 \\* 3');
    expect(scored).toContain('\\_under\\_');
    expect(scored).toContain('two spaces');
    expect(scored).toContain('tab here');
    // Every paragraph reads the same whether main-content scoring ran first or not.
    for (const para of whole.split('\n\n').filter((p) => p.startsWith('This sentence'))) expect(scored).toContain(para);
  });

  it('drops scripts, styles, forms controls and hidden elements', () => {
    const out = md(
      '<p>Visible</p><script>alert(1)</script><style>p{}</style><noscript>ns</noscript><p hidden>h</p><p style="display: none">d</p><button>Click</button><p aria-hidden="true">a</p>',
    );
    expect(out).toBe('Visible');
  });

  it("reads a long id as a heading's anchor, not a role: a docs section on sharing is no share bar", () => {
    const section = (id: string, title: string) =>
      `<div class="section" id="${id}"><h2>${title}</h2><p>${LONG}</p><p>${LONG}</p></div>`;
    const out = md(
      `<div class="body"><h1>Evolve</h1><p>${LONG}</p>${section('sharing-with-a-single-developer', 'Sharing with a single developer')}${section('publishing-and-non-publishing-repositories', 'Publishing repositories')}</div><div id="share-bar"><p>${LONG}</p><a href="/x">Share</a></div>`,
      { onlyMainContent: true },
    );
    expect(out).toContain('## Sharing with a single developer');
    expect(out).toContain('## Publishing repositories');
    expect(out?.match(/counted as real reading text/g)?.length).toBe(5);
  });

  it('keeps wiki headings and drops their [edit] links', () => {
    const h2 =
      '<h2><span class="mw-headline" id="History">History</span><span class="mw-editsection"><span class="mw-editsection-bracket">[</span><a href="/w/index.php?action=edit&amp;section=1">edit</a><span class="mw-editsection-bracket">]</span></span></h2>';
    const out = md(
      `<div id="content"><h1>Mozilla</h1><div id="bodyContent"><p>${LONG}</p>${h2}<p>${LONG}</p><h3><a href="/other">Another story</a></h3><p>${LONG}</p></div></div>`,
      { onlyMainContent: true },
    );
    expect(out).toContain('## History\n');
    expect(out).not.toContain('edit');
    // A heading that is all link (a teaser of another page) still goes.
    expect(out).not.toContain('Another story');
  });

  it("keeps a product's name and price with its description on a product page", () => {
    const links = Array.from({ length: 12 }, (_, i) => `<a href="/c/${i}">Category number ${i}</a>`).join(' ');
    const page = `<script type="application/ld+json">{"@type":"Product","name":"Kettle"}</script><div class="links">${links}</div>
      <div id="item"><div class="buy"><h1>Blue Kettle 1.7 l</h1><span class="price">€39.90</span><div>In stock</div><div>Free delivery</div><div>Sold by Acme Kitchen</div></div>
      <div class="description"><p>${LONG}</p><p>${LONG}</p><p>${LONG}</p></div></div>`;
    const out = md(page, { onlyMainContent: true });
    expect(out).toContain('# Blue Kettle 1.7 l');
    expect(out).toContain('€39.90');
    // An article's content stays its text: the same page as a news story has no buy box in it.
    const story = md(page.replace('"Product"', '"NewsArticle"'), { onlyMainContent: true });
    expect(story).not.toContain('€39.90');
    expect(story).toContain('counted as real reading text');
    const product = (html: string) => isProductPage(parseHtml(html));
    expect(product(page)).toBe(true);
    expect(product('<div itemscope itemtype="https://schema.org/Product"><h1>Kettle</h1></div>')).toBe(true);
    expect(product('<meta property="og:type" content="og:product">')).toBe(true);
    expect(
      product('<script type="application/ld+json">{"@type":"NewsArticle","about":{"@type":"Product"}}</script>'),
    ).toBe(false);
  });

  it('drops consent dialogs named as such, however long, but not a page wrapper named for the banner', () => {
    const dialog = `<div id="CybotCookiebotDialog"><p>We use cookies to personalise content and ads, to provide social media features and to analyse our traffic, as our partners do.</p>${`<p>${LONG} Cookies of this type store preferences.</p>`.repeat(16)}</div>`;
    // A link-heavy strip keeps the page as a whole from outscoring the dialog, as on real pages.
    const links = Array.from({ length: 40 }, (_, i) => `<a href="/c/${i}">Category number ${i}</a>`).join(' ');
    const out = md(
      `<div class="links">${links}</div>${dialog}<div class="story"><h1>Lamp</h1><p>${LONG}</p><p>${LONG}</p></div>`,
      { onlyMainContent: true },
    );
    expect(out).toContain('counted as real reading text');
    expect(out).not.toMatch(/cookies/i);
    // A page wrapper named for the banner it shows holds the page's own heading: it stays.
    const shell = md(
      `<div class="page gdpr-banner-shown"><h1>BMW X1 sDrive</h1><p>${LONG}</p><p>We use cookies and other technologies to process your data.</p></div>`,
      { onlyMainContent: true },
    );
    expect(shell).toContain('BMW X1 sDrive');
    expect(shell).toContain('counted as real reading text');
  });

  it('never takes a cookie banner written in full sentences for the content of a page of short facts', () => {
    const banner = `<div id="sp-cc"><div class="sp-cc-text">Select your cookie preferences. We use cookies and similar tools to enhance your shopping experience, to provide our services, understand how customers use our services so we can make improvements, and display ads. Approved third parties also use these tools in connection with our display of ads. If you do not accept, we will only use the essential cookies that are necessary to provide our services, and you can change your choices at any time in your settings, as described in our notice about cookies and advertising.</div></div>`;
    const facts = `<div id="dp" class="celwidget"><h1>Tefal 5 Piece Pots and Pans Set</h1><ul><li>Non-stick coating</li><li>Thermo-Signal heat indicator</li><li>Dishwasher safe</li></ul><span class="price">£39.99</span></div>`;
    const out = md(`${banner}${facts}`, { onlyMainContent: true });
    expect(out).toContain('Thermo-Signal heat indicator');
    expect(out).toContain('£39.99');
    expect(out).not.toMatch(/cookie/i);
  });

  it('drops boxes shown only on hover (tooltips, person cards), keeping the words they hang on', () => {
    const card = `<span class="rollover-people"><a href="/people/ann">Ann Lee</a><span class="rollover-people-block"><img src="/ann.jpg" alt=""><a href="/story/1">Another story</a></span></span>`;
    expect(
      md(
        `<p>Rep. ${card} (D) spoke on Monday.</p><p>A <span class="tooltip">term</span> and a <span class="has-tooltip">word</span>.</p>`,
      ),
    ).toBe('Rep. [Ann Lee](https://example.com/people/ann) (D) spoke on Monday.\n\nA and a word.');
  });
});

describe('main content', () => {
  const page = `
    <header class="site-header"><a href="/">Logo</a><nav><ul><li><a href="/a">Section A</a></li><li><a href="/b">Section B</a></li></ul></nav></header>
    <div id="cookie-banner">We use cookies. <button>Accept</button> <a href="/privacy">Privacy policy</a></div>
    <div class="layout">
      <main><article>
        <h1>The headline</h1>
        <p>${LONG}</p>
        <div class="share-bar"><a href="https://twitter.com/share">Tweet</a> <a href="https://facebook.com/share">Share</a></div>
        <p>${LONG.replace('This', 'Another')}</p>
        <ul><li>plain item one</li><li>plain item two</li></ul>
        <figure><img src="/photo.jpg" alt="Photo"><figcaption>A caption</figcaption></figure>
        <p>${LONG.replace('This', 'A third')}</p>
      </article></main>
      <aside class="sidebar"><h3>Popular</h3><ul><li><a href="/p1">Popular story one</a></li><li><a href="/p2">Popular story two</a></li></ul></aside>
    </div>
    <div class="related-posts"><h2>Related</h2><p><a href="/r1">Related post with a long title that goes on</a></p></div>
    <footer><p>© 2026 Example Inc. All rights reserved.</p><a href="/terms">Terms</a></footer>`;

  it('keeps the article and drops navigation, banners, share bars, sidebars and footers', () => {
    const out = md(page, { onlyMainContent: true })!;
    expect(out).toContain('# The headline');
    expect(out).toContain('This sentence is long enough');
    expect(out).toContain('A third sentence');
    expect(out).toContain('- plain item one');
    expect(out).toContain('![Photo](https://example.com/photo.jpg)');
    for (const junk of [
      'Section A',
      'cookies',
      'Tweet',
      'Popular story',
      'Related post',
      'All rights reserved',
      'Terms',
    ])
      expect(out).not.toContain(junk);
  });

  it('keeps everything visible when only_main_content is false', () => {
    const out = md(page, { onlyMainContent: false })!;
    expect(out).toContain('Section A');
    expect(out).toContain('All rights reserved');
    expect(out).toContain('This sentence is long enough');
  });

  it('does not drop an article whose wrappers carry boilerplate-sounding class names', () => {
    const out = md(
      `<div class="has-sidebar widget-area"><div class="elementor-widget-container"><p>${LONG}</p><p>${LONG}</p></div></div><div class="sidebar"><a href="/x">x</a></div>`,
      { onlyMainContent: true },
    )!;
    expect(out).toContain('This sentence is long enough');
  });
});

describe('math', () => {
  it('writes MathML as TeX when the page carries it, else as text; MathJax 2 scripts as TeX', () => {
    expect(
      md(
        '<p>Energy <math alttext="E=mc^2"><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math> holds.</p>',
      ),
    ).toBe('Energy $E=mc^2$ holds.');
    expect(
      md(
        '<p>See <math><semantics><mrow><mi>x</mi></mrow><annotation encoding="application/x-tex">x^2</annotation></semantics></math></p>',
      ),
    ).toBe('See $x^2$');
    expect(md('<p>Plain <math><mi>a</mi><mo>+</mo><mi>b</mi></math></p>')).toBe('Plain a+b');
    expect(md('<p>Display:<script type="math/tex; mode=display">\\\\int_0^1 x\\\\,dx</script></p>')).toBe(
      'Display:  \n$$\\\\int_0^1 x\\\\,dx$$',
    );
  });
});

describe('hostile nesting', () => {
  it('survives thousands of nested elements without exhausting the stack', () => {
    const deep = `${'<div>'.repeat(20_000)}<p>Deep text, long enough, with commas, to be content.</p>${'</div>'.repeat(20_000)}`;
    expect(md(deep, { onlyMainContent: true })).toContain('Deep text');
    const inline = `<p>${'<b><i>'.repeat(10_000)}x${'</i></b>'.repeat(10_000)}</p>`;
    expect(md(inline)).toContain('x');
  });
});

describe('tables inside the article', () => {
  it('keeps a data table whole even when its cells are links', () => {
    const rows = ['Alpha', 'Beta', 'Gamma']
      .map((n) => `<tr><th>${n}</th><td><a href="/wiki/${n}">${n} Corporation</a></td></tr>`)
      .join('');
    const page = `<nav><a href="/">Home</a></nav><article><h1>Company</h1><table class="infobox">${rows}</table>
      <p>${'The company makes software, ships it to many users, and maintains it for years. '.repeat(3)}</p></article>`;
    const out = md(page, { onlyMainContent: true })!;
    expect(out).toContain('| Beta | [Beta Corporation](https://example.com/wiki/Beta) |');
    expect(out).toContain('| Gamma | [Gamma Corporation](https://example.com/wiki/Gamma) |');
  });
});

describe('lists in table cells', () => {
  it('writes them on one line, items separated by semicolons', () => {
    expect(
      md(
        '<table><tr><th>Team</th><th>Members</th></tr><tr><td>Core</td><td><ul><li>Ada</li><li>Grace</li></ul></td></tr></table>',
      ),
    ).toBe('| Team | Members |\n| --- | --- |\n| Core | Ada; Grace |');
  });
});

describe('links', () => {
  it("resolves links against each page's own URL, drops fragments, non-http targets and repeats", async () => {
    const { extractLinks } = await import('../../../src/engine/document/links.js');
    const { parseHtml } = await import('../../../src/engine/document/dom.js');
    const html =
      '<a href="/p/1#top">one</a><a href=" /p/2 ">two</a><a href="//cdn.example/x">cdn</a><a href="rel">rel</a><a href="javascript:void(0)">js</a><a href="/p/1">again</a>';
    expect(extractLinks(parseHtml(html), 'https://a.example/dir/page')).toEqual([
      'https://a.example/p/1',
      'https://a.example/p/2',
      'https://cdn.example/x',
      'https://a.example/dir/rel',
    ]);
    expect(extractLinks(parseHtml(html), 'http://b.example:8080/')).toEqual([
      'http://b.example:8080/p/1',
      'http://b.example:8080/p/2',
      'http://cdn.example/x',
      'http://b.example:8080/rel',
    ]);
  });
});

describe('main content keeps loose lists', () => {
  it('keeps lists whose items wrap their text in paragraphs, nested or not (as markdown renders loose lists)', () => {
    const out = md(
      `<nav><a href="/">Home</a></nav><article><p>${LONG}</p><ul><li>Intro<ol><li>agent</li><li><p>server</p></li></ol></li><li>index</li></ul>` +
        `<p>${LONG}</p><ul><li><p>Alpha</p></li><li><p>Beta</p></li></ul><p>${LONG}</p></article>`,
      { onlyMainContent: true },
    );
    expect(out).toContain('- Intro\n  1. agent\n  2. server\n- index');
    expect(out).toContain('- Alpha\n- Beta');
    expect(out).not.toContain('Home');
  });
});

describe('main content keeps short sentences of the text', () => {
  const box = (t: string) =>
    `<div style="margin: 1em 0">\n  <div style="direction: ltr"><span>${t}</span></div>\n</div>\n`;

  it('keeps a line of dialogue set between paragraphs, each in its own box, but not a widget message beside them', () => {
    const out = md(
      `<nav><a href="/">Home</a></nav><div class="chapter">${box(LONG)}${box('They both took one.')}${box(LONG)}${box('“Richy?”')}${box(LONG)}` +
        `<div class="widget"><div>Request failed. Try again.</div><a href="/retry">Retry</a></div></div>`,
      { onlyMainContent: true },
    );
    expect(out).toContain(`${LONG}\n\nThey both took one.\n\n${LONG}\n\n“Richy?”\n\n${LONG}`);
    expect(out).not.toContain('Request failed');
  });

  it('keeps a section whose paragraph is one short sentence, and still drops short fragments', () => {
    const out = md(
      `<article><p>${LONG}</p><section><h2>Contact</h2><p>Call us any time.</p></section><div class="meta"><span>Advertisement</span></div><p>${LONG}</p></article>`,
      {
        onlyMainContent: true,
      },
    );
    expect(out).toContain('## Contact\n\nCall us any time.');
    expect(out).not.toContain('Advertisement');
  });
});

describe('needsWork (which text markdown must collapse or escape)', () => {
  it('finds every character that needs work, and double spaces, wherever they sit in short and long text', () => {
    const plain = 'plain words with single spaces and punctuation, such as this.';
    expect(needsWork(plain)).toBe(false);
    expect(needsWork(plain.repeat(20))).toBe(false);
    expect(needsWork('short text')).toBe(false);
    for (const special of ['\t', '\n', '\v', '\f', '\r', '\\', '*', '`', '_', '<', '\u00a0', '  ']) {
      for (const text of ['ab', plain.repeat(3)]) {
        for (const at of [0, 1, text.length >> 1, text.length]) {
          expect(
            needsWork(text.slice(0, at) + special + text.slice(at)),
            `${JSON.stringify(special)} at ${at} of ${text.length}`,
          ).toBe(true);
        }
      }
    }
  });
});
