/**
 * Failed logins cost the sending address, never the account: a per-address token bucket
 * (`burst` tokens, refilled at `perMinute`). Each attempt takes a token before the password is
 * checked (so parallel guesses cannot all slip past the check) and a right password gives it
 * back; while the bucket is empty the address gets 429. The account's owner, logging in from
 * elsewhere, is not affected, and a success never refills more than its own token (else an
 * attacker would log into their own account between guesses). Memory is bounded: a full bucket
 * is forgotten, and past `maxEntries` the least recently used go first.
 */
export class LoginThrottle {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly burst = 10,
    readonly perMinute = 2,
    readonly maxEntries = 50_000,
    readonly now: () => number = () => performance.now(),
  ) {}

  /** Take a token: 0 when the attempt may go ahead, else whole seconds to wait (nothing taken). */
  take(address: string): number {
    const tokens = this.#tokens(address);
    if (tokens < 1) return Math.max(1, Math.ceil(((1 - tokens) * 60) / this.perMinute));
    this.#set(address, tokens - 1);
    return 0;
  }

  /** The attempt succeeded: its token comes back. */
  refund(address: string): void {
    if (this.#buckets.has(address)) this.#set(address, Math.min(this.burst, this.#tokens(address) + 1));
  }

  #set(address: string, tokens: number): void {
    // Re-inserted so the Map's order is least recently used first.
    this.#buckets.delete(address);
    this.#buckets.set(address, { tokens, at: this.now() });
    if (this.#buckets.size > this.maxEntries) this.#prune();
  }

  get size(): number {
    return this.#buckets.size;
  }

  #tokens(address: string): number {
    const b = this.#buckets.get(address);
    if (!b) return this.burst;
    return Math.min(this.burst, b.tokens + ((this.now() - b.at) * this.perMinute) / 60_000);
  }

  #prune(): void {
    for (const key of [...this.#buckets.keys()]) if (this.#tokens(key) >= this.burst) this.#buckets.delete(key);
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= this.maxEntries) break;
      this.#buckets.delete(key);
    }
  }
}

/** The throttled address: IPv4 as is, IPv6 by its /64 (one host usually holds the whole /64). */
export function clientKey(ip: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4) return v4[1];
  if (!ip.includes(':')) return ip;
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
