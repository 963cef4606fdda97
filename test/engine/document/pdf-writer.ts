/**
 * A tiny PDF writer for tests: pages of text set in Helvetica (regular or bold) at given
 * positions, straight lines, an optional document title, and optionally an /Encrypt
 * dictionary (the standard security handler with a user password: readers cannot open the
 * file without it). Offsets and the xref table are computed, so pdf.js reads the result
 * as a well-formed file.
 */
export interface TextSpec {
  x: number;
  /** Baseline, from the bottom of the page (PDF coordinates). */
  y: number;
  size: number;
  text: string;
  bold?: boolean;
}

export interface PageSpec {
  texts: TextSpec[];
  /** Lines [x0, y0, x1, y1] stroked 0.5 pt wide. */
  lines?: [number, number, number, number][];
}

export interface PdfSpec {
  pages: PageSpec[];
  /** Bookmarks: a title and its depth (0 = top level), in order, each pointing at page 1. */
  outline?: { title: string; depth: number }[];
  title?: string;
  /** /Rotate of every page: a viewer turns the page (and its text) by this many degrees. */
  rotate?: number;
  encrypted?: boolean;
  width?: number;
  height?: number;
}

const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);

export function writePdf(spec: PdfSpec): Buffer {
  const w = spec.width ?? 595;
  const h = spec.height ?? 842;
  const objects: string[] = [];
  const add = (body: string) => objects.push(body) - 1 + 1;
  const catalog = add('');
  const pagesObj = add('');
  const regular = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const page of spec.pages) {
    const text = page.texts
      .map((t) => `BT /${t.bold ? 'F2' : 'F1'} ${t.size} Tf ${t.x} ${t.y} Td (${esc(t.text)}) Tj ET`)
      .join('\n');
    const lines = (page.lines ?? []).map(([x0, y0, x1, y1]) => `${x0} ${y0} m ${x1} ${y1} l S`).join('\n');
    const content = `0.5 w\n${lines}\n${text}`;
    const stream = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R${spec.rotate ? ` /Rotate ${spec.rotate}` : ''} /MediaBox [0 0 ${w} ${h}] /Contents ${stream} 0 R /Resources << /Font << /F1 ${regular} 0 R /F2 ${bold} 0 R >> >> >>`,
      ),
    );
  }
  const outlines = spec.outline?.length ? writeOutline(spec.outline, kids[0], add, objects) : undefined;
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R${outlines ? ` /Outlines ${outlines} 0 R` : ''} >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = spec.title !== undefined ? add(`<< /Title (${esc(spec.title)}) >>`) : undefined;
  // 32-byte O and U entries that match no password: the user password is not empty.
  const encrypt = spec.encrypted
    ? add(`<< /Filter /Standard /V 1 /R 2 /O <${'41'.repeat(32)}> /U <${'42'.repeat(32)}> /P -44 >>`)
    : undefined;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  const extra = `${info ? ` /Info ${info} 0 R` : ''}${encrypt ? ` /Encrypt ${encrypt} 0 R /ID [<${'00'.repeat(16)}> <${'00'.repeat(16)}>]` : ''}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${extra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** An outline tree (/Outlines, /First, /Next, /Parent) from a flat list of titles with depths. */
function writeOutline(
  entries: { title: string; depth: number }[],
  page: number,
  add: (body: string) => number,
  objects: string[],
): number {
  const root = add('');
  interface Node {
    id: number;
    title: string;
    parent: number;
    children: Node[];
  }
  const top: Node[] = [];
  const stack: Node[] = [];
  for (const e of entries) {
    while (stack.length > e.depth) stack.pop();
    const parent = stack[stack.length - 1];
    const node: Node = { id: add(''), title: e.title, parent: parent?.id ?? root, children: [] };
    (parent ? parent.children : top).push(node);
    stack.push(node);
  }
  const write = (siblings: Node[]) =>
    siblings.forEach((n, i) => {
      const links = [
        i > 0 ? `/Prev ${siblings[i - 1].id} 0 R` : '',
        i + 1 < siblings.length ? `/Next ${siblings[i + 1].id} 0 R` : '',
        n.children.length
          ? `/First ${n.children[0].id} 0 R /Last ${n.children[n.children.length - 1].id} 0 R /Count ${n.children.length}`
          : '',
      ].join(' ');
      objects[n.id - 1] =
        `<< /Title (${esc(n.title)}) /Parent ${n.parent} 0 R /Dest [${page} 0 R /XYZ 0 842 0] ${links} >>`;
      write(n.children);
    });
  write(top);
  objects[root - 1] =
    `<< /Type /Outlines /First ${top[0].id} 0 R /Last ${top[top.length - 1].id} 0 R /Count ${top.length} >>`;
  return root;
}
