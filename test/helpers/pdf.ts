import type { Transform } from 'node:stream';
import { constants, createBrotliCompress, createDeflate } from 'node:zlib';

/** A minimal valid PDF with one page of text, written byte by byte (no fixture file needed). */
export function makePdf(lines: string[], title = 'Test PDF'): Buffer {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const content = `BT /F1 14 Tf 72 720 Td 18 TL ${lines.map((l) => `(${esc(l)}) Tj T*`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (${esc(title)}) >>`,
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export type BombFilter = 'FlateDecode' | 'BrotliDecode';
const compressed = new Map<string, Promise<Buffer>>();

/** `n` zero bytes compressed as `filter` reads them, streamed (deflate: ~1 KB per MB). */
function compressZeros(n: number, filter: BombFilter): Promise<Buffer> {
  let made = compressed.get(`${filter}:${n}`);
  if (!made) {
    made = new Promise<Buffer>((resolve, reject) => {
      const z: Transform =
        filter === 'FlateDecode'
          ? createDeflate({ level: 9 })
          : createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
      const out: Buffer[] = [];
      z.on('data', (d: Buffer) => out.push(d));
      z.on('end', () => resolve(Buffer.concat(out)));
      z.on('error', reject);
      const chunk = Buffer.alloc(1 << 20);
      let left = n;
      const write = () => {
        while (left > 0) {
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= piece.length;
          if (!z.write(piece)) return void z.once('drain', write);
        }
        z.end();
      };
      write();
    });
    compressed.set(`${filter}:${n}`, made);
  }
  return made;
}

/**
 * A compression bomb: a PDF whose last page's content stream (FlateDecode, or `filter`)
 * inflates to `inflated` bytes of zeros (white space to a PDF reader): 200 MB deflated make a
 * 204 KB file. Pages of text (`before`, one array of lines each) come first.
 */
export async function makePdfBomb(
  inflated: number,
  { before = [], filter = 'FlateDecode' }: { before?: string[][]; filter?: BombFilter } = {},
): Promise<Buffer> {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const bomb = await compressZeros(inflated, filter);
  const pages = [...before.map((lines) => ({ lines })), { bomb }];
  // 1 catalog, 2 pages, 3 font; then each page and its content.
  const objects: (string | { dict: string; stream: Buffer })[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  pages.forEach((p, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${5 + 2 * i} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    if ('bomb' in p) objects.push({ dict: `/Filter /${filter}`, stream: p.bomb });
    else {
      const text = `BT /F1 14 Tf 72 720 Td 18 TL ${p.lines.map((l) => `(${esc(l)}) Tj T*`).join(' ')} ET`;
      objects.push({ dict: '', stream: Buffer.from(text, 'latin1') });
    }
  });
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0].length;
  const add = (b: Buffer) => (parts.push(b), (length += b.length));
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(length);
    if (typeof o === 'string') return void add(Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1'));
    add(Buffer.from(`${i + 1} 0 obj\n<< /Length ${o.stream.length} ${o.dict} >>\nstream\n`, 'latin1'));
    add(o.stream);
    add(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  });
  const xref = length;
  add(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}
