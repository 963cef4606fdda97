/**
 * JIT warm-up for a document worker. A fresh V8 isolate runs the pipeline interpreted until
 * its optimising compiler has seen enough of it: the first ~50 pages of a new worker cost
 * ~6 ms each instead of ~0.6. A worker therefore runs the pipeline on a built-in sample page
 * right after it starts — one pass per turn of its event loop, so a real page posted
 * meanwhile waits for one pass at most — and the service's first requests find it compiled.
 */
import { processHtml } from './index.js';

/**
 * A page with what real pages have — chrome, an article with headings, inline markup,
 * lists, a table, code, quotes, figures, entities, metadata and JSON-LD — so the warm-up
 * trains the same paths (and the same type feedback) as the pages a crawl meets.
 */
/** Sections of the sample page: ~25 KB, the size of a typical article page. */
const SECTIONS = 20;

export function samplePage(variant: number): string {
  const words = 'pages crawler reads markdown content site server request response article section paragraph data index search result value model language table list item agent'.split(' ');
  const w = (i: number) => words[(i * 7 + variant) % words.length];
  const sentence = (i: number) => `${w(i)[0].toUpperCase()}${w(i).slice(1)} ${w(i + 1)} ${w(i + 2)}, ${w(i + 3)} ${w(i + 4)} &amp; ${w(i + 5)} ${w(i + 6)} ${w(i + 7)}.`;
  const para = (i: number) =>
    `<p>${sentence(i)} <a href="/${w(i)}/${i}?utm_source=x&amp;ref=${variant}">${w(i + 2)} ${w(i + 3)}</a> ${sentence(i + 1)} <em>${w(i + 4)}</em> and <strong>${w(i + 5)}</strong> with <code>${w(i)}_${w(i + 1)}</code>. ${sentence(i + 2)}</p>\n`;
  let body = '';
  for (let s = 0; s < SECTIONS; s++) {
    body += `<h2 id="s${s}">${sentence(s)}</h2>\n${para(s)}${para(s + 1)}`;
    if (s % 3 === 0) body += `<ul><li>${sentence(s)}</li><li><a href="/item/${s}">${w(s)}</a> ${sentence(s + 2)}<ol><li>${w(s + 3)}</li><li>${w(s + 4)}</li></ol></li></ul>\n`;
    if (s % 3 === 1) body += `<table><thead><tr><th>${w(s)}</th><th>${w(s + 1)}</th></tr></thead><tbody><tr><td>${s}</td><td>${w(s + 2)} ${w(s + 3)}</td></tr><tr><td>${s + 1}</td><td>*${w(s)}*</td></tr></tbody></table>\n`;
    if (s % 3 === 2) body += `<blockquote><p>${sentence(s + 3)}</p></blockquote><pre><code class="language-js">const ${w(s)} = ${s};\n  return ${w(s)} * 2;</code></pre>\n<figure><img src="/img/${s}.png" alt="${w(s)}"><figcaption>${sentence(s)}</figcaption></figure>\n`;
  }
  const nav = Array.from({ length: 12 }, (_, k) => `<li><a href="/section/${k}">${w(k)}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${sentence(0)} | Sample</title>
<meta name="description" content="${sentence(1)}"><meta property="og:title" content="${sentence(0)}"><link rel="canonical" href="/sample/${variant}">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"${w(0)}","author":{"@type":"Person","name":"${w(1)}"}}</script>
<style>body{margin:0}</style><script>window.dataLayer=[];</script></head>
<body><header class="site-header"><a href="/">Home</a><nav><ul>${nav}</ul></nav></header>
<main><article class="post-content"><h1>${sentence(0)}</h1><p class="byline">By <a rel="author" href="/a">${w(2)}</a></p>${body}</article>
<aside class="sidebar"><h3>Related</h3><ul>${nav}</ul></aside></main>
<!-- comment --><div class="cookie-banner" hidden>We use cookies.</div>
<footer><p>&copy; Sample &nbsp; ${w(3)}</p><a href="/about">About</a></footer></body></html>`;
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
        processHtml(samplePage(v), { url: `https://sample.invalid/page/${v}`, onlyMainContent: true, markdown: true, links: true });
      } catch {
        // A warm-up that fails costs speed, never a page: stop it.
        return resolve(performance.now() - t0);
      }
      setImmediate(pass);
    };
    setImmediate(pass);
  });
}
