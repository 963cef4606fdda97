/** Currency symbols and codes → ISO 4217. `$` alone is read as USD unless the page's domain names another dollar country; prefixed dollars are not. */
const CODES = new Set(
  (
    'USD EUR GBP JPY CNY INR RUB PLN CZK HUF SEK NOK DKK CHF TRY KRW ILS VND THB ZAR RON HRK BGN SAR AED UAH TWD ' +
    'CAD AUD NZD HKD SGD BRL MXN ARS CLP COP PEN IDR MYR PHP PKR EGP NGN KES MAD QAR KWD BHD OMR JOD ISK RSD BAM MKD ' +
    'GEL AMD AZN KZT BYN MDL LKR BDT NPR IRR IQD DZD TND LBP UYU PYG BOB CRC GTQ DOP HNL NIO PAB VES'
  ).split(' '),
);

/** Longest first so "CA$" wins over "$". */
const SYMBOLS: [string, string][] = (
  [
    ['US$', 'USD'],
    ['CA$', 'CAD'],
    ['C$', 'CAD'],
    ['AU$', 'AUD'],
    ['A$', 'AUD'],
    ['NZ$', 'NZD'],
    ['HK$', 'HKD'],
    ['S$', 'SGD'],
    ['R$', 'BRL'],
    ['MX$', 'MXN'],
    ['NT$', 'TWD'],
    ['CN¥', 'CNY'],
    ['RMB', 'CNY'],
    ['元', 'CNY'],
    ['円', 'JPY'],
    ['€', 'EUR'],
    ['£', 'GBP'],
    ['¥', 'JPY'],
    ['₹', 'INR'],
    ['₽', 'RUB'],
    ['руб', 'RUB'],
    ['zł', 'PLN'],
    ['Kč', 'CZK'],
    ['Ft', 'HUF'],
    ['₺', 'TRY'],
    ['₩', 'KRW'],
    ['₪', 'ILS'],
    ['₫', 'VND'],
    ['฿', 'THB'],
    ['lei', 'RON'],
    ['kn', 'HRK'],
    ['лв', 'BGN'],
    ['тг', 'KZT'],
    ['₸', 'KZT'],
    ['Kn', 'HRK'],
    ['Lei', 'RON'],
    ['₱', 'PHP'],
    ['₦', 'NGN'],
    ['원', 'KRW'],
    ['ر.س', 'SAR'],
    ['د.إ', 'AED'],
    ['₴', 'UAH'],
    ['грн', 'UAH'],
    ['Rs', 'INR'],
    ['$', 'USD'],
  ] as [string, string][]
).sort((a, b) => b[0].length - a[0].length);

export function normaliseCurrency(value: string, pageUrl?: string): string | undefined {
  const s = value.trim();
  if (!s) return undefined;
  const up = s.toUpperCase();
  if (up === 'RUR') return 'RUB';
  if (/^[A-Z]{3}$/.test(up) && CODES.has(up)) return up;
  return currencyFromText(s, pageUrl);
}

/**
 * Symbols several countries share: a bare "$" on a .ca shop is Canadian, "元" on a .tw shop
 * New Taiwan dollars. Keyed by the symbol, then by the country-code domain of the page.
 */
const LOCAL_SYMBOLS: Record<string, Record<string, string>> = {
  $: {
    ca: 'CAD',
    au: 'AUD',
    nz: 'NZD',
    mx: 'MXN',
    cl: 'CLP',
    ar: 'ARS',
    co: 'COP',
    uy: 'UYU',
    tw: 'TWD',
    hk: 'HKD',
    sg: 'SGD',
  },
  元: { tw: 'TWD', hk: 'HKD' },
  '¥': { cn: 'CNY' },
  Rs: { pk: 'PKR', lk: 'LKR', np: 'NPR' },
};

/** The country-code top-level domain of a URL ("tw" for shop.com.tw), if any. */
function countryOf(pageUrl: string | undefined): string | undefined {
  if (!pageUrl) return undefined;
  try {
    const tld = new URL(pageUrl).hostname.split('.').pop() ?? '';
    return tld.length === 2 ? tld.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The currency a price text is written in ("£12.99", "12,99 €", "USD 5"), if any; a shared
 * symbol ($, 元, ¥, Rs) is read in the currency of the page's country when its domain names one.
 */
export function currencyFromText(text: string, pageUrl?: string): string | undefined {
  const code = /(?:^|[^A-Za-z])([A-Z]{3})(?=$|[^A-Za-z])/.exec(text);
  if (code && CODES.has(code[1])) return code[1];
  for (const [sym, iso] of SYMBOLS) {
    const i = text.indexOf(sym);
    if (i < 0) continue;
    // Letter symbols (kr, lei, Ft) must stand alone, not inside a word.
    if (/^[A-Za-z]/.test(sym)) {
      const before = text[i - 1];
      const after = text[i + sym.length];
      if ((before && /[A-Za-z]/.test(before)) || (after && /[A-Za-z]/.test(after))) continue;
    }
    return LOCAL_SYMBOLS[sym]?.[countryOf(pageUrl) ?? ''] ?? iso;
  }
  return undefined;
}
