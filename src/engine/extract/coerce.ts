/**
 * Coercion of found values to the schema's types: localised prices to numbers
 * (`1.299,00 €`, `$1,299.00`, `¥1,299`), availability words to booleans, and so on.
 * Returns undefined when the value cannot honestly be read as that type.
 */
import type { ScalarType } from './schema.js';

const TRUE_WORDS =
  /^(?:true|yes|y|1|on|in[ _-]?stock|instock|available|in[ _-]?store(?:[ _-]?only)?|limited(?:[ _-]?availability)?|pre-?order|preorder|pre-?sale|made[ _-]?to[ _-]?order|onlineonly|online[ _-]only|disponible|en stock|auf lager|lieferbar|verfügbar|sofort lieferbar|disponibile|en existencia|em estoque|op voorraad|i lager|på lager|dostępny|在庫あり|有货|현재 재고|add to cart|add to basket|buy now)$/i;
const FALSE_WORDS =
  /^(?:false|no|n|0|off|out[ _-]?of[ _-]?stock|outofstock|sold[ _-]?out|soldout|unavailable|discontinued|not available|currently unavailable|agotado|épuisé|epuise|rupture de stock|nicht verfügbar|ausverkauft|nicht lieferbar|esaurito|non disponibile|esgotado|uitverkocht|slutsåld|niedostępny|在庫切れ|缺货|품절)$/i;

/**
 * Out-of-stock wording inside longer text ("Currently unavailable. We don't know when…"),
 * in the languages shops write in. Words of scripts without spaces between words (Chinese,
 * Japanese, Korean, Thai) stand anywhere; the rest only as whole words.
 */
export const SOLD_OUT = new RegExp(
  '(?:(?:^|[^\\p{L}])(?:' +
    [
      'out[ -]of[ -]stock',
      'sold[ -]out',
      'not in stock',
      'unavailable',
      'not (?:currently )?available',
      'no longer available',
      "(?:notify|email|e-mail|alert) me when (?:it's |it is )?(?:back in stock|available|in stock)",
      'ausverkauft',
      'vergriffen',
      'nicht (?:mehr )?(?:auf lager|verfügbar|lieferbar|vorrätig|erhältlich)',
      '(?:derzeit|zurzeit|momentan|aktuell) nicht',
      'épuisé',
      'rupture de stock',
      'en rupture',
      'indisponible',
      'non disponible',
      "(?:n'est )?plus disponible",
      'agotado',
      'sin (?:stock|existencias)',
      'fuera de stock',
      'no disponible',
      'esaurit[oa]',
      'non (?:più )?disponibile',
      'esgotado',
      'indisponível',
      'sem estoque',
      'fora de estoque',
      'uitverkocht',
      'niet (?:op voorraad|leverbaar|beschikbaar)',
      'niedostępny',
      'wyprzedany',
      'brak (?:towaru|w magazynie|na stanie)',
      'slutsåld',
      'slut i lager',
      '(?:ej|inte) i lager',
      'tillfälligt slut',
      'udsolgt',
      'utsolgt',
      'ikke på lager',
      'loppuunmyyty',
      'ei varastossa',
      'vyprodáno',
      'není skladem',
      'nedostupné',
      'elfogyott',
      'nincs raktáron',
      'nem elérhető',
      'stoc epuizat',
      'indisponibil',
      'нет в наличии',
      'распродано',
      'товар закончился',
      'немає в наявності',
      'stokta yok',
      'tükendi',
      'εξαντλήθηκε',
      'μη διαθέσιμο',
      'hết hàng',
      'stok habis',
      'غير متوفر',
      'نفذت الكمية',
      'אזל מהמלאי',
    ].join('|') +
    ')(?:$|[^\\p{L}]))|' +
    [
      '在庫切れ',
      '在庫なし',
      '品切れ',
      '売り切れ',
      '缺货',
      '缺貨',
      '无货',
      '無貨',
      '售罄',
      '已售完',
      '품절',
      '재고 ?없음',
      'สินค้าหมด',
    ].join('|'),
  'iu',
);

export function coerceBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 0 ? false : v === 1 ? true : undefined;
  if (typeof v !== 'string') return undefined;
  let s = v
    .trim()
    .replace(/^https?:\/\/schema\.org\//i, '')
    .replace(/[.!]+$/, '')
    .trim();
  s = s.replace(/\s+/g, ' ');
  if (TRUE_WORDS.test(s)) return true;
  if (FALSE_WORDS.test(s)) return false;
  if (SOLD_OUT.test(s)) return false;
  if (/\b(?:in stock|available|en stock|auf lager|disponibile|disponible)\b/i.test(s)) return true;
  return undefined;
}

/**
 * A number from text in any common locale. The decimal separator is the last of `.`/`,`
 * when followed by 1–2 digits (or exactly 3 digits and no other separator is unambiguous).
 */
export function parseNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /[-−]?\d[\d\s.,'’\u00a0\u202f]*/.exec(v.replace(/&nbsp;/g, ' '));
  if (!m) return undefined;
  let s = m[0]
    .replace(/[\s\u00a0\u202f'’]/g, '')
    .replace('−', '-')
    .replace(/[.,]+$/, '');
  const dots = s.split('.').length - 1;
  const commas = s.split(',').length - 1;
  if (dots && commas) {
    // Both present: the later one is the decimal separator.
    const dec = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
    s = s.replace(dec === '.' ? /,/g : /\./g, '').replace(',', '.');
  } else if (dots + commas === 1) {
    const sep = dots ? '.' : ',';
    const [int, frac] = s.split(sep);
    // "1,299" / "1.299" are thousands; "0.299", "12.5", "19,99" are decimals.
    s = frac.length === 3 && int.replace('-', '') !== '0' ? int + frac : `${int}.${frac}`;
  } else if (dots + commas > 1) {
    s = s.replace(/[.,]/g, '');
  }
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

export function coerce(v: unknown, type: ScalarType): string | number | boolean | undefined {
  if (v === null || v === undefined) return undefined;
  switch (type) {
    case 'string': {
      // Direction marks and zero-width characters are invisible on the page; drop them.
      if (typeof v === 'string')
        return (
          v
            .replace(/[\u200b-\u200f\u202a-\u202e\u2060\ufeff]/g, '')
            .replace(/\s+/g, ' ')
            .trim() || undefined
        );
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      return undefined;
    }
    case 'number':
      return parseNumber(v);
    case 'integer': {
      const n = parseNumber(v);
      return n === undefined ? undefined : Math.round(n);
    }
    case 'boolean':
      return coerceBoolean(v);
  }
}
