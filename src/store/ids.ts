import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';

// Async scrypt: it runs on libuv's thread pool, never on the event loop.
const scrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  options: ScryptOptions,
) => Promise<Buffer>;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 from rejection sampling (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const newId = (prefix: string, length = 20) => `${prefix}_${randomBase62(length)}`;
export const newApiKey = () => `trawl_${randomBase62(40)}`;
/** Standard Webhooks form: `whsec_` + base64 of 32 random bytes (the HMAC key is the decoded bytes). */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
export const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Password hashes: `scrypt$ln=17,r=8,p=1$<salt>$<hash>` (base64), N = 2^ln. N=2^17, r=8 takes
 * 128 MiB and ~0.3–0.7 s a hash (OWASP's floor); the parameters are in the string so that older
 * hashes are still read and can be upgraded (`needsRehash`). The first format, `scrypt$<salt>$
 * <hash>`, was Node's default cost: N=2^14, r=8, p=1.
 */
export const PASSWORD_COST = { ln: 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

interface Parsed {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parseHash(stored: string | null): Parsed | undefined {
  const parts = (stored ?? '').split('$');
  if (parts[0] !== 'scrypt') return undefined;
  const [cost, salt, hash] = parts.length === 3 ? ['ln=14,r=8,p=1', parts[1], parts[2]] : parts.slice(1);
  const m = /^ln=(\d{1,2}),r=(\d{1,2}),p=(\d)$/.exec(cost ?? '');
  if (parts.length > 4 || !m || !salt || !hash) return undefined;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Bounded, so a damaged row cannot ask for gigabytes.
  if (ln < 10 || ln > 18 || r < 1 || r > 16 || p < 1 || p > 4) return undefined;
  return { ln, r, p, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

// Node refuses scrypt when 128·N·r exceeds maxmem (32 MiB by default): allow twice what is needed.
const derive = (password: string, salt: Buffer, { ln, r, p }: { ln: number; r: number; p: number }) =>
  scrypt(password, salt, KEY_LENGTH, { N: 2 ** ln, r, p, maxmem: Math.max(256 * 1024 * 1024, 2 * 128 * 2 ** ln * r) });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { ln, r, p } = PASSWORD_COST;
  const hash = await derive(password, salt, PASSWORD_COST);
  return `scrypt$ln=${ln},r=${r},p=${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed);
  return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
}

/** The hash was made with less than today's cost: re-hash the password once it is verified. */
export function needsRehash(stored: string | null): boolean {
  const parsed = parseHash(stored);
  const want = PASSWORD_COST;
  return !parsed || parsed.ln < want.ln || parsed.r < want.r || parsed.p < want.p;
}
