/**
 * A list of links the text announces (content-prune.ts `isAnnouncedList`): kept when a
 * paragraph of the text's own words ending in a colon introduces it, pruned as a link list
 * otherwise. Each row is a shape seen on real pages; the same list is put after each lead.
 */
import { describe, expect, it } from 'vitest';
import { processHtml } from '../../../src/engine/document/index.js';

const PROSE = [
  'Authentication checks who a user is, and authorization decides what that user may read or change in the project.',
  'Each project keeps its own users, and every request carries a signed token that the service verifies before it answers.',
  'Sessions last an hour by default; a refresh token gives the client a new one without asking the user to sign in again.',
].map((s) => `<p>${s}</p>`);

const LIST =
  '<ul><li><a href="/docs/mau">Pricing MAU</a></li><li><a href="/docs/sso">Pricing SSO MAU</a></li>' +
  '<li><a href="/docs/mfa">Advanced MFA Phone</a></li></ul>';

/** The page's markdown with `lead` (a paragraph, or nothing) right before the list, inside the article. */
function markdownWith(lead: string): string {
  const html =
    `<html><body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><main><article><h1>Auth</h1>` +
    `${PROSE.join('')}${lead}${LIST}<p>${'Tokens are rotated on every refresh, so a stolen one is soon useless. '.repeat(2)}</p>` +
    `</article></main><footer>© Example</footer></body></html>`;
  return processHtml(html, { url: 'https://docs.example/auth', onlyMainContent: true, markdown: true }).markdown ?? '';
}

const ANNOUNCED: [string, string][] = [
  [
    '<p>For a detailed breakdown of how these charges are calculated, refer to the following pages:</p>',
    "a docs page's pointer to other pages",
  ],
  ['<p>The providers below are supported out of the box, each with its own setup guide:</p>', 'a list of guides'],
];
const NOT_ANNOUNCED: [string, string][] = [
  ['', 'no lead: a bare list of links'],
  ['<p>Read more:</p>', 'a short label, no sentence'],
  [
    '<p>These pages cover the rest of the setup in more detail for most projects.</p>',
    'a sentence not ending in a colon',
  ],
  [
    '<p><a href="/a">See the guides</a> and <a href="/b">the reference pages for every provider we support</a>:</p>',
    'a lead of links',
  ],
];

describe('lists the text announces', () => {
  it.each(ANNOUNCED)('keeps the list after %s (%s)', (lead) => {
    const md = markdownWith(lead);
    expect(md).toContain('Pricing SSO MAU');
    expect(md).toContain('Advanced MFA Phone');
  });
  it.each(NOT_ANNOUNCED)('prunes the list after %s (%s)', (lead) => {
    expect(markdownWith(lead)).not.toContain('Pricing SSO MAU');
  });
});
