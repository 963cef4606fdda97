/**
 * Page chrome by name (main-content.ts's third step): the tags, roles and class names that mark
 * navigation, banners, share bars, comments and other add-ons, and those that mark the article.
 */
import type { Element } from './dom.js';
import { findFirst as findFirstIn } from './dom.js';

const CHROME_TAGS = new Set(['nav', 'footer', 'aside']);
const CHROME_ROLES = /^(?:navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar)$/;

const NEGATIVE = new RegExp(
  [
    'cookie',
    'consent',
    'gdpr',
    'banner',
    'advert',
    'adslot',
    'ad-slot',
    'ad-container',
    'adsense',
    'dfp',
    'sponsor',
    'promo',
    'social',
    'share',
    'sharing',
    'newsletter',
    'subscribe',
    'signup',
    'sign-up',
    'related',
    'recommend',
    'popular',
    'trending',
    'most-read',
    'mostread',
    'comment',
    'disqus',
    'breadcrumb',
    'sidebar',
    'side-bar',
    '(?:^|[\\s_-])widget',
    'outbrain',
    'taboola',
    'modal',
    'popup',
    'overlay',
    'paywall',
    'footer',
    'masthead',
    'skip',
    'toolbar',
    'pagination',
    'pager',
    'byline',
    'author-info',
    'author-bio',
    'tags',
    'tag-list',
    'taglist',
    'read-more',
    'readmore',
    'more-stories',
    'next-article',
    'prev-next',
    'print',
    'rating',
    'follow',
    'nav',
    'menu',
    'header-',
    'top-bar',
    'utility',
    'login',
    'teaser',
    'card-list',
    'inline-ad',
    'native-ad',
    'gallery',
    'slideshow',
    'carousel',
    // Wikis' "[edit]" links beside each heading.
    'editsection',
    'edit-section',
  ].join('|'),
  'i',
);
export const STRONG_CHROME =
  /gallery|slideshow|carousel|comment|related|recommend|newsletter|cookie|consent|outbrain|taboola|disqus|advert|sponsor/i;
/** Names that mark the article itself; they protect a container from the negative list. */
const POSITIVE =
  /article|body|content|entry|main|post|story|text|blog|prose|rich-?text|markdown|page-?content|embed|twitter-tweet|instagram-media/i;
export const ARTICLE_BODY =
  /(?:^|[\s_-])(?:article-?body|articlebody|post-?body|entry-?content|post-?content|story-?body|article-?content|article__body|article__content|body-?text|article-?text|story-?content|main-?content|c-entry-content|post-?entry|rich-?text)(?:$|[\s_-])/i;

export const idClass = (el: Element) => `${el.attribs.id ?? ''} ${el.attribs.class ?? ''}`;

export function isChromeTag(el: Element): boolean {
  if (CHROME_TAGS.has(el.name)) return true;
  const role = el.attribs.role;
  return !!role && CHROME_ROLES.test(role);
}

/** Elements whose class names can mark page chrome; custom elements (mjx-container) cannot. */
const NAMED_CHROME_HOSTS = new Set([
  'div',
  'section',
  'aside',
  'ul',
  'ol',
  'nav',
  'header',
  'footer',
  'form',
  'table',
  'figure',
  'p',
  'span',
  'a',
  'li',
  'dl',
  'center',
  'iframe',
]);

/**
 * An element's designer-given names. An id of four words or more is a heading's anchor
 * ("sharing-with-a-single-developer" on a docs page about sharing), not a role.
 */
function chromeNames(el: Element): string {
  const id = el.attribs.id ?? '';
  let cls = el.attribs.class ?? '';
  // "js-" classes are hooks for scripts, named for what a script does with the element
  // ("js-lightbox-gallery": its pictures open in a lightbox), not for what it is.
  if (cls.includes('js')) cls = cls.replace(JS_HOOK, ' ');
  if (cls.includes('elementor-')) cls = cls.replace(BUILDER_LAYOUT, ' ');
  return `${id.split(/[-_]/).length >= 4 ? '' : id} ${cls}`;
}

const JS_HOOK = /(?:^|\s)js[-_]\S*/gi;

/**
 * A page builder's layout units, named for the builder's own parts ("elementor-widget-wrap",
 * "elementor-widget-heading"): every box of such a page is a "widget", its content's too. What
 * a unit holds is still named after it ("elementor-widget-share-buttons", "-nav-menu", "-form").
 */
const BUILDER_LAYOUT =
  /(?:^|\s)elementor-(?:widget(?:-(?:wrap|container|heading|text-editor|image|icon-list|icon-box|button|spacer|divider|video|html|shortcode|accordion|toggle|tabs|testimonial|image-box|counter|alert))?|element\S*|column\S*|section\S*|container\S*|top-\S*|inner-\S*|col-\S*)(?=\s|$)/g;

export function isChrome(el: Element): boolean {
  if (isChromeTag(el)) return true;
  if (!NAMED_CHROME_HOSTS.has(el.name)) return false;
  const names = chromeNames(el);
  if (names.length < 2) return false;
  if (ARTICLE_BODY.test(names)) return false;
  return NEGATIVE.test(names) && !POSITIVE.test(names);
}

const NEVER_THE_ARTICLE =
  /(?:^|[\s_-])(?:comments?|comment-?(?:list|box|area|section|thread)s?|disqus\w*|related|recommend\w*|outbrain|taboola)(?:$|[\s_-])/i;

/** Named as a comment thread or a related-stories box (and not holding the page's h1). */
export function neverTheArticle(el: Element): boolean {
  const a = el.attribs;
  // (Most elements have no names, or names that say nothing of comments: tested raw first.)
  if (
    (!a.class && !a.id) ||
    !NAMED_CHROME_HOSTS.has(el.name) ||
    !(NEVER_THE_ARTICLE.test(a.class ?? '') || NEVER_THE_ARTICLE.test(a.id ?? ''))
  )
    return false;
  const names = chromeNames(el);
  return NEVER_THE_ARTICLE.test(names) && !ARTICLE_BODY.test(names) && !findFirstIn(el, (e) => e.name === 'h1');
}
