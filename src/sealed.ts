/**
 * Secrets at rest (issue 44): browser sessions, channel passwords, bot tokens and webhook URLs
 * are stored sealed with AES-256-GCM under a key derived from the operator's
 * `TRAWL_SECRET_KEY` (HKDF-SHA256, one derived key per purpose, so a value sealed for one use
 * cannot be opened as another). `TRAWL_SECRET_KEY_PREVIOUS` (comma-separated) still opens
 * values sealed before a rotation; new values are always sealed under the current key.
 *
 * Sealed form: `v1.<kid>.<iv>.<ciphertext>.<tag>` (base64url), `kid` naming the key by the
 * first 8 hex digits of its SHA-256 — never the key itself.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { invalidRequest } from './errors.js';

/** What a sealed value is for: part of its key, so values cannot be swapped between uses. */
export type SealPurpose = 'browser-session' | 'notification-channel' | (string & {});

export interface Sealer {
  seal(plain: string, purpose: SealPurpose): string;
  /** The value, or throws `SealError` (wrong key, tampered, unknown key id). */
  open(sealed: string, purpose: SealPurpose): string;
}

export class SealError extends Error {
  override name = 'SealError';
}

/** The shortest key an operator may set: 32 characters (a `openssl rand -hex 16` or more). */
export const MIN_SECRET_KEY_LENGTH = 32;

interface KeyEntry {
  kid: string;
  material: Buffer;
}

const keyEntry = (secret: string): KeyEntry => ({
  kid: createHash('sha256').update(secret).digest('hex').slice(0, 8),
  material: Buffer.from(secret, 'utf8'),
});

function derive(entry: KeyEntry, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', entry.material, Buffer.from('trawl-sealed-v1'), purpose, 32));
}

/** A sealer over the current key and any previous ones, or undefined when no key is set. */
export function createSealer(current: string | undefined, previous: string[] = []): Sealer | undefined {
  if (!current) return undefined;
  for (const key of [current, ...previous]) {
    if (key.length < MIN_SECRET_KEY_LENGTH) {
      throw invalidRequest(
        `TRAWL_SECRET_KEY (and each previous key) must be at least ${MIN_SECRET_KEY_LENGTH} characters`,
      );
    }
  }
  const now = keyEntry(current);
  const byKid = new Map([now, ...previous.map(keyEntry)].map((e) => [e.kid, e]));
  const derived = new Map<string, Buffer>();
  const keyFor = (entry: KeyEntry, purpose: string) => {
    const id = `${entry.kid}:${purpose}`;
    let key = derived.get(id);
    if (!key) derived.set(id, (key = derive(entry, purpose)));
    return key;
  };
  return {
    seal(plain, purpose) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(now, purpose), iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        now.kid,
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    open(sealed, purpose) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== 'v1') throw new SealError('not a sealed value');
      const entry = byKid.get(parts[1]!);
      if (!entry) throw new SealError('sealed under a key this service no longer has (TRAWL_SECRET_KEY_PREVIOUS)');
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(entry, purpose), Buffer.from(parts[2]!, 'base64url'));
        decipher.setAuthTag(Buffer.from(parts[4]!, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SealError('sealed value does not open (tampered, or sealed for another use)');
      }
    },
  };
}
