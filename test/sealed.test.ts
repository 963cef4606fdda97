import { describe, expect, it } from 'vitest';
import { createSealer, SealError } from '../src/sealed.js';

const KEY = 'k'.repeat(16) + '0123456789abcdef';
const OTHER = 'o'.repeat(16) + '0123456789abcdef';

describe('sealed secrets', () => {
  it('opens what it sealed, and the sealed form holds no clear text or key', () => {
    const sealer = createSealer(KEY)!;
    const sealed = sealer.seal('password=hunter2', 'browser-session');
    expect(sealed).not.toContain('hunter2');
    expect(sealed).not.toContain(KEY);
    expect(sealed.split('.')).toHaveLength(5);
    expect(sealer.open(sealed, 'browser-session')).toBe('password=hunter2');
    // A fresh IV each time: the same value never seals the same.
    expect(sealer.seal('password=hunter2', 'browser-session')).not.toBe(sealed);
  });

  it('refuses another purpose, a tampered value and another key', () => {
    const sealer = createSealer(KEY)!;
    const sealed = sealer.seal('token', 'browser-session');
    expect(() => sealer.open(sealed, 'notification-channel')).toThrow(SealError);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => sealer.open(parts.join('.'), 'browser-session')).toThrow(SealError);
    expect(() => createSealer(OTHER)!.open(sealed, 'browser-session')).toThrow(/no longer has/);
    expect(() => sealer.open('not sealed', 'browser-session')).toThrow(SealError);
  });

  it('opens values of a previous key after a rotation, seals under the new one', () => {
    const old = createSealer(KEY)!.seal('cookie', 'browser-session');
    const rotated = createSealer(OTHER, [KEY])!;
    expect(rotated.open(old, 'browser-session')).toBe('cookie');
    const fresh = rotated.seal('cookie', 'browser-session');
    expect(() => createSealer(KEY)!.open(fresh, 'browser-session')).toThrow(SealError);
  });

  it('has no sealer without a key, and refuses a short key', () => {
    expect(createSealer(undefined)).toBeUndefined();
    expect(() => createSealer('short')).toThrow(/at least 32/);
  });
});
