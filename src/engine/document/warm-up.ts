/**
 * JIT warm-up for a document worker. A fresh V8 isolate runs the pipeline interpreted until
 * its optimising compiler has seen enough of it: the first ~50 pages of a new worker cost
 * ~6 ms each instead of ~0.6. A worker therefore runs the pipeline on a built-in sample page
 * right after it starts — one pass per turn of its event loop, so a real page posted
 * meanwhile waits for one pass at most — and the service's first requests find it compiled.
 */
import { processHtml } from './index.js';

/** Sections of the sample page: ~30 KB, the size of a typical article page. */
const SECTIONS = 20;

/**
 * A page with what real pages have — chrome, an article with headings, inline markup,
 * lists, tables, code, quotes, figures, entities, metadata and JSON-LD — so the warm-up
 * trains the same paths (and the same type feedback) as the pages a crawl meets. It varies
 * with `variant` as real pages do (which meta tags, attributes, kinds of link, entity and
 * list) because V8 optimises for what it has seen: code trained on one shape of page is
 * thrown away (deoptimised) and compiled again at the first page of another shape.
 */
export function samplePage(variant: number): string {
  const v = variant % 4;
  const words =
    'pages crawler reads markdown content site server request response article section paragraph data index search result value model language table list item agent'.split(
      ' ',
    );
  const w = (i: number) => words[(i * 7 + variant) % words.length];
  const sentence = (i: number) =>
    `${w(i)[0].toUpperCase()}${w(i).slice(1)} ${w(i + 1)} ${w(i + 2)}, ${w(i + 3)} ${w(i + 4)} &amp; ${w(i + 5)} ${w(i + 6)} ${w(i + 7)}.`;
  // Links of every form a crawl meets: root-relative (with queries and fragments), relative,
  // protocol-relative, absolute to another host, and ones that lead nowhere.
  const hrefs = [
    (i: number) => `/${w(i)}/${i}`,
    (i: number) => `/${w(i)}/${i}?utm_source=x&amp;ref=${variant}`,
    // A raw "&" in an attribute, as many pages write them.
    (i: number) => `/${w(i)}/${i}?utm_source=x&ref=${i}`,
    (i: number) => `/${w(i)}/${i}#top`,
    (i: number) => `../${w(i)}/${i}.html`,
    (i: number) => `${w(i)}?page=${i}&amp;sort=asc`,
    (i: number) => `//cdn.sample.invalid/${w(i)}`,
    (i: number) => `https://other.invalid/${w(i)}/${i}`,
    (i: number) => `#${w(i)}`,
    (i: number) => (i % 2 ? 'javascript:void(0)' : `mailto:${w(i)}@sample.invalid`),
  ];
  const link = (i: number) =>
    `<a href="${hrefs[(i + v) % hrefs.length](i)}"${i % 3 === 0 ? ` title="${w(i)} &quot;${w(i + 1)}&quot;"` : ''}${i % 4 === 1 ? ' class="inline-link" rel="noopener"' : ''}>${w(i + 2)} ${w(i + 3)}</a>`;
  const entity = ['&#8217;', '&#x2014;', '&copy; ', '&nbsp;', '&hellip;', '&lt;b&gt;', '&amp;c', '&eacute;'];
  const para = (i: number) =>
    `<p${i % 5 === 0 ? ` class="lead" id="p${i}"` : i % 5 === 1 ? ' style="margin:0"' : ''}>${sentence(i)} ${link(i)} ${sentence(i + 1)}${entity[(i + v) % entity.length]} <em>${w(i + 4)}</em> and <strong>${w(i + 5)}</strong> with <code>${w(i)}_${w(i + 1)}</code>.${i % 3 === v % 3 ? '<br>\n' : ' '}${sentence(i + 2)}${i % 4 === 2 ? `\n    ${w(i)}  ${w(i + 1)} *${w(i + 2)}*` : ''}</p>\n`;
  let body = '';
  for (let s = 0; s < SECTIONS; s++) {
    body += `<h${2 + ((s + v) % 3)} id="s${s}">${sentence(s)}</h${2 + ((s + v) % 3)}>\n${para(s)}${para(s + 1)}`;
    if (s % 3 === 0 || s % 4 === 1)
      body += `<ul${v % 2 ? ' class="list"' : ''}><li>${sentence(s)}</li><li>${link(s)} ${sentence(s + 2)}<ol${s % 2 ? ' start="3"' : ''}><li>${w(s + 3)}</li><li><p>${w(s + 4)}</p></li></ol></li><li>${w(s + 5)}</li></ul>\n`;
    if (s % 3 === 1)
      body += `<table>${v % 2 ? `<caption>${w(s)}</caption>` : ''}<thead><tr><th>${w(s)}</th><th>${w(s + 1)}</th></tr></thead><tbody><tr><td>${s}</td><td>${w(s + 2)} ${link(s)}</td></tr><tr><td colspan="2">*${w(s)}*</td></tr></tbody></table>\n`;
    if (s % 3 === 2)
      body += `<blockquote><p>${sentence(s + 3)}</p></blockquote><pre><code class="language-js">const ${w(s)} = ${s};\n  return ${w(s)} * 2;</code></pre>\n<figure><img ${s % 2 ? `src="/img/${s}.png"` : `data-src="/img/${s}.jpg" srcset="/img/${s}-2x.jpg 2x"`} alt="${w(s)}" width="640"><figcaption>${sentence(s)}</figcaption></figure>\n`;
    if (s % 5 === v)
      body += `<div class="ad-slot" data-slot="${s}"><span>${w(s)}</span></div><form action="/s"><input type="text" name="q"><button>${w(s)}</button></form>\n`;
  }
  const nav = Array.from(
    { length: 12 },
    (_, k) => `<li${k === v ? ' class="active" aria-current="page"' : ''}><a href="/section/${k}">${w(k)}</a></li>`,
  ).join('');
  const metas = [
    `<meta name="description" content="${sentence(1)}">`,
    `<meta property="og:title" content="${sentence(0)}"><meta property="og:type" content="article"><meta name="twitter:card" content="summary">`,
    `<meta property="article:published_time" content="2024-0${v + 1}-1${v}T08:00:00Z"><meta name="author" content="${w(2)}">`,
    `<meta http-equiv="X-UA-Compatible" content="IE=edge"><meta name="viewport" content="width=device-width">`,
  ];
  return `<!doctype html><html lang="${v === 3 ? 'en-GB' : 'en'}"><head><meta charset="utf-8"><title>${sentence(0)} | Sample</title>
${metas.slice(0, [1, 1, 2, 4][v]).join('')}${v % 2 ? `<link rel="canonical" href="/sample/${variant}">` : `<link rel="alternate" hreflang="de" href="/de/sample"><meta property="og:url" content="https://sample.invalid/sample/${variant}">`}
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"${w(0)}","author":{"@type":"Person","name":"${w(1)}"}}</script>
<style>body{margin:0}</style><script>window.dataLayer=[];</script>${v === 2 ? '<base href="/docs/">' : ''}</head>
<body class="page-${v}"><header class="site-header" role="banner"><a href="/" class="logo"><img src="/logo.svg" alt="Sample"></a><nav aria-label="main"><ul>${nav}</ul></nav></header>
<main id="main"><article class="${['post-content', 'entry-content', 'article-body', 'content'][v]}"><h1>${sentence(0)}</h1><p class="byline">By <a rel="author" href="/a">${w(2)}</a> <time datetime="2024-01-0${v + 1}">${w(3)}</time></p>${body}</article>
<aside class="sidebar"><h3>Related</h3><ul>${nav}</ul></aside></main>
<!-- comment --><div class="cookie-banner" ${v % 2 ? 'hidden' : 'style="display:none"'}>We use cookies.</div><noscript><img src="/pixel.gif"></noscript><svg width="1" height="1"><path d="M0 0"/></svg>
<footer><p>&copy; Sample &nbsp; ${w(3)}</p><a href="/about">About</a> | <a href="/privacy">Privacy</a></footer></body></html>`;
}

/** Runs the pipeline on the sample page `passes` times, one pass per event-loop turn; resolves with the time taken. */
export function warmUp(passes: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let i = 0;
    const pass = () => {
      if (i >= passes) return resolve(performance.now() - t0);
      const v = i++ % 4;
      try {
        processHtml(samplePage(v), {
          url: `https://sample.invalid/page/${v}`,
          onlyMainContent: true,
          markdown: true,
          links: true,
        });
      } catch {
        // A warm-up that fails costs speed, never a page: stop it.
        return resolve(performance.now() - t0);
      }
      setImmediate(pass);
    };
    setImmediate(pass);
  });
}
