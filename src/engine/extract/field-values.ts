/** A picked value as the field wants it: coerced to its type, a brand or a byline cleaned, a name spelled as shown. */
import { type Candidate } from './candidate.js';
import { coerce } from './coerce.js';
import { normaliseCurrency } from './currency.js';
import { normaliseDate } from './dates.js';
import type { ScalarType } from './schema.js';
import { vocabularyFor, type FieldVocabulary } from './vocabulary.js';

/**
 * `name` as `text` writes it, when the text holds the same letters and digits with other
 * spacing or punctuation ("TP Link" → "TP-Link"); otherwise `name` unchanged.
 */
export function spelledAsShown(name: string, text: string): string {
  const chars = [...name.replace(/[^\p{L}\p{N}]/gu, '')];
  if (chars.length < 2 || chars.length > 40) return name;
  const esc = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(?<![\\p{L}\\p{N}])${chars.map(esc).join('[\\s\\-_./&+]?')}(?![\\p{L}\\p{N}])`, 'iu').exec(
    text,
  );
  return m && m[0].toLowerCase() !== name.toLowerCase() ? m[0] : name;
}

export function coerceFor(c: Candidate, field: string, type: ScalarType, pageUrl?: string): unknown {
  const v = vocabularyFor(field);
  const raw = Array.isArray(c.value) ? c.value[0] : c.value;
  if (v.role === 'currency' && type === 'string') return normaliseCurrency(String(raw), pageUrl);
  if (v.role === 'date' && type === 'string') return normaliseDate(raw);
  // "EAN: 6935364088101." — the full stop ends the sentence, not the code.
  if (v.role === 'identifier' && type === 'string')
    return String(raw)
      .trim()
      .replace(/(?<=[\p{L}\p{N}])[.,;:]+$/u, '');
  const value = coerce(raw, type);
  if (typeof value === 'string' && v === BRAND_VOCAB && c.kind !== 'json-ld') return cleanBrand(value);
  if (typeof value === 'string' && isAuthorField(v)) return cleanByline(value);
  // "Acme Kettle —": a separator the page put after a name is not part of it.
  if (typeof value === 'string' && v.role === 'text' && c.kind === 'dom')
    return value.replace(TRAILING_SEPARATOR, '') || value;
  return value;
}

export const BRAND_VOCAB = vocabularyFor('brand');

/** Page text around a brand name: "Visit the Acme Store", "Shop all Acme", "Brand: Acme", "by Acme". */
export function cleanBrand(s: string): string | undefined {
  const t = s
    .replace(/^visit the (.+?) store$/i, '$1')
    .replace(/^(?:shop all|shop|more from|see all|view all|all)\s+(.+)$/i, '$1')
    // "Ver mais artigos da Marca: Roborock", "Brand: Acme": the name after the label.
    .replace(/^(?:.*\s)?(?:brand|marque|marca|marke|merk|marka|značka|бренд|марка)\s*[:：]\s*(?=\S)/iu, '')
    .replace(/^by\s+/i, '')
    .trim();
  return t || undefined;
}

/** Fields that hold a byline: author and the names schemas give it (authors, byline, author_name). */
export const isAuthorField = (v: FieldVocabulary) => v.names.has('author');

/** A separator a page puts after a name ("Nicolas Perriault —"). */
const TRAILING_SEPARATOR = /\s+[—–\-|·•,:]+$/u;

/** Words of a byline that are not the name: "By", a job title, a date, "1 day ago". */
const BYLINE_LEAD =
  /^(?:(?:posted|written|words|text|story|reported|report|photos?)\s+)?(?:by|von|par|por|di|door|av|af|autor|autora|texto?|текст|автор)\s*[:：]?\s+(?=\S)/iu;
const BYLINE_TAIL = [
  /\s+[|·•—–]\s+.*$/u,
  /\s+(?:published|updated|posted|last updated)\b.*$/i,
  /,?\s+\d+\s+(?:min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|years?)\s+ago$/i,
  /,?\s+(?:on\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}\b.*$/i,
  // "TOM KRISHER, AP Auto Writer": the role after the comma…
  /,\s+[^,]*\b(?:writer|editor|correspondent|reporter|columnist|contributor|staff|bureau)\b.*$/i,
  // …or right after the name ("Meg James Staff Writer", "… LAWLESS Associated Press").
  /\s+(?:(?:staff|senior|chief|contributing|special|associate|assistant|business|political|politics|national|international|world|metro|local|city|investigative|breaking|digital|video|photo|features?|sports?|science|tech|technology|health|medical|auto|legal|economics|finance|markets|money|energy|climate|environment|education|culture|arts|music|film|games|gaming|entertainment|travel|food|style|fashion|opinion|weather|managing|deputy|executive|news)\s+){0,2}(?:writer|editor|correspondent|reporter|columnist|contributor)s?$/i,
  /\s+(?:the\s+)?(?:associated press|reuters|afp|bloomberg)$/i,
];

/** The name(s) in a byline: "By TOM KRISHER, AP Auto Writer" → "TOM KRISHER". */
export function cleanByline(s: string): string {
  let t = s.replace(/\s+/g, ' ').trim().replace(BYLINE_LEAD, '');
  for (const re of BYLINE_TAIL) {
    // "The Associated Press" is the byline itself: a tail needs a name left before it.
    const cut = t.replace(re, '');
    if (cut !== t && /\p{L}{2}/u.test(cut) && !/^(?:the|by|and)$/i.test(cut.trim())) t = cut;
  }
  t = t.replace(TRAILING_SEPARATOR, '').trim();
  return t.length >= 2 ? t : s.trim();
}
