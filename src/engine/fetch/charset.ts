import { TextDecoder } from 'node:util';
/**
 * Bytes → string with the page's real encoding: BOM first, then the Content-Type charset
 * (unless it says UTF-16 over bytes that cannot be), then a `<meta charset>` / `http-equiv` declaration in the first 4 KiB, then UTF-8 when the
 * bytes are valid UTF-8, else windows-1252 (what browsers assume for legacy pages).
 */
const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)/i;

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const m = /charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType ?? '');
  return m?.[1].toLowerCase();
}

function bomCharset(b: Buffer): string | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return undefined;
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

/** Whether the first 4 KiB hold the zero bytes any UTF-16 HTML has (ASCII markup is 0x00-padded). */
function looksLikeUtf16(b: Buffer): boolean {
  const n = Math.min(b.length, 4096);
  if (n < 2) return false;
  let zeros = 0;
  for (let i = 0; i < n; i++) if (b[i] === 0) zeros++;
  return zeros * 20 >= n;
}

export function decodeBody(body: Buffer, contentType?: string, sniffMeta = true): { text: string; charset: string } {
  const bom = bomCharset(body);
  if (bom) return { text: new TextDecoder(bom).decode(body), charset: bom };
  const declared = decoderFor(charsetFromContentType(contentType));
  // A header that says UTF-16 over bytes that are not (HTML's markup in UTF-16 is half zero
  // bytes) is wrong: the bytes are sniffed instead, as for a page without a header charset.
  if (declared && !(declared.encoding.startsWith('utf-16') && !looksLikeUtf16(body)))
    return { text: declared.decode(body), charset: declared.encoding };
  if (sniffMeta) {
    const head = body.subarray(0, 4096).toString('latin1');
    const meta = decoderFor(META_CHARSET.exec(head)?.[1]);
    // A page that declares UTF-16 in a meta tag is read as ASCII-compatible: browsers do the same.
    if (meta && !meta.encoding.startsWith('utf-16')) return { text: meta.decode(body), charset: meta.encoding };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), charset: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(body), charset: 'windows-1252' };
  }
}
