/** The page's own headings: the first `<h1>` names the page's subject; `<title>` is a weaker echo. */
import type { Document } from '../../document/dom.js';
import { absoluteUrl, collapse, elements, textOf } from '../../document/dom.js';
import type { Candidate } from '../candidate.js';

export function documentCandidates(doc: Document, baseUrl: string, out: Candidate[]): void {
  let title: string | undefined;
  let h1: string | undefined;
  let canonical: string | undefined;
  let order = 0;
  for (const el of elements(doc)) {
    order++;
    if (el.name === 'title' && title === undefined) title = collapse(textOf(el));
    else if (el.name === 'h1' && h1 === undefined) {
      h1 = collapse(textOf(el));
      if (h1) for (const name of ['name', 'title', 'headline']) out.push({ path: [name], value: h1, kind: 'dom', source: 'css:h1', confidence: 0.7, el });
    } else if (el.name === 'link' && !canonical && /(?:^|\s)canonical(?:\s|$)/i.test(el.attribs.rel ?? '')) {
      canonical = absoluteUrl(el.attribs.href, baseUrl);
    }
  }
  if (title) for (const name of ['title', 'name']) out.push({ path: [name], value: title, kind: 'dom', source: 'html:title', order: 0, confidence: 0.55 });
  if (canonical) out.push({ path: ['url'], value: canonical, kind: 'dom', source: 'html:link[rel=canonical]', order: 0, confidence: 0.8 });
}
