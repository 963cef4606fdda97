/**
 * Candidate scoring (main-content.ts's second step): one post-order pass gives every element the
 * reading text it holds; sentences count for it, link lists and short fragments against it.
 */
import type { AnyNode, Element, ParentNode } from './dom.js';
import {
  ScoredElement,
  PipelineText,
  collapsedLength,
  isElement,
  isTextNode,
  singleSpacedLength,
  HEADING_TAGS,
} from './dom.js';
import { needsWork } from './markdown-text.js';
import { isTeaserList } from './teasers.js';

export interface Stats {
  /** Characters of text outside links. */
  text: number;
  /** Characters of text inside links. */
  link: number;
  /** Reading-text score: long, sentence-like blocks add; link lists and fragments subtract. */
  score: number;
  /** Number of sentence-like blocks. */
  paras: number;
  /** The table these numbers belong to. */
  owner?: StatsTable;
}

/**
 * Each node's numbers for one selection, in the slot the parser gave every element (see
 * ScoredElement): a Map keyed by node cost an identity hash per element. An entry counts
 * only for the table that wrote it, so a new table (after a re-score) starts empty. Nodes
 * without the slot (the document, elements made elsewhere) go in a small Map.
 */
export class StatsTable {
  readonly #others = new Map<AnyNode, Stats>();
  /** Subtrees whose text neither adds to nor takes from a score (teaser lists). */
  neutral?: Set<AnyNode>;

  get(n: AnyNode): Stats | undefined {
    if (n instanceof ScoredElement) {
      const s = n.score as Stats | undefined;
      return s?.owner === this ? s : undefined;
    }
    return this.#others.get(n);
  }

  set(n: AnyNode, s: Stats): void {
    s.owner = this;
    if (n instanceof ScoredElement) n.score = s;
    else this.#others.set(n, s);
  }
}

const HEADING_TAG = /^h[1-6]$/;

export const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  ...HEADING_TAGS,
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'table',
  'tr',
  'td',
  'th',
  'dl',
  'dt',
  'dd',
  'figure',
  'figcaption',
  'body',
  'center',
  'form',
  'fieldset',
  'address',
  'details',
  'summary',
  'tbody',
  'thead',
  'tfoot',
  'span',
]);

/** What the first scoring pass finds on its way: the page's h1/h2 headings (in order) and its teaser lists. */
export interface Found {
  headings: Element[];
  neutral: Set<AnyNode>;
}

export function insideAny(el: Element, set: Set<AnyNode>): boolean {
  if (!set.size) return false;
  for (let n: AnyNode | null = el.parent; n; n = n.parent) if (set.has(n)) return true;
  return false;
}

/**
 * Post-order pass. Text is gathered into the nearest block; a block's own inline text is
 * judged once (sentence or fragment, link share) and its verdict flows up to every ancestor.
 * `seen.cookies` is set when some text mentions cookies. Text nodes markdown would take as
 * they are are marked plain (PipelineText.plain): scoring reads every text node anyway, so
 * markdown need not scan them again.
 */
export function computeStats(root: ParentNode, stats: StatsTable, seen?: { cookies: boolean }, found?: Found): Stats {
  // marks: headings and linked pictures in the subtree, what every teaser holds one of (teasers.ts).
  type Frame = {
    node: ParentNode;
    i: number;
    s: Stats;
    ownText: number;
    ownLink: number;
    ownRaw: string;
    marks: number;
    /** An <a> counted as a link (not a heading's anchor to its own section). */
    link?: boolean;
  };
  const mk = (node: ParentNode): Frame => ({
    node,
    i: 0,
    s: { text: 0, link: 0, score: 0, paras: 0, owner: stats },
    ownText: 0,
    ownLink: 0,
    ownRaw: '',
    marks: 0,
  });
  const frames: Frame[] = [mk(root)];
  // Inline text is credited to the innermost block frame; linkDepth tracks <a> nesting.
  const blockFrames: Frame[] = [frames[0]];
  let linkDepth = 0;
  while (frames.length) {
    const f = frames[frames.length - 1];
    if (f.i < f.node.children.length) {
      const c = f.node.children[f.i++];
      if (isTextNode(c)) {
        const t = c.data;
        if (seen && !seen.cookies && mentionsCookies(t)) seen.cookies = true;
        let len: number;
        if (c instanceof PipelineText && !needsWork(t)) {
          c.plain = true;
          len = singleSpacedLength(t);
        } else len = collapsedLength(t);
        if (len) {
          const bf = blockFrames[blockFrames.length - 1];
          if (linkDepth) bf.ownLink += len;
          else bf.ownText += len;
          if (bf.ownRaw.length < 400) bf.ownRaw += t;
        }
      } else if (isElement(c)) {
        const nf = mk(c);
        frames.push(nf);
        if (found && (c.name === 'h1' || c.name === 'h2')) found.headings.push(c);
        // A heading's link to its own section (href="#…") names the section: its text is the heading's.
        if (
          c.name === 'a' &&
          !(
            HEADING_TAG.test((blockFrames[blockFrames.length - 1].node as Element).name ?? '') &&
            c.attribs.href?.startsWith('#')
          )
        ) {
          nf.link = true;
          linkDepth++;
        }
        if (BLOCKS.has(c.name) && c.name !== 'span') blockFrames.push(nf);
      }
      continue;
    }
    frames.pop();
    const el = f.node as Element;
    if (f.link) linkDepth--;
    const isBlockFrame = blockFrames[blockFrames.length - 1] === f;
    if (isBlockFrame) {
      blockFrames.pop();
      // Captions describe pictures; they are neither the article's text nor against it.
      if (el.name === 'figcaption' || /caption/i.test(el.attribs?.class ?? '')) {
        f.s.text += f.ownText;
        f.s.link += f.ownLink;
      } else judgeOwnText(f, el.name, (el.parent as Element | null)?.name);
    }
    if (found && (el.name === 'img' ? linkDepth > 0 : HEADING_TAG.test(el.name))) f.marks++;
    // Three teasers hold three marks and nine characters of linked text at least: nothing to look at otherwise.
    if (found && f.marks >= 3 && f.s.link >= 9 && el.children?.length >= 3 && isTeaserList(el)) found.neutral.add(el);
    if (stats.neutral?.size && stats.neutral.has(f.node)) {
      f.s.score = 0;
      f.s.paras = 0;
    }
    stats.set(f.node, f.s);
    const parent = frames[frames.length - 1];
    if (parent) {
      parent.s.text += f.s.text;
      parent.s.link += f.s.link;
      parent.s.score += f.s.score;
      parent.s.paras += f.s.paras;
      parent.marks += f.marks;
      if (!isBlockFrame) {
        // Inline element: its own text already went to the enclosing block frame.
      }
    }
  }
  return stats.get(root)!;

  function judgeOwnText(f: Frame, tag: string, parentTag: string | undefined) {
    const text = f.ownText;
    const link = f.ownLink;
    f.s.text += text;
    f.s.link += link;
    const total = text + link;
    if (!total) return;
    const density = link / total;
    const commas = countCommas(f.ownRaw);
    if (density > 0.5 && tag === 'p' && isLinkedSentence(f.node as Element, text)) {
      // A sentence whose words are mostly links ("Read our first post or the second post.")
      // is prose that points somewhere: neither a paragraph of the article nor a link list.
    } else if (density > 0.5) {
      // Linked table cells are data (an infobox, a comparison), and so is a linked term of a
      // definition list (a reference's member, defined beside it); linked list items are menus.
      if (tag !== 'td' && tag !== 'th' && tag !== 'dt') f.s.score -= total;
    } else if (tag === 'pre' || (total >= 80 && (commas > 1 || SENTENCE_END.test(f.ownRaw))) || total >= 200) {
      f.s.score += text * (1 - density) + 25 * Math.min(commas, 10);
      f.s.paras += 1;
    } else if (/^h[1-6]$/.test(tag) || total >= 40) {
      f.s.score += text * 0.2;
    } else if (
      LIST_ITEMS.has(tag) ||
      (tag === 'p' &&
        ((parentTag !== undefined && LIST_ITEMS.has(parentTag)) ||
          (!link && total >= 12 && CLOSED_SENTENCE.test(f.ownRaw))))
    ) {
      // Short list items and cells are normal in articles; they neither help nor hurt —
      // nor does an item's text wrapped in a paragraph (`<li><p>Alpha</p></li>`, as
      // markdown renders loose lists, had made whole lists read as fragments), nor a
      // paragraph of one short sentence ("Call us any time.").
    } else {
      f.s.score -= total * 0.4;
    }
  }
}

const LIST_ITEMS = new Set(['li', 'td', 'th', 'dd', 'dt']);

/**
 * Characters of unlinked text a sentence of links needs around its links: the glue of "Read
 * <a>…</a> or the <a>…</a>." or "More in <a>…</a>, <a>…</a> and <a>…</a>." (~20), which a menu
 * ("Home | About | Contact") or a bare "<a>Next</a>." lacks. (Issue 40's link paragraphs.)
 */
export const LINKED_SENTENCE_GLUE = 12;

/**
 * A paragraph that is one or more sentences with links in them: words of its own between the
 * links, and its end, a sentence's, in its own words ("… <a>contact us</a>."), not in a link's
 * ("Read also » <a>Ten ways to sleep better?</a>": a teaser line).
 */
export function isLinkedSentence(el: Element, unlinked: number): boolean {
  if (unlinked < LINKED_SENTENCE_GLUE) return false;
  let own = '';
  let last: { data: string; linked: boolean } | undefined;
  const walk = (n: AnyNode, linked: boolean) => {
    if (isTextNode(n)) {
      if (!/\S/.test(n.data)) return;
      last = { data: n.data, linked };
      if (!linked) own += `${n.data} `;
    } else if (isElement(n)) for (const c of n.children) walk(c, linked || n.name === 'a');
  };
  walk(el, false);
  return !!last && !last.linked && CLOSED_SENTENCE.test(last.data) && SENTENCE_GLUE.test(own);
}

/** Two words in a row outside any link, as sentences have ("You can also", "or the"). */
const SENTENCE_GLUE = /\p{L}+\s+\p{L}+/u;

/** Whether `t` says "cookie" (lower case, as the notices' checks). Looking for the rare "k"
 * first: a search for "ookie" stops at every "o" of the text, and this runs on every text node. */
const mentionsCookies = (t: string) => t.includes('kie') && t.includes('ookie');

const SENTENCE_END = /[.!?。！？]["'”’)]?(?:\s|$)/;
/** Text that ends as a sentence does ("Call us any time."): a short one is content, not a fragment. */
export const CLOSED_SENTENCE = /[.!?。！？]["'”’)]?\s*$/;
/** Commas (Latin, full-width and ideographic) in `s`, counted up to the 10 that scoring uses. */
function countCommas(s: string): number {
  // One native indexOf scan per kind (a block's text often has none: the regex walked it
  // position by position); a two-byte comma is never looked for in one-byte text.
  let n = countUpTo(s, ',', 10);
  if (n < 10) n += countUpTo(s, '，', 10 - n);
  if (n < 10) n += countUpTo(s, '、', 10 - n);
  return n;
}

function countUpTo(s: string, c: string, max: number): number {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0 && n < max; i = s.indexOf(c, i + 1)) n++;
  return n;
}
