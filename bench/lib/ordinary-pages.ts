/**
 * Ordinary pages, generated: the pages a small business or a project puts up (home, about,
 * pricing, docs, FAQ, blog post, changelog, contact, recipe, event, landing, a short page, a
 * one-sentence notice), in
 * three markup styles (semantic landmarks, div soup, page-builder wrappers where every h2
 * group is its own nested section), with a site's chrome around them and, optionally, one
 * harmless element added inside the content. Every page knows its truth: the blocks of its
 * main content (headings, paragraphs, list items, table rows, captions …) and the chrome
 * strings that must not appear in it. All texts are written here; a seed picks the brand,
 * the chrome, the builder's flavour and where the added element goes (deterministic).
 *
 * Used by the metamorphic tests (test/engine/document/ordinary-pages.test.ts) and by
 * `npm run eval:ordinary` (bench/eval-ordinary.ts), on different seeds.
 */

export const STYLES = ['semantic', 'div-soup', 'page-builder'] as const;
export type Style = (typeof STYLES)[number];

export const KINDS = [
  'home',
  'about',
  'pricing',
  'docs',
  'faq',
  'blog-post',
  'changelog',
  'contact',
  'recipe',
  'event',
  'landing',
  'short',
  'notice',
] as const;
export type Kind = (typeof KINDS)[number];

export const PERTURBATIONS = [
  'none',
  'link-paragraph',
  'related-list',
  'one-line',
  'newsletter',
  'share-buttons',
  'figure',
  'table',
  'code',
  'heading-anchor',
  'call-to-action',
  'video',
  'note',
] as const;
export type Perturbation = (typeof PERTURBATIONS)[number];

/** A block of content, rendered the same way in every style (only the wrappers differ). */
type Block =
  | { t: 'p'; html: string }
  | { t: 'ul' | 'ol'; items: string[] }
  | { t: 'table'; head: string[]; rows: string[][] }
  | { t: 'pre'; code: string }
  | { t: 'quote'; text: string; cite: string }
  | { t: 'details'; items: [string, string][] }
  | { t: 'dl'; items: [string, string][] }
  | { t: 'figure'; src: string; alt: string; caption: string }
  | { t: 'h3'; text: string }
  /** An added element: its html, the blocks of it that are content, and strings that must not appear. */
  | { t: 'raw'; html: string; truth: string[]; forbidden: string[] };

interface Section {
  heading: string;
  /** The heading's html when it is not its text (a heading with an anchor link). */
  headingHtml?: string;
  blocks: Block[];
}

interface Content {
  title: string;
  /** A line the page shows above its text that is no block of content (a byline): neither required nor forbidden. */
  byline?: string;
  intro: Block[];
  sections: Section[];
}

export interface OrdinaryPage {
  id: string;
  kind: Kind;
  style: Style;
  perturbation: Perturbation;
  url: string;
  html: string;
  /** The main content's blocks, as text (table rows: their cells joined by spaces). */
  truth: string[];
  /** Of `truth`, the blocks the added element brought (content such as a caption or a table). */
  added: string[];
  /** Strings that must not appear: the site's chrome and the added element's non-content. */
  chrome: string[];
}

/** mulberry32: a small deterministic generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BRANDS = [
  'Acme',
  'Birchwood',
  'Coral Bay',
  'Dunmore',
  'Elmstead',
  'Fernhill',
  'Greyhaven',
  'Hollowmere',
  'Ivybridge',
  'Juniper Lane',
  'Kestrel',
  'Larkspur',
];

const p = (html: string): Block => ({ t: 'p', html });

function content(kind: Kind, b: string): Content {
  switch (kind) {
    case 'home':
      return {
        title: `${b} Widgets`,
        intro: [
          p(
            `Welcome to ${b}. We have been making reliable widgets for homes and workshops since 1987, and today our catalogue counts more than four hundred models.`,
          ),
        ],
        sections: [
          {
            heading: `Why ${b}`,
            blocks: [
              {
                t: 'ul',
                items: ['Durable steel construction.', 'Free repairs for ten years.', 'Shipped within two days.'],
              },
            ],
          },
          {
            heading: 'Best sellers',
            blocks: [
              p('These three models make up half of what we send out each month, from hobby benches to busy garages.'),
              {
                t: 'table',
                head: ['Model', 'Price'],
                rows: [
                  ['W-100', '$19.99'],
                  ['W-250', '$34.50'],
                  ['W-400', '$58.00'],
                ],
              },
            ],
          },
          {
            heading: 'Visit the workshop',
            blocks: [
              p(
                'Our workshop on the old mill road is open to visitors on weekdays, and the team is happy to show you how each widget is built and tested.',
              ),
            ],
          },
        ],
      };
    case 'about':
      return {
        title: `About ${b}`,
        intro: [
          p(
            `${b} started as a two-person repair shop above a bakery. Thirty years later we are a team of forty who still answer every letter by hand.`,
          ),
        ],
        sections: [
          {
            heading: 'Our story',
            blocks: [
              p(
                'The founders met at a night class on clock repair, and their first product was a brass hinge that neighbours kept asking them to copy.',
              ),
              p(
                'In the nineties the shop moved to a larger unit by the canal, where the first assembly line was set up with second-hand tools.',
              ),
            ],
          },
          {
            heading: 'Our values',
            blocks: [
              { t: 'ul', items: ['Make things that last.', 'Repair before replacing.', 'Pay suppliers on time.'] },
            ],
          },
          {
            heading: 'The team',
            blocks: [
              p(
                'Designers, machinists and a small customer desk share one building, so a question from a customer reaches the person who made the part.',
              ),
            ],
          },
        ],
      };
    case 'pricing':
      return {
        title: `${b} pricing`,
        intro: [
          p('Every plan includes unlimited projects, daily backups and email support from people who use the product.'),
        ],
        sections: [
          {
            heading: 'Plans',
            blocks: [
              { t: 'h3', text: 'Starter' },
              p('For a single workshop getting organised, billed monthly at nine dollars.'),
              { t: 'ul', items: ['Up to three users', 'Five gigabytes of storage', 'Community forum'] },
              { t: 'h3', text: 'Team' },
              p('For growing teams that share stock lists and orders, billed monthly at twenty-nine dollars.'),
              { t: 'ul', items: ['Up to twenty users', 'One hundred gigabytes of storage', 'Priority email support'] },
            ],
          },
          {
            heading: 'Compare plans',
            blocks: [
              {
                t: 'table',
                head: ['Feature', 'Starter', 'Team'],
                rows: [
                  ['Users', '3', '20'],
                  ['Storage', '5 GB', '100 GB'],
                  ['Support', 'Forum', 'Priority email'],
                ],
              },
            ],
          },
          {
            heading: 'Billing questions',
            blocks: [
              p(
                'You can change plans at any time; the difference is worked out by the day and shown on your next invoice, with no fee for switching.',
              ),
            ],
          },
        ],
      };
    case 'docs':
      return {
        title: `Getting started with ${b} CLI`,
        intro: [
          p(
            `The ${b} command line tool syncs your catalogue with the online store. This guide takes about ten minutes and needs a terminal and an account key.`,
          ),
        ],
        sections: [
          {
            heading: 'Install the tool',
            blocks: [
              p('Install the package globally with your package manager, then check that the binary is on your path.'),
              { t: 'pre', code: 'npm install --global widget-sync\nwidget-sync --version' },
            ],
          },
          {
            heading: 'Configure your account',
            blocks: [
              p('The first run asks for the key shown on your account page and writes a small settings file.'),
              {
                t: 'ol',
                items: [
                  'Open the account page and copy the key.',
                  'Run the login command and paste the key.',
                  'Pick the store you want to sync.',
                ],
              },
            ],
          },
          {
            heading: 'Run your first sync',
            blocks: [
              p(
                'The sync command compares local and remote records, prints what it would change, and asks before writing anything to the store.',
              ),
            ],
          },
        ],
      };
    case 'faq':
      return {
        title: 'Frequently asked questions',
        intro: [p(`Answers to what customers ask us most about ordering from ${b}, delivery and returns.`)],
        sections: [
          {
            heading: 'Orders',
            blocks: [
              {
                t: 'details',
                items: [
                  [
                    'Can I change my order after paying?',
                    'Yes, as long as it has not been packed; write to the shop desk within two hours of ordering.',
                  ],
                  [
                    'Do you ship abroad?',
                    'We ship to most of Europe and North America; the checkout shows the cost for your country.',
                  ],
                ],
              },
            ],
          },
          {
            heading: 'Returns',
            blocks: [
              {
                t: 'details',
                items: [
                  [
                    'How long do I have to return an item?',
                    'Thirty days from delivery, in its original packaging, with the slip we sent.',
                  ],
                  [
                    'Who pays for the return postage?',
                    'We do when the item is faulty; otherwise the postage is yours to cover.',
                  ],
                ],
              },
            ],
          },
        ],
      };
    case 'blog-post':
      return {
        title: 'How we cut packaging waste by half',
        byline: 'By Maria Lopez, 3 March 2026',
        intro: [
          p(
            'Last spring we counted every box, bag and roll of tape that left the warehouse, and the number surprised the whole team.',
          ),
          p(
            'Most of the waste came from boxes that were far too large for what they carried, filled up with plastic cushions to stop items rattling.',
          ),
        ],
        sections: [
          {
            heading: 'Measuring first',
            blocks: [
              p(
                'For four weeks the packing team logged the size of each order and the box it went into, which took a few minutes a day.',
              ),
              {
                t: 'quote',
                text: 'We were shipping a lot of air, and paying for it twice.',
                cite: 'Tom Reyes, warehouse lead',
              },
            ],
          },
          {
            heading: 'What we changed',
            blocks: [
              p('We now stock six box sizes instead of two, and paper padding replaced the plastic cushions entirely.'),
              p('Orders are matched to the smallest box that fits by the packing software, so nobody has to guess.'),
            ],
          },
          {
            heading: 'What comes next',
            blocks: [
              p(
                'This year we want returnable crates for our trade customers, starting with the three largest workshops.',
              ),
            ],
          },
        ],
      };
    case 'changelog':
      return {
        title: 'Changelog',
        intro: [p(`Every release of the ${b} app, newest first, with what changed and what we fixed.`)],
        sections: [
          {
            heading: 'Version 2.4.0',
            blocks: [
              {
                t: 'ul',
                items: [
                  'Added export of orders to spreadsheet files.',
                  'Search now matches part numbers with or without dashes.',
                  'Fixed a crash when a product had no picture.',
                ],
              },
            ],
          },
          {
            heading: 'Version 2.3.1',
            blocks: [
              {
                t: 'ul',
                items: ['Fixed totals rounding on invoices in euros.', 'Faster loading of long stock lists.'],
              },
            ],
          },
          {
            heading: 'Version 2.3.0',
            blocks: [
              {
                t: 'ul',
                items: [
                  'New dark theme for the dashboard.',
                  'Barcode scanning on phones.',
                  'Removed the old import wizard.',
                ],
              },
            ],
          },
        ],
      };
    case 'contact':
      return {
        title: `Contact ${b}`,
        intro: [p('We answer every message within one working day. Pick whichever way suits you best.')],
        sections: [
          {
            heading: 'Write to us',
            blocks: [
              p('The shop desk reads the general inbox from eight in the morning until six in the evening.'),
              {
                t: 'dl',
                items: [
                  ['Orders', 'orders desk, extension four'],
                  ['Trade accounts', 'the sales team, extension two'],
                ],
              },
            ],
          },
          {
            heading: 'Opening hours',
            blocks: [
              {
                t: 'table',
                head: ['Day', 'Hours'],
                rows: [
                  ['Monday to Friday', '8:00 to 18:00'],
                  ['Saturday', '9:00 to 13:00'],
                ],
              },
            ],
          },
          {
            heading: 'Find the workshop',
            blocks: [
              p(
                'We are at the end of Mill Lane, behind the old station; there is free parking beside the loading bay.',
              ),
            ],
          },
        ],
      };
    case 'recipe':
      return {
        title: 'Lemon and thyme roast chicken',
        intro: [
          p(
            'A weeknight roast that needs one tray and about an hour, most of it in the oven while you get on with something else.',
          ),
        ],
        sections: [
          {
            heading: 'Ingredients',
            blocks: [
              {
                t: 'ul',
                items: ['One whole chicken', 'Two lemons, halved', 'A bunch of fresh thyme', 'Four cloves of garlic'],
              },
            ],
          },
          {
            heading: 'Method',
            blocks: [
              {
                t: 'ol',
                items: [
                  'Heat the oven to two hundred degrees.',
                  'Stuff the chicken with lemon, thyme and garlic.',
                  'Roast for fifty minutes and rest before carving.',
                ],
              },
            ],
          },
          {
            heading: 'Tips',
            blocks: [p('Save the tray juices: with a splash of water and a spoon of mustard they make a quick sauce.')],
          },
        ],
      };
    case 'event':
      return {
        title: `${b} Spring Craft Fair`,
        intro: [
          p('Saturday 12 September 2026, 10:00 to 17:00, Riverside Hall.'),
          p('Forty makers, live demonstrations and a café run by the local school.'),
        ],
        sections: [
          {
            heading: 'Programme',
            blocks: [
              {
                t: 'table',
                head: ['Time', 'Session'],
                rows: [
                  ['10:30', 'Woodturning for beginners'],
                  ['13:00', 'Natural dyes with garden plants'],
                  ['15:30', 'Repair café'],
                ],
              },
            ],
          },
          {
            heading: 'Tickets',
            blocks: [
              p('Entry is free for children under twelve; adult tickets cost five pounds at the door or online.'),
            ],
          },
        ],
      };
    case 'landing':
      return {
        title: 'Stock control without the spreadsheets',
        intro: [p(`${b} keeps track of every part in your workshop and tells you what to reorder before you run out.`)],
        sections: [
          {
            heading: 'Features',
            blocks: [
              { t: 'h3', text: 'Scan and count' },
              p('Count a shelf in minutes with your phone camera.'),
              { t: 'h3', text: 'Reorder alerts' },
              p('Get a message when a part drops below the level you set.'),
            ],
          },
          {
            heading: 'What customers say',
            blocks: [
              {
                t: 'quote',
                text: 'We stopped running out of screws in the middle of a job.',
                cite: 'Priya Shah, furniture maker',
              },
            ],
          },
          {
            heading: 'Start today',
            blocks: [p('Set up takes an afternoon, and the first month is free for workshops of any size.')],
          },
        ],
      };
    case 'notice':
      // A page that is all but empty, and complete: a heading and one sentence.
      return {
        title: 'Closed on Monday',
        intro: [p(`The ${b} shop is closed on Monday for a stocktake; we open again on Tuesday at nine.`)],
        sections: [],
      };
    case 'short':
      return {
        title: `${b} is moving`,
        intro: [
          p(
            'From the first of June our shop and workshop will be at 14 Harbour Street, a few minutes from the old site.',
          ),
          p('Orders placed in the last week of May may take two extra days to arrive.'),
        ],
        sections: [],
      };
  }
}

/** The element added inside the content, by name. */
function perturbationBlock(kind: Perturbation, b: string): { block: Block; heading?: boolean } | undefined {
  switch (kind) {
    case 'none':
    case 'heading-anchor':
      return undefined;
    case 'link-paragraph':
      return {
        block: {
          t: 'raw',
          html: `<p>Read <a href="/blog/first">our first post</a> or the <a href="/blog/second">second post</a>. You can also <a href="/contact">contact us</a>.</p>`,
          truth: ['Read our first post or the second post. You can also contact us.'],
          forbidden: [],
        },
      };
    case 'related-list':
      return {
        block: {
          t: 'raw',
          html: `<div class="related-posts"><h3>Related posts</h3><ul><li><a href="/blog/oil"><img src="/i/oil.jpg" alt="">Oiling a hinge the right way</a></li><li><a href="/blog/rust"><img src="/i/rust.jpg" alt="">Five ways to stop rust</a></li><li><a href="/blog/bench"><img src="/i/bench.jpg" alt="">Building a bench in a weekend</a></li></ul></div>`,
          truth: [],
          forbidden: [],
        },
      };
    case 'one-line':
      return { block: { t: 'raw', html: '<p>Questions? Call us.</p>', truth: ['Questions? Call us.'], forbidden: [] } };
    case 'newsletter':
      return {
        block: {
          t: 'raw',
          html: `<form class="newsletter-signup" action="/subscribe"><h4>Get the ${b} letter</h4><p>One email a month with new models and workshop stories; unsubscribe whenever you like.</p><input type="email" placeholder="Your email"><button>Subscribe</button></form>`,
          truth: [],
          forbidden: ['One email a month with new models and workshop stories'],
        },
      };
    case 'share-buttons':
      return {
        block: {
          t: 'raw',
          html: `<div class="share-buttons"><span>Share this page:</span> <a href="https://social.example/share?u=x">Post it</a> <a href="https://mail.example/?body=x">Email it</a> <a href="https://pin.example/pin?u=x">Pin it</a></div>`,
          truth: [],
          forbidden: ['Share this page'],
        },
      };
    case 'figure':
      return {
        block: {
          t: 'raw',
          html: `<figure><img src="/images/workshop-floor.jpg" alt="The workshop floor"><figcaption>The assembly floor after the spring refit.</figcaption></figure>`,
          truth: ['The assembly floor after the spring refit.'],
          forbidden: [],
        },
      };
    case 'table':
      return {
        block: {
          t: 'raw',
          html: `<table><thead><tr><th>Size</th><th>Weight</th></tr></thead><tbody><tr><td>Small</td><td>1.2 kg</td></tr><tr><td>Large</td><td>3.4 kg</td></tr></tbody></table>`,
          truth: ['Size Weight', 'Small 1.2 kg', 'Large 3.4 kg'],
          forbidden: [],
        },
      };
    case 'code':
      return {
        block: {
          t: 'raw',
          html: `<pre><code>curl -s https://api.example/v1/status</code></pre>`,
          truth: ['curl -s https://api.example/v1/status'],
          forbidden: [],
        },
      };
    case 'call-to-action':
      return {
        block: {
          t: 'raw',
          html: `<div class="cta-box"><p>Ready to order? <a class="button" href="/shop">Browse the catalogue</a></p></div>`,
          truth: [],
          forbidden: [],
        },
      };
    case 'video':
      return {
        block: {
          t: 'raw',
          html: `<div class="video-embed"><iframe src="https://video.example/embed/abc123" width="560" height="315" title="Video" allowfullscreen></iframe></div>`,
          truth: [],
          forbidden: [],
        },
      };
    case 'note':
      return {
        block: {
          t: 'raw',
          html: `<aside class="note"><p>Note: prices include delivery within the mainland.</p></aside>`,
          truth: ['Note: prices include delivery within the mainland.'],
          forbidden: [],
        },
      };
  }
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const strip = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

function blockHtml(bl: Block): string {
  switch (bl.t) {
    case 'p':
      return `<p>${bl.html}</p>`;
    case 'ul':
    case 'ol':
      return `<${bl.t}>${bl.items.map((i) => `<li>${esc(i)}</li>`).join('')}</${bl.t}>`;
    case 'table':
      return `<table><thead><tr>${bl.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${bl.rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
    case 'pre':
      return `<pre><code>${esc(bl.code)}</code></pre>`;
    case 'quote':
      return `<figure class="quote"><blockquote><p>${esc(bl.text)}</p></blockquote><figcaption>${esc(bl.cite)}</figcaption></figure>`;
    case 'details':
      return bl.items.map(([q, a]) => `<details><summary>${esc(q)}</summary><p>${esc(a)}</p></details>`).join('');
    case 'dl':
      return `<dl>${bl.items.map(([t, d]) => `<dt>${esc(t)}</dt><dd>${esc(d)}</dd>`).join('')}</dl>`;
    case 'figure':
      return `<figure><img src="${bl.src}" alt="${esc(bl.alt)}"><figcaption>${esc(bl.caption)}</figcaption></figure>`;
    case 'h3':
      return `<h3>${esc(bl.text)}</h3>`;
    case 'raw':
      return bl.html;
  }
}

function blockTruth(bl: Block): string[] {
  switch (bl.t) {
    case 'p':
      return [strip(bl.html)];
    case 'ul':
    case 'ol':
      return bl.items;
    case 'table':
      return [bl.head.join(' '), ...bl.rows.map((r) => r.join(' '))];
    case 'pre':
      return [bl.code];
    case 'quote':
      return [bl.text, bl.cite];
    case 'details':
    case 'dl':
      return bl.items.flat();
    case 'figure':
      return [bl.caption];
    case 'h3':
      return [bl.text];
    case 'raw':
      return bl.truth;
  }
}

interface Chrome {
  nav: string[];
  footer: string;
  cookie?: string;
  sidebar?: string[];
}

function chromeOf(b: string, r: () => number): Chrome {
  return {
    nav: ['Shop online', 'The journal', 'Stockists', 'Wholesale', 'Gift cards'],
    footer: `© 2026 ${b} Ltd. Registered office: Unit 4, Canal Yard.`,
    cookie: r() < 0.5 ? 'We use cookies to remember your basket and count visits.' : undefined,
    sidebar:
      r() < 0.5
        ? ['Spring cleaning checklist for sheds', 'Our favourite hand tools this year', 'Meet the night shift']
        : undefined,
  };
}

function chromeStrings(c: Chrome): string[] {
  return [...c.nav, c.footer, ...(c.cookie ? [c.cookie] : []), ...(c.sidebar ?? [])];
}

const navList = (c: Chrome) => `<ul>${c.nav.map((n, i) => `<li><a href="/n${i}">${n}</a></li>`).join('')}</ul>`;
const sideList = (c: Chrome) =>
  `<h3>Recent posts</h3><ul>${(c.sidebar ?? []).map((s, i) => `<li><a href="/post-${i}">${s}</a></li>`).join('')}</ul>`;
const cookieBox = (c: Chrome, cls: string) =>
  c.cookie ? `<div class="${cls}"><p>${c.cookie}</p><button>Accept</button></div>` : '';

function sectionHtml(s: Section): string[] {
  return [s.headingHtml ?? `<h2>${esc(s.heading)}</h2>`, ...s.blocks.map(blockHtml)];
}

function renderSemantic(c: Content, ch: Chrome, b: string, r: () => number): string {
  const article = r() < 0.5;
  const body = [
    `<h1>${esc(c.title)}</h1>`,
    c.byline ? `<p class="byline">${esc(c.byline)}</p>` : '',
    ...c.intro.map(blockHtml),
    ...c.sections.map((s) => `<section>${sectionHtml(s).join('')}</section>`),
  ].join('\n');
  return [
    `<header class="site-header"><a class="logo" href="/">${esc(b)}</a><nav>${navList(ch)}</nav></header>`,
    article ? `<main><article>${body}</article></main>` : `<main>${body}</main>`,
    ch.sidebar ? `<aside class="sidebar">${sideList(ch)}</aside>` : '',
    `<footer><p>${esc(ch.footer)}</p></footer>`,
    cookieBox(ch, 'cookie-banner'),
  ].join('\n');
}

function renderDivSoup(c: Content, ch: Chrome, b: string): string {
  const body = [
    `<div class="page-title"><h1>${esc(c.title)}</h1></div>`,
    c.byline ? `<div class="meta">${esc(c.byline)}</div>` : '',
    `<div class="box">${c.intro.map(blockHtml).join('')}</div>`,
    ...c.sections.map((s) => `<div class="box">${sectionHtml(s).join('')}</div>`),
  ].join('\n');
  return [
    `<div id="wrapper"><div id="header"><div class="logo"><a href="/">${esc(b)}</a></div><div id="menu">${navList(ch)}</div></div>`,
    `<div id="container"><div id="left" class="col">${body}</div>`,
    ch.sidebar ? `<div id="right" class="sidebar col">${sideList(ch)}</div>` : '',
    `</div><div id="footer"><p>${esc(ch.footer)}</p></div>${cookieBox(ch, 'cookie-notice')}</div>`,
  ].join('\n');
}

type Flavour = 'elementor' | 'divi' | 'wp-blocks';

/** A page builder's wrappers around one group of blocks (each block in a widget of its own). */
function builderSection(flavour: Flavour, blocks: string[], n: number): string {
  switch (flavour) {
    case 'elementor': {
      const widget = (html: string, i: number) => {
        const type = html.startsWith('<h')
          ? 'heading'
          : html.startsWith('<ul') || html.startsWith('<ol')
            ? 'icon-list'
            : 'text-editor';
        return `<div class="elementor-element elementor-element-${n}${i} elementor-widget elementor-widget-${type}" data-widget_type="${type}.default"><div class="elementor-widget-container">${html}</div></div>`;
      };
      return `<section class="elementor-section elementor-top-section elementor-element elementor-element-${n}a elementor-section-boxed" data-element_type="section"><div class="elementor-container elementor-column-gap-default"><div class="elementor-column elementor-col-100 elementor-top-column elementor-element" data-element_type="column"><div class="elementor-widget-wrap elementor-element-populated">${blocks.map(widget).join('')}</div></div></div></section>`;
    }
    case 'divi':
      return `<div class="et_pb_section et_pb_section_${n} et_section_regular"><div class="et_pb_row et_pb_row_${n}"><div class="et_pb_column et_pb_column_4_4 et_pb_column_${n}">${blocks.map((h, i) => `<div class="et_pb_module et_pb_text et_pb_text_${n}${i} et_pb_text_align_left"><div class="et_pb_text_inner">${h}</div></div>`).join('')}</div></div></div>`;
    case 'wp-blocks':
      return `<div class="wp-block-group alignfull is-layout-constrained"><div class="wp-block-group__inner-container"><div class="wp-block-columns is-layout-flex"><div class="wp-block-column is-layout-flow">${blocks.join('')}</div></div></div></div>`;
  }
}

function renderBuilder(c: Content, ch: Chrome, b: string, r: () => number): string {
  const flavour = (['elementor', 'divi', 'wp-blocks'] as const)[Math.floor(r() * 3)];
  const landmark = r() < 0.5;
  const hero = [
    `<h1>${esc(c.title)}</h1>`,
    ...(c.byline ? [`<p class="meta">${esc(c.byline)}</p>`] : []),
    ...c.intro.map(blockHtml),
  ];
  const sections = [hero, ...c.sections.map(sectionHtml)].map((s, i) => builderSection(flavour, s, i + 1)).join('\n');
  const page =
    flavour === 'elementor'
      ? `<div data-elementor-type="wp-page" class="elementor elementor-42">${sections}</div>`
      : flavour === 'divi'
        ? `<div id="et-main-area"><div class="et-l et-l--post"><div class="et_builder_inner_content et_pb_gutters3">${sections}</div></div></div>`
        : `<div class="entry-content wp-block-post-content">${sections}</div>`;
  return [
    `<header class="site-header ${flavour}-header"><div class="site-branding"><a href="/">${esc(b)}</a></div><nav class="main-navigation">${navList(ch)}</nav></header>`,
    landmark ? `<main id="content" class="site-main">${page}</main>` : `<div id="page-container">${page}</div>`,
    ch.sidebar ? `<div id="secondary" class="widget-area sidebar">${sideList(ch)}</div>` : '',
    `<footer class="site-footer"><div class="footer-widgets"><p>${esc(ch.footer)}</p></div></footer>`,
    cookieBox(ch, 'cookie-law-info-bar'),
  ].join('\n');
}

/**
 * The page of `kind` in `style`, with `perturbation` added inside its content. `seed` picks
 * the brand, the chrome, the builder's flavour and where the added element goes; the same
 * seed with `none` gives the same page without it.
 */
export function ordinaryPage(kind: Kind, style: Style, perturbation: Perturbation, seed: number): OrdinaryPage {
  const r = rng(seed * 7919 + 13);
  const brand = BRANDS[Math.floor(r() * BRANDS.length)];
  const ch = chromeOf(brand, r);
  const c = content(kind, brand);
  const at = r();
  const added = perturbationBlock(perturbation, brand);
  const forbidden: string[] = [];
  if (added) {
    // Where it goes: after the intro, or inside a section after its first block.
    const spots = c.sections.length;
    const k = Math.floor(at * (spots + 1));
    if (k === 0 || !spots) c.intro.push(added.block);
    else c.sections[k - 1].blocks.splice(1, 0, added.block);
    if (added.block.t === 'raw') forbidden.push(...added.block.forbidden);
  }
  if (perturbation === 'heading-anchor' && c.sections.length) {
    const s = c.sections[Math.floor(at * c.sections.length)];
    const slug = s.heading.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    s.headingHtml = `<h2 id="${slug}"><a class="anchor" href="#${slug}" aria-hidden="true">#</a>${esc(s.heading)}</h2>`;
  }
  const body =
    style === 'semantic'
      ? renderSemantic(c, ch, brand, r)
      : style === 'div-soup'
        ? renderDivSoup(c, ch, brand)
        : renderBuilder(c, ch, brand, r);
  const slug = c.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(c.title)} | ${esc(brand)}</title></head><body>\n${body}\n</body></html>`;
  const truth = [
    c.title,
    ...c.intro.flatMap(blockTruth),
    ...c.sections.flatMap((s) => [s.heading, ...s.blocks.flatMap(blockTruth)]),
  ];
  return {
    id: `${kind}/${style}/${perturbation}/${seed}`,
    kind,
    style,
    perturbation,
    url: `https://${brand.toLowerCase().replace(/\s+/g, '')}.example/${slug}`,
    html,
    truth,
    added: added?.block.t === 'raw' ? added.block.truth : [],
    chrome: [...chromeStrings(ch), ...forbidden],
  };
}

/** Letters and digits only, lower case, single-spaced: how blocks are looked for in an answer. */
export function normalise(s: string): string {
  return s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export interface Judged {
  /** Truth blocks found in the answer. */
  kept: number;
  total: number;
  missing: string[];
  /** Chrome strings found in the answer. */
  leaked: string[];
  /** Characters of truth kept, and of chrome leaked (precision = kept / (kept + leaked)). */
  keptChars: number;
  leakedChars: number;
}

/** How an answer (plain text, syntax stripped) does against the page's truth. */
export function judge(page: OrdinaryPage, plain: string): Judged {
  const text = ` ${normalise(plain)} `;
  const has = (s: string) => text.includes(` ${normalise(s)} `);
  const missing = page.truth.filter((t) => !has(t));
  const leaked = page.chrome.filter(has);
  const len = (xs: string[]) => xs.reduce((n, s) => n + normalise(s).length, 0);
  return {
    kept: page.truth.length - missing.length,
    total: page.truth.length,
    missing,
    leaked,
    keptChars: len(page.truth) - len(missing),
    leakedChars: len(leaked),
  };
}
