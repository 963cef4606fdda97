/** Availability read from the buy box when the page states none in its data (extract/index.ts asks). */
import type { Document, Element } from '../document/dom.js';
import { elements, isElement, textOf } from '../document/dom.js';
import { isHiddenInPage } from '../document/visibility.js';
import { SOLD_OUT, coerceBoolean } from './coerce.js';
import { UNAVAILABLE_STATE, isSideName } from './box-names.js';

/** What a buy control says, in the shop's language (its text starts with it). */
const ADD_TO_CART = new RegExp(
  '^(?:' +
    [
      'add to (?:your |my )?(?:shopping )?(?:cart|basket|bag|trolley)',
      'add to order',
      'buy now',
      'buy it now',
      'buy tickets?',
      'order now',
      'pre-?order(?: now)?',
      'in den (?:warenkorb|einkaufswagen|einkaufskorb|korb)',
      'zum warenkorb hinzufügen',
      '(?:jetzt )?kaufen',
      'jetzt bestellen',
      'ajouter au (?:panier|caddie)',
      'acheter',
      'añadir al (?:carrito|carro|cesta)',
      'anadir a la cesta',
      'agregar al carrito',
      'comprar(?: ahora| agora| entradas?)?',
      'aggiungi al carrello',
      'acquista(?: ora)?',
      'adicionar (?:ao carrinho|à sacola|à cesta)',
      'toevoegen aan (?:winkelwagen|winkelmand)',
      'in (?:de )?(?:winkelwagen|winkelmand)',
      '(?:dodaj )?do koszyka',
      'kup(?: teraz)?',
      'lägg i (?:varukorgen|kundvagnen)',
      'lägg till i varukorgen',
      'köp(?: nu)?',
      'legg i (?:handlekurven|handlekurv|handlevognen?)',
      'kjøp',
      'læg i (?:kurv|indkøbskurv)',
      'tilføj til kurv',
      'lisää (?:ostoskoriin|koriin)',
      'osta',
      'kosárba',
      '(?:vložit |přidat )?do košíku',
      '(?:pridať )?do košíka',
      'koupit',
      'v košarico',
      'naroči',
      'dodaj u košaricu',
      '(?:adaugă )?în co[șş]',
      '(?:добавить )?в корзину',
      'купить',
      '(?:додати )?(?:в кошик|до кошика)',
      'купити',
      'sepete ekle',
      'hemen al',
      'προσθήκη στο καλάθι',
      'thêm vào giỏ(?: hàng)?',
      'mua ngay',
      '(?:tambah(?:kan)? ke|masukkan(?: ke)?) keranjang',
      'beli sekarang',
      'أضف (?:إلى|الى|لل)(?: ?السلة| ?عربة التسوق)',
      'הוס(?:ף|פה) ל(?:סל|עגלה)',
      'カートに(?:入れる|追加)',
      '(?:買い物)?かごに入れる',
      'カゴに入れる',
      '今すぐ購入',
      '(?:加入|添加到)购物(?:车|袋)',
      '(?:加入|放入)購物(?:車|袋)',
      '立即购买',
      '立即購買',
      '장바구니(?: 담기)?',
      '구매하기',
      'เพิ่ม(?:ลง|ใน|ไปยัง)(?:ตะกร้า|รถเข็น)',
      'ซื้อเลย',
    ].join('|') +
    ')(?:$|[^\\p{L}])',
  'iu',
);
/** Class/id names of buy controls (add-to-cart, buy_btn, button-cart …), for controls whose text is an icon or a word not listed. */
const BUY_NAMES =
  /(?:^|[\s_-])(?:add[-_]?to[-_]?(?:cart|basket|bag|trolley)|add[-_]?cart|buy[-_]?(?:btn|button|now|box)|btn[-_]?buy|button[-_]?(?:cart|buy)|cart[-_]?(?:btn|button)|purchase[-_]?(?:btn|button))(?:$|[\s_-])/i;
const STOCK_NAMES = /stock|avail|inventory|lager|dispon|sold-?out|soldout/i;
/** A stock count: "Only 3 left in stock", "12 available", "Lagerbestand: 7", "Na stanie: 5 szt.". */
const STOCK_COUNT =
  /(?:^|[^\p{L}\d])(?:(?:only )?(\d{1,6})\s*(?:(?:items?|pcs\.?|units?|st(?:ück|k)\.?|szt\.?|unidades|unités?|pezzi)\s*)?(?:left|in stock|available|auf lager|vorrätig|disponibles?|disponibili|en stock|na stanie|dostępn[ey]ch|op voorraad|på lager|i lager|в наличии)|(?:in stock|stock|lagerbestand|auf lager|na stanie|disponibles?|en stock|available|в наличии|在庫|库存|庫存)\s*[:：]?\s*(\d{1,6})(?!\s*(?:days?|tage?|dni|días|jours|h\b|hours?)))(?:$|[^\p{L}\d])/iu;

/** A quantity field of a buy form (qty, quantity, Menge, cantidad …). */
const QUANTITY_NAMES =
  /^(?:qty|quantity|quant|amount|menge|anzahl|cantidad|quantit[àée]|ilo[sś][cć]|aantal|antal|m[aä]ngd|mno[zž]stvo|koli[cč]ina|количество|数量|수량)(?:$|[[_-])/i;

/** Boxes of other products (related, recommended, bought together …): their buy buttons are theirs. */
const OTHER_PRODUCTS =
  /related|recommend|similar|upsell|cross-?sell|carousel|also|bought|together|viewed|suggest|sponsor|slider/i;

function inOtherProductsBox(el: Element): boolean {
  let n = el.parent as Element | null;
  for (let depth = 0; n && n.type === 'tag' && depth < 8; depth++, n = n.parent as Element | null) {
    if (OTHER_PRODUCTS.test(`${n.attribs.class ?? ''} ${n.attribs.id ?? ''}`)) return true;
  }
  return false;
}

function isDisabled(el: Element): boolean {
  const a = el.attribs;
  return (
    a.disabled !== undefined ||
    a['aria-disabled'] === 'true' ||
    /(?:^|\s)(?:[a-z]+-)?disabled(?:\s|$)/i.test(a.class ?? '')
  );
}

/**
 * No structured availability: read the buy box. An out-of-stock notice means out of stock;
 * an active buy control (its text in ~30 languages, or its class/id: add-to-cart, buy-btn …)
 * or a stock count above zero means in stock; a buy control that is only there disabled means
 * out of stock; failing all of these, a quantity field to fill in means the item can be bought.
 */
export function availabilityFromPage(doc: Document): { inStock: boolean; source: string } | undefined {
  let cart: string | undefined;
  let disabledCart: string | undefined;
  let counted: { inStock: boolean; source: string } | undefined;
  let quantity: string | undefined;
  for (const el of elements(doc)) {
    if (
      !quantity &&
      (el.name === 'input' || el.name === 'select') &&
      QUANTITY_NAMES.test(el.attribs.name ?? el.attribs.id ?? '') &&
      (el.attribs.type ?? '').toLowerCase() !== 'hidden' &&
      !isDisabled(el) &&
      !isSideName(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`)
    ) {
      quantity = `css:${el.name}[name=${el.attribs.name ?? el.attribs.id}] (quantity to buy)`;
    }
    if (el.name === 'input' && (el.attribs.type ?? '').toLowerCase() === 'hidden') continue;
    if (el.name === 'script' || el.name === 'style' || el.name === 'template') continue;
    const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
    const control =
      el.name === 'button' ||
      (el.name === 'input' && /submit|button|image/i.test(el.attribs.type ?? '')) ||
      el.attribs.role === 'button';
    const namedBuy = (control || el.name === 'a') && BUY_NAMES.test(names);
    const leaf = el.children.length <= 2 && !el.children.some((c) => isElement(c) && c.children.length > 1);
    // Controls, stock boxes, and short leaves (a link may be a buy control; other leaves may
    // hold a stock count, looked for until a buy control settles it).
    if (!control && !namedBuy && !STOCK_NAMES.test(names) && !(leaf && (el.name === 'a' || !cart))) continue;
    if (isSideName(names) || /carousel/i.test(names)) continue;
    // An element named for the out-of-stock case is a template the page shows when needed
    // ("variationUnavailable": "Image non disponible"); the one that counts names the stock.
    if (UNAVAILABLE_STATE.test(names)) continue;
    const raw = el.name === 'input' ? (el.attribs.value ?? el.attribs.alt ?? '') : textOf(el);
    if (raw.length > 400) continue;
    const text = raw.replace(/\s+/g, ' ').trim();
    // Form state ("false", "0") is not something the page says to a shopper.
    if (text.length > 80 || /^(?:true|false|[01]|yes|no)$/i.test(text)) continue;
    // Hidden by its own attributes or a wrapper's (class "hidden", display:none): a state the
    // page shows when needed, such as the sold-out notice of another size.
    const hidden = isHiddenInPage(el);
    if (text && (control || STOCK_NAMES.test(names)) && SOLD_OUT.test(text) && !hidden) {
      return {
        inStock: false,
        source: `css:${el.name}${el.attribs.id ? `#${el.attribs.id}` : ''} "${text.slice(0, 40)}"`,
      };
    }
    const buyText = !!text && ADD_TO_CART.test(text);
    if ((control && buyText) || namedBuy || (el.name === 'a' && buyText && leaf)) {
      const where = `css:${el.name === 'a' ? 'a' : 'button'} "${(text || names.trim()).slice(0, 40)}"`;
      if (hidden || inOtherProductsBox(el)) continue;
      if (isDisabled(el)) disabledCart ??= where;
      else cart ??= where;
      continue;
    }
    if (!counted && text && text.length <= 60 && (leaf || STOCK_NAMES.test(names))) {
      const m = STOCK_COUNT.exec(text);
      if (m)
        counted = { inStock: Number(m[1] ?? m[2]) > 0, source: `css:${el.name} "${text.slice(0, 40)}" (stock count)` };
    }
    if (!control && STOCK_NAMES.test(names) && !hidden) {
      const b = coerceBoolean(text);
      if (b !== undefined)
        return {
          inStock: b,
          source: `css:${el.name}.${(el.attribs.class ?? '').split(/\s+/)[0]} "${text.slice(0, 40)}"`,
        };
    }
  }
  if (cart) return { inStock: true, source: cart };
  if (counted) return counted;
  if (disabledCart) return { inStock: false, source: `${disabledCart} (disabled)` };
  return quantity ? { inStock: true, source: quantity } : undefined;
}
