/** BM25 (k1 = 1.2, b = 0.75) over a small corpus of passages, Unicode word tokens. */
const STOP = new Set(
  'a an and are as at be but by for from has have how i if in into is it its of on or our that the their there these this to was were what when where which who why will with you your'.split(
    ' ',
  ),
);

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (t) => !STOP.has(t) && (t.length > 1 || /\d/.test(t)),
  );
}

export class Bm25 {
  readonly #docs: Map<string, number>[] = [];
  readonly #lengths: number[] = [];
  readonly #df = new Map<string, number>();
  #avg = 0;

  constructor(texts: string[]) {
    for (const t of texts) {
      const tf = new Map<string, number>();
      const toks = tokens(t);
      for (const w of toks) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.#df.set(w, (this.#df.get(w) ?? 0) + 1);
      this.#docs.push(tf);
      this.#lengths.push(toks.length);
    }
    this.#avg = this.#lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.#lengths.length);
  }

  score(query: string, i: number, k1 = 1.2, b = 0.75): number {
    const n = this.#docs.length;
    const tf = this.#docs[i];
    let s = 0;
    for (const q of new Set(tokens(query))) {
      const f = tf.get(q);
      if (!f) continue;
      const df = this.#df.get(q) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * this.#lengths[i]) / (this.#avg || 1)));
    }
    return s;
  }
}
