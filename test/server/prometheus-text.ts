/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for the /metrics tests: every
 * line must be a HELP, a TYPE or a sample of a family declared before it; names, labels, escapes
 * and values must be well formed; a family's label sets must be distinct; histograms must have
 * cumulative buckets ending in +Inf that equal their _count. Anything else throws, naming the line.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(raw: string, line: number): number {
  if (raw === 'NaN') return NaN;
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (!/^[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)$/.test(raw))
    throw new Error(`line ${line}: "${raw}" is not a sample value`);
  return Number(raw);
}

/** `{a="x",b="y\"z"}` from position `i` of `s`: the labels and where they end. */
function parseLabels(s: string, i: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  i++; // past '{'
  while (s[i] !== '}') {
    const eq = s.indexOf('=', i);
    const name = s.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`line ${line}: bad label name "${name}"`);
    if (s[eq + 1] !== '"') throw new Error(`line ${line}: label ${name} has no quoted value`);
    let j = eq + 2;
    let value = '';
    for (; j < s.length && s[j] !== '"'; j++) {
      if (s[j] === '\\') {
        const next = s[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`line ${line}: bad escape \\${next}`);
      } else value += s[j];
    }
    if (j >= s.length) throw new Error(`line ${line}: unterminated label value`);
    if (name in labels) throw new Error(`line ${line}: label ${name} twice`);
    labels[name] = value;
    i = j + 1;
    if (s[i] === ',') i++;
    else if (s[i] !== '}') throw new Error(`line ${line}: expected , or } after label ${name}`);
  }
  return { labels, end: i + 1 };
}

const familyOf = (name: string, families: Map<string, Family>): Family | undefined => {
  if (families.has(name)) return families.get(name);
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const f = families.get(name.slice(0, -suffix.length));
      if (f && (f.type === 'histogram' || f.type === 'summary')) return f;
    }
  }
  return undefined;
};

export function parsePrometheus(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const families = new Map<string, Family>();
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((l, k) => {
    const line = k + 1;
    if (l === '') return;
    if (l.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(l);
      if (!m) return; // a plain comment
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name "${name}"`);
      const f = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`line ${line}: unknown type "${rest}"`);
        if (f.samples.length) throw new Error(`line ${line}: TYPE of ${name} after its samples`);
        f.type = rest;
      } else f.help = rest;
      families.set(name, f);
      return;
    }
    const nameEnd = l.search(/[{ ]/);
    const name = l.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`line ${line}: bad metric name "${name}"`);
    let labels: Record<string, string> = {};
    let i = nameEnd;
    if (l[i] === '{') ({ labels, end: i } = parseLabels(l, i, line));
    if (l[i] !== ' ') throw new Error(`line ${line}: expected a space before the value`);
    const [raw, timestamp, ...extra] = l.slice(i + 1).split(' ');
    if (extra.length || (timestamp !== undefined && !/^-?\d+$/.test(timestamp)))
      throw new Error(`line ${line}: trailing text`);
    const f = familyOf(name, families);
    if (!f) throw new Error(`line ${line}: sample of ${name} without a TYPE before it`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (f.samples.some((s) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}` === key))
      throw new Error(`line ${line}: ${key} twice`);
    f.samples.push({ name, labels, value: parseValue(raw, line) });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, Sample[]>();
  const keyOf = (s: Sample) =>
    JSON.stringify(
      Object.entries(s.labels)
        .filter(([k]) => k !== 'le')
        .sort(),
    );
  for (const s of f.samples)
    if (s.name === `${f.name}_bucket`) series.set(keyOf(s), [...(series.get(keyOf(s)) ?? []), s]);
  for (const [key, buckets] of series) {
    const ordered = buckets
      .map((b) => ({ le: parseValue(b.labels.le, 0), value: b.value }))
      .sort((a, b) => a.le - b.le);
    if (ordered.at(-1)?.le !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    ordered.forEach((b, i) => {
      if (i && b.value < ordered[i - 1].value) throw new Error(`${f.name}${key}: buckets are not cumulative`);
    });
    const count = f.samples.find((s) => s.name === `${f.name}_count` && keyOf(s) === key);
    if (!count || count.value !== ordered.at(-1)!.value)
      throw new Error(`${f.name}${key}: _count differs from the +Inf bucket`);
  }
}

/** The value of one series (0 when it is not there). */
export function valueOf(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const f = familyOf(name, families);
  const s = f?.samples.find(
    (x) =>
      x.name === name &&
      Object.keys(labels).every((k) => x.labels[k] === labels[k]) &&
      Object.keys(x.labels).length === Object.keys(labels).length,
  );
  return s?.value ?? 0;
}
