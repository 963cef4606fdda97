/**
 * One PDF page as geometry: the text runs pdf.js finds (position, size, font) and the
 * graphics that give a page its structure — ruling lines (table borders, rules under a
 * header row) and small filled shapes (list bullets drawn as discs, not glyphs). All in
 * page points, origin at the top left, y growing down, whatever the page's rotation.
 */
import type { PDFPageProxy } from 'unpdf/pdfjs';

export interface FontStyle {
  bold: boolean;
  italic: boolean;
  mono: boolean;
}

/** A piece of text set in one font along one baseline. */
export interface Run {
  str: string;
  x0: number;
  x1: number;
  /** Baseline. */
  y: number;
  /** Font size (height of an em), in points. */
  size: number;
  font: FontStyle;
  /** Right-to-left script (Hebrew, Arabic …). */
  rtl: boolean;
}

/** An axis-parallel stroke: a horizontal one has y0 == y1, a vertical one x0 == x1. */
export interface Ruling {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PageGeometry {
  width: number;
  height: number;
  runs: Run[];
  rulings: Ruling[];
  /** Small filled shapes: candidate list bullets. */
  dots: Box[];
}

/** The parts of pdf.js the reader uses (loaded once, lazily, by pdf.ts). */
export interface PdfJs {
  OPS: Record<string, number>;
}

type Matrix = [number, number, number, number, number, number];

const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];
const apply = (m: Matrix, x: number, y: number): [number, number] => [
  m[0] * x + m[2] * y + m[4],
  m[1] * x + m[3] * y + m[5],
];

const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
/**
 * Presentation forms (Arabic letters in their joined shapes, Latin and Hebrew ligatures)
 * are how a font draws text, not the text: they become the letters they stand for.
 */
const PRESENTATION = /[\uFB00-\uFDFF\uFE70-\uFEFF]+/g;
const plainLetters = (s: string) => s.replace(PRESENTATION, (m) => m.normalize('NFKC'));
const BOLD = /bold|black|heavy|semibold|demibold|extrabold|ultrabold|[-,]bd|[-,]sb\b|w[6-9]\b/i;
const ITALIC = /italic|oblique|[-,]it\b/i;
const MONO = /mono|courier|consol|menlo|typewriter|code/i;

/** Reads a page's text and graphics (its operator list also loads the fonts, whose names tell bold from regular). */
export async function readPage(page: PDFPageProxy, pdfjs: PdfJs): Promise<PageGeometry> {
  const viewport = page.getViewport({ scale: 1 });
  let vt = viewport.transform as Matrix;
  const [content, ops] = await Promise.all([
    page.getTextContent({ disableNormalization: false }),
    // (annotationMode 0: without annotations' appearances — form widgets, stamps, links)
    page.getOperatorList({ annotationMode: 0 }),
  ]);
  const styles = new Map<string, FontStyle>();
  const styleOf = (id: string): FontStyle => {
    let s = styles.get(id);
    if (s) return s;
    let name = '';
    let flags: { bold?: boolean; black?: boolean; italic?: boolean } = {};
    try {
      // Fonts are shared objects, present once the operator list has been built.
      const font = page.commonObjs.has(id)
        ? (page.commonObjs.get(id) as { name?: string; bold?: boolean; black?: boolean; italic?: boolean })
        : undefined;
      name = font?.name ?? '';
      flags = font ?? {};
    } catch {
      // a font pdf.js could not load: regular
    }
    const family = (content.styles[id] as { fontFamily?: string } | undefined)?.fontFamily ?? '';
    const base = name.replace(/^[A-Z]{6}\+/, '');
    s = {
      bold: !!flags.bold || !!flags.black || BOLD.test(base),
      italic: !!flags.italic || ITALIC.test(base),
      mono: MONO.test(base) || family === 'monospace',
    };
    styles.set(id, s);
    return s;
  };

  // A page whose text mostly runs sideways or upside down (a landscape table printed on a
  // portrait page) is turned so that it reads left to right.
  const turn = dominantTurn(content.items, vt);
  const [width, height] = turn % 2 ? [viewport.height, viewport.width] : [viewport.width, viewport.height];
  vt = multiply(TURNS[turn](viewport.width, viewport.height), vt);
  const runs: Run[] = [];
  for (const item of content.items) {
    if (!('str' in item) || !item.str || !item.str.trim()) continue;
    const tm = item.transform as Matrix;
    const m = multiply(vt, tm);
    // Only horizontal text joins the flow: a rotated stamp in the margin or a vertical
    // table header is not part of the reading order.
    if (Math.abs(m[1]) > Math.abs(m[0]) * 0.2 || m[0] <= 0) continue;
    const size = Math.hypot(m[2], m[3]) || item.height;
    if (!(size > 0.5)) continue;
    // item.width is along the text direction, in user space: scale it as the matrix does.
    const scaleX = Math.hypot(tm[0], tm[1]) || 1;
    const advance = (item.width / scaleX) * Math.hypot(m[0], m[1]);
    const [x, y] = [m[4], m[5]];
    runs.push({
      str: plainLetters(item.str),
      x0: x,
      x1: x + Math.max(advance, 0),
      y,
      size,
      font: styleOf(item.fontName),
      rtl: RTL.test(item.str),
    });
  }
  const { rulings, dots } = readGraphics(ops, vt, pdfjs.OPS);
  return { width, height, runs: dedupe(runs), rulings, dots };
}

/** Page turns that bring text running down (1), right to left upside down (2) or up (3) to the horizontal. */
const TURNS: ((w: number, h: number) => Matrix)[] = [
  () => [1, 0, 0, 1, 0, 0],
  (w) => [0, -1, 1, 0, 0, w],
  (w, h) => [-1, 0, 0, -1, w, h],
  (_w, h) => [0, 1, -1, 0, h, 0],
];

/** The quarter turn (0–3) of the direction most of a page's characters run in. */
function dominantTurn(items: ReadonlyArray<object>, vt: Matrix): number {
  const chars = [0, 0, 0, 0];
  for (const item of items) {
    if (!('str' in item) || !('transform' in item)) continue;
    const m = multiply(vt, item.transform as Matrix);
    const quarter = Math.round(Math.atan2(m[1], m[0]) / (Math.PI / 2));
    chars[(quarter + 4) % 4] += (item.str as string).length;
  }
  const best = chars.indexOf(Math.max(...chars));
  return chars[best] > chars[0] * 1.5 ? best : 0;
}

/**
 * Drops a run drawn twice at (almost) the same place — fake bold is often made by
 * printing the same text again shifted by a fraction of a point.
 */
function dedupe(runs: Run[]): Run[] {
  const seen = new Map<string, Run[]>();
  return runs.filter((r) => {
    const list = seen.get(r.str);
    if (!list) {
      seen.set(r.str, [r]);
      return true;
    }
    const tol = r.size * 0.3;
    if (list.some((o) => Math.abs(o.x0 - r.x0) < tol && Math.abs(o.y - r.y) < tol)) {
      for (const o of list)
        if (Math.abs(o.x0 - r.x0) < tol && Math.abs(o.y - r.y) < tol) o.font = { ...o.font, bold: true };
      return false;
    }
    list.push(r);
    return true;
  });
}

/** Path drawing commands in pdf.js's constructPath data. */
const MOVE = 0;
const LINE = 1;
const CURVE = 2;
const QUAD = 3;
const CLOSE = 4;

/** A ruling is at most this thick (points); thicker filled rectangles are shading. */
const MAX_RULE = 2.5;

function readGraphics(
  ops: { fnArray: number[]; argsArray: unknown[] },
  vt: Matrix,
  OPS: Record<string, number>,
): { rulings: Ruling[]; dots: Box[] } {
  const rulings: Ruling[] = [];
  const dots: Box[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: { ctm: Matrix; fillWhite: boolean; strokeWhite: boolean; lineWidth: number }[] = [];
  let fillWhite = false;
  let strokeWhite = false;
  let lineWidth = 1;
  const paint = new Set([
    OPS.stroke,
    OPS.closeStroke,
    OPS.fill,
    OPS.eoFill,
    OPS.fillStroke,
    OPS.eoFillStroke,
    OPS.closeFillStroke,
    OPS.closeEOFillStroke,
  ]);
  const strokes = new Set([
    OPS.stroke,
    OPS.closeStroke,
    OPS.fillStroke,
    OPS.eoFillStroke,
    OPS.closeFillStroke,
    OPS.closeEOFillStroke,
  ]);
  const white = (c: unknown) => typeof c === 'string' && /^#(?:f[a-f0-9]){3}$/i.test(c);
  const { fnArray, argsArray } = ops;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === OPS.save) stack.push({ ctm, fillWhite, strokeWhite, lineWidth });
    else if (fn === OPS.restore) {
      const s = stack.pop();
      if (s) ({ ctm, fillWhite, strokeWhite, lineWidth } = s);
    } else if (fn === OPS.transform) ctm = multiply(ctm, args as Matrix);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push({ ctm, fillWhite, strokeWhite, lineWidth });
      const m = args?.[0] as Matrix | null;
      if (m && m.length === 6) ctm = multiply(ctm, Array.from(m) as Matrix);
    } else if (fn === OPS.paintFormXObjectEnd) {
      const s = stack.pop();
      if (s) ({ ctm, fillWhite, strokeWhite, lineWidth } = s);
    } else if (fn === OPS.setFillRGBColor) fillWhite = white(args?.[0]);
    else if (fn === OPS.setStrokeRGBColor) strokeWhite = white(args?.[0]);
    else if (fn === OPS.setLineWidth) lineWidth = Number(args?.[0]) || 0;
    else if (fn === OPS.constructPath && args) {
      const op = args[0] as number;
      if (!paint.has(op)) continue;
      const stroke = strokes.has(op);
      if (stroke ? strokeWhite : fillWhite) continue;
      const data = (args[1] as ArrayLike<number>[] | undefined)?.[0];
      if (!data) continue;
      const m = multiply(vt, ctm);
      const width = lineWidth * Math.hypot(m[0], m[1]);
      addPath(data, m, stroke, width, rulings, dots);
    }
  }
  return { rulings, dots };
}

/** Splits path data into subpaths and keeps the rulings (and bullet-sized shapes) among them. */
function addPath(
  data: ArrayLike<number>,
  m: Matrix,
  stroke: boolean,
  lineWidth: number,
  rulings: Ruling[],
  dots: Box[],
): void {
  let pts: [number, number][] = [];
  let curved = false;
  const flush = () => {
    if (pts.length >= 2) addSubpath(pts, curved, stroke, lineWidth, rulings, dots);
    pts = [];
    curved = false;
  };
  for (let i = 0; i < data.length;) {
    const op = data[i++];
    if (op === MOVE) {
      flush();
      pts.push(apply(m, data[i], data[i + 1]));
      i += 2;
    } else if (op === LINE) {
      pts.push(apply(m, data[i], data[i + 1]));
      i += 2;
    } else if (op === CURVE) {
      pts.push(apply(m, data[i + 4], data[i + 5]));
      curved = true;
      i += 6;
    } else if (op === QUAD) {
      pts.push(apply(m, data[i + 2], data[i + 3]));
      curved = true;
      i += 4;
    } else if (op === CLOSE) {
      if (pts.length) pts.push(pts[0]);
    } else break;
  }
  flush();
}

function addSubpath(
  pts: [number, number][],
  curved: boolean,
  stroke: boolean,
  lineWidth: number,
  rulings: Ruling[],
  dots: Box[],
): void {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of pts) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  const w = x1 - x0;
  const h = y1 - y0;
  if (!stroke) {
    // A filled shape: a thin bar is a ruling; a small round or square one may be a bullet.
    if (h <= MAX_RULE && w > 3 * h && w > 4) rulings.push({ x0, y0: (y0 + y1) / 2, x1, y1: (y0 + y1) / 2 });
    else if (w <= MAX_RULE && h > 3 * w && h > 4) rulings.push({ x0: (x0 + x1) / 2, y0, x1: (x0 + x1) / 2, y1 });
    else if (w > 0.5 && h > 0.5 && w < 9 && h < 9 && w / h < 1.6 && h / w < 1.6) dots.push({ x0, y0, x1, y1 });
    return;
  }
  // A small stroked circle or square: a hollow bullet.
  if (w > 1 && h > 1 && w < 9 && h < 9 && w / h < 1.6 && h / w < 1.6) {
    dots.push({ x0, y0, x1, y1 });
    return;
  }
  if (curved || lineWidth > MAX_RULE * 2) return;
  // A stroked polyline: each axis-parallel edge is a ruling (a stroked rectangle gives four).
  for (let i = 1; i < pts.length; i++) {
    const [ax, ay] = pts[i - 1];
    const [bx, by] = pts[i];
    if (Math.abs(ay - by) < 0.5 && Math.abs(ax - bx) > 2)
      rulings.push({ x0: Math.min(ax, bx), y0: ay, x1: Math.max(ax, bx), y1: ay });
    else if (Math.abs(ax - bx) < 0.5 && Math.abs(ay - by) > 2)
      rulings.push({ x0: ax, y0: Math.min(ay, by), x1: ax, y1: Math.max(ay, by) });
  }
}
