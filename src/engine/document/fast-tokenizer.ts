/**
 * htmlparser2's tokenizer with native skipping. Its state machine looks at every character
 * through a method call, though in most states only one or two characters matter: in text,
 * only `<` and `&`; in a quoted attribute value, only the quote and `&`; after a closing
 * tag name, only `>`. Here those states jump straight to the next character that matters
 * (`indexOf`, a native scan), so the machine runs once per token instead of once per
 * character. Every skipped character is one the original would have passed over without
 * effect, so the callbacks, and the tree built from them, are the same (tested against the
 * original on real pages and generated markup).
 *
 * It overrides private methods of htmlparser2 9's Tokenizer (stateText,
 * handleInAttributeValue, fastForwardTo, write) and reads its fields (buffer, index, offset,
 * decodeEntities); package-lock pins the version, and the differential test fails when an
 * upgrade changes what these mean.
 */
import { Tokenizer } from 'htmlparser2';

/** The tokenizer's own fields and states used here (private in its typings). */
interface Internals {
  buffer: string;
  index: number;
  offset: number;
  decodeEntities: boolean;
  write(chunk: string): void;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
  fastForwardTo(c: number): boolean;
}

const LT = 0x3c;
const AMP = 0x26;

/** Where the next `ch` at or after `from` is in the buffer; cached per character, as the
 * scan moves forward (a page with no `&` must not be searched to its end at every tag). */
class NextOf {
  /** Where the last search started (nothing searched yet: past any position). */
  from = Number.MAX_SAFE_INTEGER;
  at = -1;
  constructor(readonly ch: string) {}
  find(buffer: string, from: number): number {
    if (this.from <= from && (this.at === -1 || this.at >= from)) return this.at;
    this.from = from;
    this.at = buffer.indexOf(this.ch, from);
    return this.at;
  }
  reset(): void {
    this.from = Number.MAX_SAFE_INTEGER;
    this.at = -1;
  }
}

export class FastTokenizer extends Tokenizer {
  private readonly nextLt = new NextOf('<');
  private readonly nextAmp = new NextOf('&');
  private readonly nextDq = new NextOf('"');
  private readonly nextSq = new NextOf("'");
  private readonly nextGt = new NextOf('>');

  /** The first of `<` / `&` (or `quote` / `&`) from `from`, or the buffer's end. */
  private stop(a: NextOf, from: number, entities: boolean): number {
    const self = this as unknown as Internals;
    const buf = self.buffer;
    const x = a.find(buf, from);
    const y = entities ? this.nextAmp.find(buf, from) : -1;
    if (x === -1) return y === -1 ? buf.length : y;
    return y === -1 || x < y ? x : y;
  }
}

const base = Tokenizer.prototype as unknown as Internals;
const fast = FastTokenizer.prototype as unknown as Internals & {
  nextLt: NextOf;
  nextAmp: NextOf;
  nextDq: NextOf;
  nextSq: NextOf;
  nextGt: NextOf;
  stop(a: NextOf, from: number, entities: boolean): number;
};
type Self = typeof fast;

fast.write = function (this: Self, chunk: string) {
  for (const n of [this.nextLt, this.nextAmp, this.nextDq, this.nextSq, this.nextGt]) n.reset();
  base.write.call(this, chunk);
};

fast.stateText = function (this: Self, c: number) {
  if (c === LT || c === AMP || !this.decodeEntities) return base.stateText.call(this, c);
  // Nothing until the next `<` or `&`: the loop steps onto it next (it adds one).
  this.index = this.stop(this.nextLt, this.index - this.offset + 1, true) + this.offset - 1;
};

fast.handleInAttributeValue = function (this: Self, c: number, quote: number) {
  if (c === quote || c === AMP || !this.decodeEntities) return base.handleInAttributeValue.call(this, c, quote);
  this.index =
    this.stop(quote === 0x22 ? this.nextDq : this.nextSq, this.index - this.offset + 1, true) + this.offset - 1;
};

fast.fastForwardTo = function (this: Self, c: number) {
  const from = this.index - this.offset + 1;
  const at =
    c === LT
      ? this.nextLt.find(this.buffer, from)
      : c === 0x3e
        ? this.nextGt.find(this.buffer, from)
        : this.buffer.indexOf(String.fromCharCode(c), from);
  if (at !== -1) {
    this.index = at + this.offset;
    return true;
  }
  // As the original: the loop's increment then ends the buffer.
  this.index = this.buffer.length + this.offset - 1;
  return false;
};
