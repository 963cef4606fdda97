/**
 * The warm-up page must train the paths real pages take (main content, chrome removal,
 * markdown of lists, tables, code, quotes, links): a page that exercised less would leave
 * those paths to be compiled while real pages wait.
 */
import { describe, expect, it } from 'vitest';
import { processHtml } from '../../../src/engine/document/index.js';
import { samplePage, warmUp } from '../../../src/engine/document/warm-up.js';

describe('document warm-up', () => {
  it('runs a sample page that goes through every markdown construct and drops its chrome', () => {
    const r = processHtml(samplePage(1), {
      url: 'https://sample.invalid/page/1',
      onlyMainContent: true,
      markdown: true,
      links: true,
    });
    const md = r.markdown!;
    expect(md).toMatch(/^## /m); // headings
    expect(md).toMatch(/^- .+\n\s+1\. /m); // a nested ordered list in a bullet list
    expect(md).toMatch(/^\| .+ \|\n\| -+/m); // a table
    expect(md).toMatch(/^```js\n/m); // fenced code
    expect(md).toMatch(/^> /m); // a quote
    expect(md).toMatch(/\[[a-z ]+\]\(https:\/\/sample\.invalid\/[a-z]+\/\d+/); // links, absolute
    expect(md).toContain('\\*'); // escaped syntax characters
    // Chrome went: navigation, the sidebar, the footer, the hidden cookie notice.
    expect(md).not.toMatch(/Related|About|cookies/);
    expect(r.links!.length).toBeGreaterThan(30);
    expect(r.metadata.canonical_url).toBe('https://sample.invalid/sample/1');
  });

  it('resolves with the time its passes took', async () => {
    const ms = await warmUp(3);
    expect(ms).toBeGreaterThan(0);
  });
});
