/**
 * Clean-up inside the chosen content: a "Related / You may also like" tail, repeated
 * captions (a gallery's; a caption itself is content: issue 40), byline/date lines above the first paragraph, copyright/contact
 * lines after the last one, and cookie notices. (The headline stays: headline.ts.)
 */
import type { AnyNode, Element, ParentNode } from './dom.js';
import { collapse, collapsedLength, hasImage, isElement, isTextNode, removeNode, textOf, HEADING_TAGS } from './dom.js';

const LEAF_BLOCKS = new Set(['p', 'figcaption', 'blockquote', ...HEADING_TAGS, 'li', 'dd', 'pre', 'caption']);
const HEADINGS = /^h[1-6]$/;

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

const CONTAINER_BLOCKS = new Set([
  'div',
  'section',
  'article',
  'header',
  'footer',
  'ul',
  'ol',
  'dl',
  'table',
  'tbody',
  'thead',
  'tr',
  'td',
  'form',
  'main',
  'aside',
  'figure',
  'center',
]);

/** A div or section holding only inline content reads as one block (bylines, datelines). */
function isInlineBox(el: Element): boolean {
  if (el.name !== 'div' && el.name !== 'span' && el.name !== 'section' && el.name !== 'header' && el.name !== 'time')
    return false;
  for (const c of el.children)
    if (isElement(c) && (CONTAINER_BLOCKS.has(c.name) || LEAF_BLOCKS.has(c.name))) return false;
  return true;
}

/** Outermost elements matching `pick`, in document order (their insides are not visited). */
function outermost(root: ParentNode, pick: (el: Element) => boolean): Element[] {
  const out: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (pick(n)) out.push(n);
    else for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return out;
}

function isTextBlock(n: Element): boolean {
  // Inline elements met while walking containers (a <small> dateline beside a <p>) are blocks too.
  const inlineInContainer =
    !CONTAINER_BLOCKS.has(n.name) && !LEAF_BLOCKS.has(n.name) && n.name !== 'img' && n.name !== 'br';
  return LEAF_BLOCKS.has(n.name) || ((isInlineBox(n) || inlineInContainer) && textOf(n).trim() !== '');
}

const blocksInOrder = (root: ParentNode) => outermost(root, isTextBlock);

/** `cookies`: whether any text of the page says "cookie" (no notice to look for otherwise). */
export function polishContent(root: ParentNode, cookies = true): void {
  const blocks = blocksInOrder(root);
  dropRepeatedBlocks(blocks);
  dropLeadingMeta(blocks);
  dropTrailingBoilerplate(blocks);
  if (cookies) dropCookieNotices(blocks);
  dropEmptySections(root);
  dropAfterLastRule(root);
}

const MEDIA = new Set(['img', 'picture', 'video', 'audio', 'iframe', 'table', 'pre', 'math']);

/**
 * A heading that introduces nothing — the next thing after it is a heading of its level or
 * above, or the end of the content — is the title of a section whose body was a widget
 * (a "Comments" heading over an empty thread, "Share this" over a removed share bar).
 */
function dropEmptySections(root: ParentNode): void {
  // Headings met since the last content, in order; judged when content or the end comes.
  let run: Element[] = [];
  const settle = (contentFollows: boolean) => {
    // Backwards through the run: a heading is empty when what follows it (content, the next
    // heading that stays, or the end) is not deeper than it; an empty heading is transparent.
    // (At the end of the content only the last heading counts as followed by nothing.)
    let after = 7;
    for (let i = run.length - 1; i >= 0; i--) {
      const el = run[i];
      const level = el.name.charCodeAt(1) - 48;
      const empty = (!contentFollows && i === run.length - 1) || after <= level;
      if (empty && el !== first) removeNode(el);
      else after = level;
    }
    run = [];
  };
  // The content's very first item is never dropped (a lone title above a picture).
  let first: Element | undefined;
  let seenAny = false;
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (isTextNode(n)) {
      if (NON_SPACE.test(n.data)) {
        if (run.length) settle(true);
        seenAny = true;
      }
      continue;
    }
    if (!isElement(n)) continue;
    if (HEADINGS.test(n.name)) {
      if (!seenAny) first = n;
      seenAny = true;
      run.push(n);
    } else if (MEDIA.has(n.name)) {
      if (run.length) settle(true);
      seenAny = true;
    } else for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  if (run.length) settle(false);
}

const NON_SPACE = /\S/;

/** What only a page's foot says: copyright, phone and fax numbers, postal boxes, tag and credit lines, calls to subscribe or follow. */
const TRAILER =
  /\b(?:tel|phone|fone|fax)\s*[:.]|\(?\b\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b|\bcnpj\b|caixa postal|\bp\.?\s?o\.? box\b|©|\bcopyright\b|all rights reserved|\bsubscribe\b|newsletter|\bfollow (?:us|me|him|her|them)\b|\bsign up\b|share this|\bupdated at\b|^tags?\s*:|\bfiled under\b|may be reached at|^(?:photo|image|source|credit)s?\s*:|todos os direitos|tous droits|alle rechte|derechos reservados|tutti i diritti/i;

/** "Contact us": a foot's line ("Contact us: …"), which a paragraph may also say. */
const CONTACT_CALL = /\bcontact us\b/i;

/**
 * A "contact us" line is a trailer when it is this short ("Contact us", "Contact us: 555 …");
 * longer, it is a paragraph that asks something of the reader among others ("Read our first
 * post or the second post. You can also contact us.": 64). (Issue 40.)
 */
const CONTACT_CALL_MAX = 50;

/** Copyright, newsletter and "follow us" lines after the last paragraph (and after the last heading: a heading opens content). */
function dropTrailingBoilerplate(blocks: Element[]): void {
  const live = blocks.filter((b) => isAttached(b));
  for (let i = live.length - 1, seen = 0; i >= 0 && seen < 8; i--, seen++) {
    if (HEADINGS.test(live[i].name)) return;
    const raw = textOf(live[i]);
    const len = collapsedLength(raw);
    if (len > 250) return;
    const line = collapse(raw);
    if (TRAILER.test(line) || (len <= CONTACT_CALL_MAX && CONTACT_CALL.test(line))) removeNode(live[i]);
    else if (len > 60) return;
  }
}

/** Text after the content's last horizontal rule shorter than this, with no sentence, is a label row past the article's end. */
const AFTER_RULE_MAX = 150;

/**
 * A horizontal rule followed only by a few words ("Mehr Themen:", "No comments", a lone
 * label) marks where the article ended and the page's furniture began: both go. Rules in a
 * row at the end (a label between two of them) are one such end. Read backwards from the
 * content's end, and only as far as a label row can reach.
 */
function dropAfterLastRule(root: ParentNode): void {
  let cut: Element | undefined;
  let text = '';
  const stack: AnyNode[] = [...root.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (isTextNode(n)) {
      // Blank nodes add nothing (and are not counted: a page of them stays linear).
      if (!NON_SPACE.test(n.data)) continue;
      text = `${n.data} ${text}`;
      if (collapsedLength(text) >= AFTER_RULE_MAX) break;
    } else if (isElement(n)) {
      if (n.name === 'hr') {
        if (SENTENCE_BREAK.test(collapse(text))) break;
        cut = n;
      } else if (MEDIA.has(n.name)) break;
      else for (const c of n.children) stack.push(c);
    }
  }
  if (!cut) return;
  // Everything after the rule, level by level up to the root: each run of siblings is cut off
  // at once (one by one, a page ending in thousands of rules took seconds).
  for (let n: AnyNode = cut; n !== (root as AnyNode) && n.parent; n = n.parent) {
    const kids = n.parent.children;
    for (const x of kids.splice(kids.indexOf(n as never) + 1)) x.parent = x.prev = x.next = null;
    n.next = null;
  }
  removeNode(cut);
}

/** A sentence's end followed by the start of another: text past a rule that is more than a label. */
const SENTENCE_BREAK = /[.!?]["'”»)]?\s+\p{Lu}/u;

export const COOKIE_NOTICE =
  /\b(?:uses?|utiliza|utilise|verwendet|utilizza) (?:of )?cookies\b|\bcookie (?:policy|settings|preferences)\b|\baccept(?:ing)? (?:all )?cookies\b/i;

/** Cookie consent text that a theme placed inside the article container. */
function dropCookieNotices(blocks: Element[]): void {
  for (const b of blocks) {
    const t = shortTextOf(b, 600);
    if (t !== undefined && t.includes('ookie') && COOKIE_NOTICE.test(t) && isAttached(b)) removeNode(b);
  }
}

/** The element's text when shorter than `max` characters; undefined as soon as it is not (no long strings built). */
function shortTextOf(el: Element, max: number): string | undefined {
  let s = '';
  const stack: AnyNode[] = [el];
  while (stack.length) {
    const n = stack.pop()!;
    if (isTextNode(n)) {
      s += n.data;
      if (s.length >= max) return undefined;
    } else if (isElement(n) && n.name !== 'script' && n.name !== 'style') {
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
    }
  }
  return s;
}

function isAttached(n: AnyNode): boolean {
  let p: AnyNode | null = n;
  while (p?.parent) p = p.parent;
  return p?.type === 'root';
}

function dropRepeatedBlocks(blocks: Element[]): void {
  const seen = new Set<string>();
  for (const b of blocks) {
    // Only captions: articles legitimately repeat paragraphs (recipes, plans), galleries repeat captions.
    if (b.name !== 'figcaption' && b.name !== 'caption' && !/caption/i.test(b.attribs.class ?? '')) continue;
    const t = norm(textOf(b));
    if (t.length < 40) continue;
    if (seen.has(t)) removeNode(b);
    else seen.add(t);
  }
}

/** Words only a byline says: "By …", "Published", "Updated", a reading time. */
const BYLINE_WORDS = new RegExp(
  [
    String.raw`^(?:by|por|par|von|di|door|av|przez|от|作者)\s`,
    String.raw`\b(?:published|updated|posted|publicado|publié|veröffentlicht|pubblicato|atualizado|mis à jour|aktualisiert)\b`,
    String.raw`\b\d+\s+(?:min(?:ute)?s?|minutes?)\s+(?:read|de lecture|lesezeit|de leitura|de lectura)\b`,
  ].join('|'),
  'i',
);

const DATE = new RegExp(
  [
    String.raw`\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b`,
    String.raw`\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}\b`,
    String.raw`\b\d{1,2}\.?\s+(?:de\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|janv|févr|mars|avr|mai|juin|juil|août|sept|déc|januar|februar|märz|mai|juni|juli|oktober|dezember|janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro|enero|febrero|marzo|mayo|junio|julio|septiembre|octubre|noviembre|diciembre)[a-zéû]*\.?(?:\s+(?:de\s+)?\d{4})?\b`,
  ].join('|'),
  'i',
);

/** Fields of a meta line set apart ("On behalf of … | Apr 21, 2017 | Products Liability", "Jane Doe · 3 March"). */
const META_SEPARATOR = /\s[|·•]\s/;

/** Boxes a theme names for the article's meta line. */
const META_NAMES = /byline|dateline|(?:^|[\s_-])(?:meta|date|time|author|posted|published)(?:$|[\s_-])/i;

/**
 * A line of bare date takes at least this share of the line's characters ("March 3, 2026",
 * "Jane Doe · 3 March 2026"): less, and it is a sentence that mentions a date (an event's
 * "Saturday 12 September 2026, 10:00 to 17:00, Riverside Hall."), which is content. (Issue 40:
 * datelines of the study pages are mostly their date; event and notice lines a third or less.)
 */
const DATELINE_SHARE = 0.4;

/**
 * A byline or dateline: byline words; a date in a box named for it, beside a <time>, among
 * fields set apart, with a photo credit (a press picture's dated caption), or most of the line.
 */
function isMetaLine(b: Element, text: string): boolean {
  if (BYLINE_WORDS.test(text)) return true;
  const date = DATE.exec(text);
  if (!date) return false;
  if (
    META_NAMES.test(`${b.attribs.id ?? ''} ${b.attribs.class ?? ''}`) ||
    findTime(b) ||
    META_SEPARATOR.test(text) ||
    PHOTO_CREDIT.test(text)
  )
    return true;
  return date[0].length >= DATELINE_SHARE * text.length;
}

function findTime(el: Element): boolean {
  for (const c of el.children) if (isElement(c) && (c.name === 'time' || findTime(c))) return true;
  return false;
}

/** Short byline/date lines before the first real paragraph (one or two; more is a list of dates). */
function dropLeadingMeta(blocks: Element[]): void {
  const found: Element[] = [];
  for (const b of blocks.slice(0, 10)) {
    if (!isAttached(b)) continue;
    const raw = textOf(b);
    if (collapsedLength(raw) >= 150) break;
    if (HEADINGS.test(b.name)) continue;
    if (isMetaLine(b, collapse(raw))) found.push(b);
  }
  if (found.length <= 2) for (const b of found) removeNode(b);
}

const CAPTION_CLASS = /(?:^|[\s_-])(?:caption|credit|image-credit|photo-credit)s?(?:$|[\s_-])/i;

/**
 * Press pictures' captions: those giving a photo credit, and (`all`) every picture caption of a
 * story (a page stating an article or its publication date) or of a product's gallery: news
 * texts leave them out (the article-extraction benchmark's and trafilatura's truths do; the
 * images keep their alt text). Every other caption is content (issue 40), and so is, on any
 * page, a quotation's attribution (a figure's caption beside a blockquote, not a picture).
 */
export function dropPictureCaptions(root: ParentNode, all: boolean): void {
  const doomed: Element[] = [];
  const stack: AnyNode[] = [...root.children];
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (
      (n.name === 'figcaption' || CAPTION_CLASS.test(n.attribs.class ?? '')) &&
      !hasImage(n) &&
      !attributes(n) &&
      (all || PHOTO_CREDIT.test(textOf(n)))
    ) {
      doomed.push(n);
      continue;
    }
    for (const c of n.children) stack.push(c);
  }
  for (const n of doomed) removeNode(n);
}

/**
 * A press picture's credit: a copyright sign, a "Photo:" label, an agency. A caption that
 * gives one is a news photo's, whatever the page states (the benchmarks' study pages: "©
 * Reuters / …", "(AP Photo/…)", "Foto: …").
 */
const PHOTO_CREDIT =
  /©|\((?:c|foto|photo)\)|\b(?:photo|foto|image|bild|picture|credit|source|quelle|crédit)s?\s*:|\b(?:ap photo|reuters|afp|getty images|shutterstock|dpa|epa|istock)\b/i;

/** A caption that names a quotation's author: its figure holds a blockquote. */
function attributes(caption: Element): boolean {
  const figure = caption.parent;
  return !!figure && isElement(figure) && figure.children.some((c) => isElement(c) && c.name === 'blockquote');
}

const RELATED_HEADING = new RegExp(
  '^(?:related|you (?:may|might) (?:also )?(?:like|enjoy)|more (?:from|stories|on|in)|read (?:more|next|also)|recommended|' +
    'most (?:read|popular)|popular|trending|see also|also read|leia (?:também|mais)|você (?:pode|também pode) gostar|' +
    'lire aussi|à lire aussi|sur le même sujet|auch interessant|weitere artikel|mehr zum thema|te puede interesar|' +
    'también te puede|lee también|ti potrebbe|leggi anche|关联|相关)',
  'i',
);

const STRONG_RELATED =
  /^(?:you (?:may|might) (?:also )?(?:like|enjoy)|more stories|read next|recommended for you|leia também|você (?:pode|também pode) gostar|lire aussi|à lire aussi|te puede interesar|también te puede|ti potrebbe|auch interessant)/i;

/**
 * A "Related / You may also like" heading ends the article: drop it and what follows it.
 * `sectionOnly` (a product page, whose own sections — features, specifications, questions —
 * often follow a carousel of other items): drop only the heading's section, that is the box
 * it starts, or the heading and its siblings up to the next heading of its level or above.
 */
export function cutAfterRelatedHeading(root: ParentNode, sectionOnly = false): void {
  for (const h of outermost(root, (e) => /^h[2-6]$/.test(e.name))) {
    const text = textOf(h).trim();
    if (text.length > 60 || !RELATED_HEADING.test(text)) continue;
    // Climb to the child of root that holds the heading only if the heading starts it.
    let node: AnyNode = h;
    while (node.parent && node.parent !== root && firstElementChild(node.parent) === node) node = node.parent;
    const tail: AnyNode[] = [];
    const level = Number(h.name[1]);
    for (let cur: AnyNode | null = node; cur; cur = cur.next) {
      if (
        sectionOnly &&
        cur !== node &&
        (node !== h || (isElement(cur) && /^h[1-6]$/.test(cur.name) && Number(cur.name[1]) <= level))
      )
        break;
      tail.push(cur);
    }
    const tailText = tail.reduce((n, c) => n + textOf(c).length, 0);
    // Only a tail: the article must come before it and stay the larger part — unless the
    // heading is unmistakable ("You may also like") and a real paragraph precedes it.
    const rootText = textOf(root).length;
    if (tailText > 0.4 * rootText && !(STRONG_RELATED.test(text) && rootText - tailText >= 200)) continue;
    for (const c of tail) removeNode(c);
    return;
  }
}

function firstElementChild(p: ParentNode): AnyNode | undefined {
  return p.children.find((c) => isElement(c) || (isTextNode(c) && c.data.trim() !== ''));
}
