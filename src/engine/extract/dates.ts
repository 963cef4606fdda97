/**
 * Dates as ISO 8601: a date field answers `2019-10-15` or `2016-05-08T00:55:00-07:00`
 * whatever the page wrote ("Tuesday 15 October 2019 by …", "April 5, 2018", "05/29/2007
 * 09:49", "Thu, 13 Oct 2016 17:00:03 GMT"), and nothing when the text holds no full date
 * ("28", "12:55 AM"): a date without its year is no answer.
 */

/** Already ISO: kept exactly as written (its time zone included). */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Month names (and their usual abbreviations) in English, German, French, Spanish, Italian, Portuguese and Dutch. */
const MONTH_NAMES: string[][] = [
  ['january', 'jan', 'januar', 'janvier', 'janv', 'enero', 'ene', 'gennaio', 'gen', 'janeiro', 'januari'],
  [
    'february',
    'feb',
    'februar',
    'février',
    'fevrier',
    'févr',
    'fevr',
    'febrero',
    'febbraio',
    'fevereiro',
    'fev',
    'februari',
  ],
  ['march', 'mar', 'märz', 'marz', 'mars', 'marzo', 'março', 'marco', 'maart', 'mrt'],
  ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile'],
  ['may', 'mai', 'mayo', 'maggio', 'mag', 'maio', 'mei'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu', 'junho'],
  ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug', 'julho'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'ago', 'augustus'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'settembre', 'set', 'setembro'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott', 'outubro', 'out'],
  ['november', 'nov', 'novembre', 'noviembre', 'novembro'],
  ['december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'déc', 'diciembre', 'dic', 'dicembre', 'dezembro'],
];
const MONTH = new Map<string, number>(
  MONTH_NAMES.flatMap((names, i) => names.map((n) => [n, i + 1] as [string, number])),
);
const MONTH_WORD = [...MONTH.keys()].sort((a, b) => b.length - a.length).join('|');

/** "15 October 2019", "15. Oktober 2019", "1er mai 2020", "5 de abril de 2018". */
const DAY_MONTH_YEAR = new RegExp(
  `(?<![\\p{L}\\d])(\\d{1,2})(?:st|nd|rd|th|er|\\.)?\\s+(?:de\\s+)?(${MONTH_WORD})\\.?,?\\s+(?:de\\s+)?(\\d{4})(?!\\d)`,
  'iu',
);
/** "April 5, 2018", "Oct. 13 2016". */
const MONTH_DAY_YEAR = new RegExp(
  `(?<![\\p{L}])(${MONTH_WORD})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})(?!\\d)`,
  'iu',
);
/** "2019/10/15", "2019.10.15", "2019年10月15日". */
const YEAR_FIRST = /(?<!\d)(\d{4})\s*[/.年-]\s*(\d{1,2})\s*[/.月-]\s*(\d{1,2})(?!\d)/;
/** "05/29/2007", "15.10.2019": the order is read from whichever number cannot be a month. */
const NUMERIC = /(?<!\d)(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?!\d)/;

const pad = (n: number) => String(n).padStart(2, '0');

function ymd(y: number, m: number, d: number): string | undefined {
  if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1) return undefined; // 31 April
  return `${y}-${pad(m)}-${pad(d)}`;
}

export function normaliseDate(v: unknown): string | undefined {
  if (typeof v === 'number') {
    // Unix time in seconds or milliseconds, as app state writes it.
    const ms = v > 1e11 ? v : v * 1000;
    return ms > Date.UTC(1990, 0) && ms < Date.UTC(2100, 0) ? new Date(ms).toISOString() : undefined;
  }
  if (typeof v !== 'string') return undefined;
  const s = v.replace(/\s+/g, ' ').trim();
  if (!s || s.length > 200) return undefined;
  const iso = ISO.exec(s);
  if (iso) return ymd(+iso[1], +iso[2], +iso[3]) ? s.replace(' ', 'T') : undefined;
  // A timestamp with its zone ("Thu, 13 Oct 2016 17:00:03 GMT"): the instant, in UTC.
  if (/\d{1,2}:\d{2}/.test(s) && /(?:GMT|UTC|Z|[+-]\d{4})$/.test(s)) {
    const t = Date.parse(s);
    if (Number.isFinite(t) && t > Date.UTC(1990, 0)) return new Date(t).toISOString();
  }
  let m = DAY_MONTH_YEAR.exec(s);
  if (m) return ymd(+m[3], MONTH.get(m[2].toLowerCase())!, +m[1]);
  m = MONTH_DAY_YEAR.exec(s);
  if (m) return ymd(+m[3], MONTH.get(m[1].toLowerCase())!, +m[2]);
  m = YEAR_FIRST.exec(s);
  if (m) return ymd(+m[1], +m[2], +m[3]);
  m = NUMERIC.exec(s);
  if (m) {
    const [a, b, y] = [+m[1], +m[3], +m[4]];
    // Dots are European (day first); slashes say nothing unless a number exceeds 12.
    if (m[2] === '.' || a > 12) return ymd(y, b, a);
    if (b > 12) return ymd(y, a, b);
  }
  return undefined;
}
