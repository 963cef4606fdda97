/**
 * PDF → structured markdown, from the positions and fonts pdf.js reports: lines and
 * paragraphs rebuilt from geometry, reading order across columns, ruled and aligned
 * tables, headings from font sizes and weights (or the outline), lists, hyphenation
 * undone, running headers, footers and page numbers dropped.
 *
 * pdf-page.ts reads a page, pdf-lines.ts makes lines, pdf-tables.ts finds tables,
 * pdf-layout.ts orders the page, pdf-structure.ts writes markdown.
 */
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import { timeoutError } from '../../errors.js';
import { InflateBudget, loadGuardedPdfJs, withinBudget } from './pdf-inflate.js';
import { fragments, type Fragment } from './pdf-lines.js';
import { itemOf, readingOrder, tableItem, type Unit } from './pdf-layout.js';
import { readPage, type PageGeometry, type PdfJs } from './pdf-page.js';
import { dropRunningLines } from './pdf-running.js';
import {
  joinAcrossPages,
  linePitches,
  markHeadings,
  markLists,
  pageBlocks,
  toMarkdown,
  type Block,
  type OutlineEntry,
} from './pdf-structure.js';
import { ruledTables, type Table } from './pdf-tables.js';

export interface PdfOptions {
  /** Pages read at most (the first ones). @default 200 */
  maxPages?: number;
  /** Epoch ms after which reading stops with an error (checked between pages). */
  deadline?: number;
  /**
   * Bytes the document's streams may inflate to, all told (pdf-inflate.ts). Past it reading
   * stops: the pages read before are the answer (with a warning), or, with none, it fails.
   * @default 128 MiB
   */
  maxInflatedBytes?: number;
}

export interface PdfMarkdown {
  markdown: string;
  /** The document's title (its info dictionary), else its first heading. */
  title: string | null;
  /** Pages in the document. */
  pages: number;
  /** What the reader could not do in full (pages left unread, no text layer). */
  warnings: string[];
}

/** Why a PDF could not be read, in words for the person who asked for it. */
export class PdfUnreadable extends Error {}

const DEFAULT_MAX_PAGES = 200;
/**
 * 128 MiB. The memory a document's inflated streams take is counted as their buffers grow (up to
 * twice the data), and a page's content is inflated twice (its text and its drawing are read
 * apart): 128 MiB holds 200 pages of ~200 KB of content each, where the 107 PDFs of the eval
 * sets take at most 0.4 MB in all. A bomb costs the time to lex what it inflated: measured on
 * a 1 GB one, 0.4 s to reach 32 MiB, 0.6 s for 64, 1.9 s for 128 and 2.8 s for 256. (pypdf
 * caps one stream at 75 MB, pdf_oxide at 256 MB; a cap on the whole document also holds for
 * many streams or a filter chain.)
 */
export const DEFAULT_MAX_INFLATED_BYTES = 128 * 2 ** 20;

let pdfjs:
  Promise<PdfJs & { getDocumentProxy: (data: Uint8Array, o?: object) => Promise<PDFDocumentProxy> }> | undefined;

/** pdf.js, loaded on first use (a service that never sees a PDF never pays for it). */
function loadPdfJs() {
  return (pdfjs ??= (async () => {
    polyfillTransfer();
    polyfillToBase64();
    const unpdf = await import('unpdf');
    // unpdf's helpers (getDocumentProxy's defaults) over the guarded bundle.
    await unpdf.configureUnPDF({ pdfjs: loadGuardedPdfJs });
    const { OPS } = await unpdf.getResolvedPDFJS();
    return {
      OPS: OPS as unknown as Record<string, number>,
      getDocumentProxy: unpdf.getDocumentProxy as (data: Uint8Array, o?: object) => Promise<PDFDocumentProxy>,
    };
  })());
}

/**
 * Uint8Array.prototype.toBase64 (ES2026; not in Node 20 or 22): pdf.js writes a font face
 * rule with it (NO_DOCUMENT), and without it every font would fall back to drawing paths.
 */
function polyfillToBase64(): void {
  const proto = Uint8Array.prototype as Uint8Array & { toBase64?: unknown };
  if (typeof proto.toBase64 === 'function') return;
  Object.defineProperty(proto, 'toBase64', {
    configurable: true,
    writable: true,
    value(this: Uint8Array, options?: { alphabet?: 'base64' | 'base64url'; omitPadding?: boolean }) {
      const buf = Buffer.from(this.buffer, this.byteOffset, this.byteLength);
      let out = buf.toString(options?.alphabet === 'base64url' ? 'base64url' : 'base64');
      if (options?.alphabet === 'base64url' && !options.omitPadding) out += '='.repeat((4 - (out.length % 4)) % 4);
      if (options?.alphabet !== 'base64url' && options?.omitPadding) out = out.replace(/=+$/, '');
      return out;
    },
  });
}

/**
 * pdf.js 5 hands fonts over with ArrayBuffer.prototype.transferToFixedLength (Node ≥ 21);
 * on Node 20 every font would fail to load, and with it the font names that tell bold
 * text. A copy does what the transfer does for pdf.js's purpose.
 */
function polyfillTransfer(): void {
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (n?: number) => ArrayBuffer };
  if (typeof proto.transferToFixedLength === 'function') return;
  Object.defineProperty(proto, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length?: number) {
      const n = length ?? this.byteLength;
      const copy = new ArrayBuffer(n);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(n, this.byteLength)));
      return copy;
    },
  });
}

/**
 * Where pdf.js "installs" a document's fonts: nowhere. By default pdf.js under Node
 * (disableFontFace) turns every glyph it meets into a drawing path and posts each one to
 * the main thread, for a canvas that is never drawn: 13 % of the CPU of reading the eval
 * sets (buildFontPaths, profiled). With font faces enabled it instead hands each font to
 * this document's style sheet once, which does nothing. Fonts still load (their names and
 * flags tell bold and italic text); glyph widths and positions are unchanged.
 */
const NO_DOCUMENT = {
  fonts: undefined,
  createElement: () => ({ sheet: { cssRules: [], insertRule: () => 0 }, remove: () => undefined }),
  documentElement: { getElementsByTagName: () => [{ append: () => undefined }] },
};

/** Opens the document, or says why it cannot be opened. */
async function open(bytes: Uint8Array, budget: InflateBudget): Promise<PDFDocumentProxy> {
  const { getDocumentProxy } = await loadPdfJs();
  try {
    // A copy: pdf.js takes ownership of (detaches) the buffer it is given. Images are
    // never decoded (maxImageSize: 1 pixel): only text and ruling lines are read, and
    // decoding a page's photographs would cost more than everything else.
    return await getDocumentProxy(new Uint8Array(bytes), {
      verbosity: 0,
      stopAtErrors: false,
      isOffscreenCanvasSupported: false,
      maxImageSize: 1,
      disableFontFace: false,
      ownerDocument: NO_DOCUMENT,
    });
  } catch (e) {
    if (budget.exceeded) throw new PdfUnreadable(inflatedTooFar(budget));
    const name = (e as Error)?.name;
    if (name === 'PasswordException') throw new PdfUnreadable('it is encrypted and needs a password to open');
    if (name === 'InvalidPDFException') throw new PdfUnreadable(`it is damaged or not a PDF (${(e as Error).message})`);
    throw new PdfUnreadable(`pdf.js could not open it (${(e as Error)?.message ?? e})`);
  }
}

/** Why a document that inflated past its budget before any page was read was not read. */
const inflatedTooFar = (budget: InflateBudget) =>
  `its streams inflate to more than ${mib(budget.max)} (the limit for one document) before its first page is read: a compression bomb, or a document too large to read`;
const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;

export async function pdfToMarkdown(bytes: Uint8Array, options: PdfOptions = {}): Promise<PdfMarkdown> {
  const lib = await loadPdfJs();
  const budget = new InflateBudget(options.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES);
  return withinBudget(budget, () => readDocument(lib, bytes, options, budget));
}

async function readDocument(
  lib: Awaited<ReturnType<typeof loadPdfJs>>,
  bytes: Uint8Array,
  options: PdfOptions,
  budget: InflateBudget,
): Promise<PdfMarkdown> {
  const doc = await open(bytes, budget);
  try {
    if (budget.exceeded) throw new PdfUnreadable(inflatedTooFar(budget));
    const pages = doc.numPages;
    const read = Math.min(pages, Math.max(1, options.maxPages ?? DEFAULT_MAX_PAGES));
    const warnings: string[] = [];
    if (read < pages) warnings.push(`the PDF has ${pages} pages; only the first ${read} were read (pdf.max_pages)`);
    const geometry: PageGeometry[] = [];
    const failed: string[] = [];
    for (let p = 1; p <= read; p++) {
      if (options.deadline !== undefined && Date.now() > options.deadline)
        throw timeoutError(
          `the request used its whole time budget while the PDF was being read (at page ${p} of ${read})`,
        );
      // A damaged page is left out (and said so); the document fails only when no page reads.
      let got: PageGeometry | undefined;
      try {
        const page = await doc.getPage(p);
        try {
          got = await readPage(page, lib);
        } finally {
          page.cleanup();
        }
      } catch (e) {
        if (!budget.exceeded) failed.push(`page ${p} (${(e as Error)?.message ?? e})`);
      }
      // The page that passed the budget is cut short (pdf.js reads on past errors): it and
      // those after it are left out, as pages past max_pages are.
      if (budget.exceeded) {
        if (!geometry.length) throw new PdfUnreadable(inflatedTooFar(budget));
        warnings.push(
          `the PDF's streams inflate to more than ${mib(budget.max)} (the limit for one document); only the first ${p - 1} of its ${pages} pages were read`,
        );
        break;
      }
      if (got) geometry.push(got);
    }
    if (!geometry.length && failed.length) throw new PdfUnreadable(`none of its pages could be read: ${failed[0]}`);
    if (failed.length)
      warnings.push(
        `${failed.length === 1 ? 'a page' : `${failed.length} pages`} could not be read and ${failed.length === 1 ? 'is' : 'are'} missing: ${failed.slice(0, 3).join(', ')}`,
      );
    const [info, outline] = await Promise.all([
      doc.getMetadata().catch(() => undefined),
      doc.getOutline().catch(() => null),
    ]);
    const blocks = structure(geometry, flattenOutline(outline ?? []));
    const markdown = toMarkdown(blocks);
    if (!markdown && geometry.length)
      warnings.push('the PDF has no text layer (a scan or images of text); nothing could be read');
    const docTitle = (info?.info as Record<string, unknown> | undefined)?.Title;
    const heading = blocks.find((b) => b.kind === 'heading');
    const headingText = heading?.lines.map((l) => l.text.trim()).join(' ') || null;
    return { markdown, title: usableTitle(docTitle) ?? headingText, pages, warnings };
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

/** Document info titles that are a file name or a placeholder say nothing. */
function usableTitle(t: unknown): string | null {
  if (typeof t !== 'string') return null;
  const s = t.replace(/\s+/g, ' ').trim();
  if (!s || /^(untitled|title|document|microsoft word - .*|.*\.(docx?|pdf|indd|tex|dvi|rtf|odt|pptx?|xlsx?))$/i.test(s))
    return null;
  return s;
}

interface OutlineNode {
  title: string;
  items?: OutlineNode[];
}

function flattenOutline(nodes: OutlineNode[], depth = 0, out: OutlineEntry[] = []): OutlineEntry[] {
  for (const n of nodes) {
    if (out.length > 2000) break;
    if (n.title) out.push({ title: n.title, depth });
    if (n.items?.length) flattenOutline(n.items, depth + 1, out);
  }
  return out;
}

/** The pages' geometry → blocks of the whole document, structure marked. */
function structure(geometry: PageGeometry[], outline: OutlineEntry[]): Block[] {
  const pages = geometry.map((g) => {
    const frags = fragments(g.runs);
    const tables = ruledTables(g.rulings, g.runs, frags);
    const taken = new Set<Fragment>(tables.flatMap((t) => [...t.taken]));
    return { g, frags: frags.filter((f) => !taken.has(f)), tables };
  });
  dropRunningLines(pages);
  const ordered: Unit[][] = pages.map(({ g, frags, tables }) => {
    const rtl = frags.reduce((n, f) => n + (f.rtl ? f.text.length : -f.text.length), 0) > 0;
    return readingOrder([...frags.map(itemOf), ...tables.map((t: Table) => tableItem(t))], rtl, g.dots);
  });
  const pitches = linePitches(ordered);
  const blocks = joinAcrossPages(ordered.flatMap((units, i) => pageBlocks(units, i, pitches)));
  markHeadings(blocks, outline);
  markLists(blocks);
  return blocks;
}
