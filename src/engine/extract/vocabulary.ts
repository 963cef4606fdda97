/**
 * What names a field answers to. A schema field `price` accepts candidates named `price`,
 * `saleprice`, `lowprice`, `product:price`…; the weight says how sure the name is. Also
 * which containers a value may sit in (`offers.price` is the product's price,
 * `review.author.name` is not its name).
 */
import { norm } from './candidate.js';

export interface FieldVocabulary {
  /** Accepted candidate names → weight (0–1). */
  names: Map<string, number>;
  /** Path segments a top-level value may be nested under without penalty. */
  containers: Set<string>;
  /** Which kind of value the field holds, for validity checks. */
  role: 'price' | 'currency' | 'availability' | 'identifier' | 'text' | 'date' | 'url' | 'rating' | 'count' | 'generic';
}

type Entry = {
  names: string[];
  weak?: string[];
  weakest?: string[];
  containers?: string[];
  role?: FieldVocabulary['role'];
};

const V: Record<string, Entry> = {
  title: {
    names: ['title', 'name', 'headline', 'producttitle', 'productname'],
    containers: ['og', 'twitter'],
    role: 'text',
  },
  name: {
    names: ['name', 'title', 'headline', 'productname', 'producttitle'],
    containers: ['og', 'twitter'],
    role: 'text',
  },
  headline: { names: ['headline', 'title', 'name'], role: 'text' },
  price: {
    names: [
      'price',
      'saleprice',
      'currentprice',
      'offerprice',
      'finalprice',
      'lowprice',
      'pricevalue',
      'priceamount',
      'ourprice',
      'specialprice',
      'productprice',
      'priceactual',
      'actualprice',
      'sellingprice',
      'amount',
    ],
    weak: [
      'highprice',
      'value',
      'preis',
      'prix',
      'precio',
      'prezzo',
      'preco',
      'cena',
      'cijena',
      'pret',
      'hinta',
      'pris',
      // "Price" labels of Chinese, Japanese and Korean shops.
      '價格',
      '价格',
      '售價',
      '售价',
      '特價',
      '特价',
      '優惠價',
      '优惠价',
      '直購價',
      '網路價',
      '定價',
      '価格',
      '販売価格',
      '税込価格',
      '가격',
      '판매가',
      '할인가',
    ],
    containers: ['offers', 'offer', 'pricespecification', 'priceinfo', 'product', 'og', 'pricing', 'prices'],
    role: 'price',
  },
  currency: {
    names: ['pricecurrency', 'currency', 'currencycode', 'pricecurrencycode'],
    containers: ['offers', 'offer', 'pricespecification', 'price', 'product', 'og'],
    role: 'currency',
  },
  instock: {
    names: [
      'availability',
      'instock',
      'stockstatus',
      'inventorystatus',
      'isavailable',
      'available',
      'availabilitystatus',
      'stock',
      'productavailability',
      'itemavailability',
      'isinstock',
      'stockavailability',
      'onlineavailability',
    ],
    weak: [
      'disponibilite',
      'disponibilidad',
      'verfugbarkeit',
      'lieferbarkeit',
      'disponibilita',
      'disponibilidade',
      'dostupnost',
      'beschikbaarheid',
      'lagerstatus',
      'stocklevel',
    ],
    containers: ['offers', 'offer', 'product', 'og'],
    role: 'availability',
  },
  sku: {
    names: [
      'sku',
      'productid',
      'skuid',
      'productsku',
      'itemid',
      'itemnumber',
      'itemno',
      'articlenumber',
      'artnr',
      'artikelnummer',
      'partnumber',
      'productcode',
      'productnumber',
      'retaileritemid',
      'styleid',
      'stylenumber',
      'reference',
      'ref',
      'referencia',
      'codigo',
      'codice',
      'kod',
      'sifra',
      'item',
      'article',
      'code',
      'prodid',
      'pid',
      'asin',
      'itemcode',
      'articlecode',
      'productreference',
      'referencenumber',
      'artikelnr',
      'bestellnummer',
      'codicearticolo',
      'codiceprodotto',
      'codigoproducto',
      'codigodelproducto',
      'referenciaproducto',
      'kodproduktu',
      'numerkatalogowy',
      'artikelcode',
      'varenummer',
      'tuotekoodi',
      // Cyrillic, Greek, Turkish, Hungarian, Czech/Slovak labels for the shop's code.
      'код',
      'кодтовара',
      'артикул',
      'кодпродукта',
      'κωδικος',
      'κωδικοςπροιοντος',
      'urunkodu',
      'stokkodu',
      'cikkszam',
      'termekkod',
      'katalogovecislo',
    ],
    weak: ['gtin13', 'gtin', 'gtin12', 'gtin14', 'ean', 'upc', 'urlid'],
    weakest: ['id'],
    containers: ['offers', 'offer', 'product', 'og'],
    role: 'identifier',
  },
  brand: {
    names: [
      'brand',
      'brandname',
      'manufacturer',
      'make',
      'marque',
      'marca',
      'marke',
      'productbrand',
      // Brand and manufacturer labels of shops in other languages.
      'merk',
      'maerke',
      'merke',
      'znacka',
      'marka',
      'zimols',
      'kaubamark',
      'markas',
      'marki',
      'brend',
      'бренд',
      'марка',
      'μαρκα',
      'marchio',
      'hersteller',
      'fabricant',
      'fabricante',
      'produttore',
      'fabbricante',
      'producent',
      'proizvajalec',
      'proizvodjac',
      'proizvodac',
      'vyrobce',
      'vyrobca',
      'valmistaja',
      'tillverkare',
      'produsent',
      'gyarto',
      'производитель',
      'виробник',
      'uretici',
      'κατασκευαστης',
      'razotajs',
      'gamintojas',
      'tootja',
      'producator',
    ],
    containers: ['brand', 'manufacturer', 'product', 'og'],
    role: 'text',
  },
  description: {
    names: ['description', 'productdescription', 'summary', 'abstract'],
    containers: ['og', 'twitter'],
    role: 'text',
  },
  image: {
    names: ['image', 'imageurl', 'thumbnail', 'thumbnailurl', 'contenturl', 'picture', 'photo', 'primaryimage'],
    containers: ['image', 'og', 'twitter', 'images'],
    role: 'url',
  },
  images: {
    names: ['image', 'images', 'imageurl', 'contenturl', 'photos', 'gallery'],
    containers: ['image', 'og'],
    role: 'url',
  },
  url: { names: ['url', 'link', 'canonical', 'href', 'permalink'], containers: ['og'], role: 'url' },
  link: { names: ['url', 'link', 'href'], containers: ['og'], role: 'url' },
  rating: {
    names: ['ratingvalue', 'rating', 'averagerating', 'stars', 'score'],
    containers: ['aggregaterating'],
    role: 'rating',
  },
  reviewcount: {
    names: ['reviewcount', 'ratingcount', 'numberofreviews', 'reviewscount', 'totalreviews', 'reviews'],
    containers: ['aggregaterating'],
    role: 'count',
  },
  author: { names: ['author', 'creator', 'byline', 'writer'], containers: ['author', 'article'], role: 'text' },
  date: {
    names: ['datepublished', 'publishedtime', 'publishdate', 'pubdate', 'date', 'datecreated', 'releasedate'],
    containers: ['article'],
    role: 'date',
  },
  published: {
    names: ['datepublished', 'publishedtime', 'publishdate', 'pubdate', 'date'],
    containers: ['article'],
    role: 'date',
  },
  // The names schemas give a publication date: published_at, publish_date, publication_date…
  publishedat: {
    names: [
      'datepublished',
      'publishedtime',
      'publishdate',
      'pubdate',
      'publicationdate',
      'publisheddate',
      'date',
      'datecreated',
      'releasedate',
      'dcdate',
      'dctermsdate',
      'dctermscreated',
    ],
    containers: ['article'],
    role: 'date',
  },
  modified: {
    names: ['datemodified', 'modifiedtime', 'updatedtime', 'lastmodified', 'dateupdated', 'updated', 'modified'],
    containers: ['article'],
    role: 'date',
  },
  sitename: {
    names: ['sitename', 'publisher', 'applicationname', 'website'],
    containers: ['og', 'publisher'],
    role: 'text',
  },
  gtin: {
    names: [
      'gtin',
      'gtin13',
      'gtin12',
      'gtin14',
      'gtin8',
      'ean',
      'upc',
      'isbn',
      'ean13',
      'eancode',
      'isbn13',
      'isbn10',
      'barcode',
      'upccode',
      'ean/upc',
    ],
    containers: ['offers', 'product'],
    role: 'identifier',
  },
  mpn: {
    names: [
      'mpn',
      'modelnumber',
      'partnumber',
      'model',
      'manufacturerpartnumber',
      'itemmodelnumber',
      'mfrpartnumber',
      'mfgpartnumber',
      'manufacturerreference',
      // Amazon's and other shops' labels in other languages ("Numéro du modèle de l'article", "Numero modello articolo").
      'modellnummer',
      'herstellernummer',
      'herstellerartikelnummer',
      'herstellerreferenz',
      'numerodumodeledelarticle',
      'referencefabricant',
      'numeromodelloarticolo',
      'numerodemodelodelproducto',
      'numerodepieza',
      'numerodelmodelo',
      'modelnummer',
      'numerdrodelu',
      'numerkatalogowyproducenta',
      'modello',
      'modelo',
      'modele',
      'modell',
      'modelnamenumber',
      'razotajakods',
      'kodvyrobce',
      'kodvyrobcu',
      'kodproducenta',
      'tootjakood',
    ],
    containers: ['product'],
    role: 'identifier',
  },
  model: { names: ['model', 'modelnumber', 'mpn', 'modelname'], containers: ['product'], role: 'text' },
  color: { names: ['color', 'colour', 'farbe', 'couleur'], role: 'text' },
  condition: { names: ['itemcondition', 'condition'], containers: ['offers'], role: 'text' },
  seller: { names: ['seller', 'merchant', 'soldby', 'vendor', 'retailer'], containers: ['offers'], role: 'text' },
  category: { names: ['category', 'breadcrumb', 'productcategory'], role: 'text' },
  email: { names: ['email', 'mail'], role: 'text' },
  phone: { names: ['telephone', 'phone', 'tel'], role: 'text' },
  address: { names: ['address', 'streetaddress'], role: 'text' },
  listprice: {
    names: ['listprice', 'wasprice', 'regularprice', 'originalprice', 'msrp', 'rrp', 'highprice', 'oldprice'],
    containers: ['offers'],
    role: 'price',
  },
};
V.available = V.instock;
V.availability = V.instock;
V.stock = V.instock;
V.productname = V.name;
V.reviews = V.reviewcount;
V.ratingcount = V.reviewcount;
V.numreviews = V.reviewcount;
for (const k of [
  'publishdate',
  'publicationdate',
  'publisheddate',
  'datepublished',
  'publishedon',
  'pubdate',
  'postedat',
  'posteddate',
  'publishedtime',
])
  V[k] = V.publishedat;
for (const k of ['updatedat', 'modifiedat', 'datemodified', 'lastmodified', 'updated', 'lastupdated'])
  V[k] = V.modified;
V.authorname = V.author;
V.byline = V.author;
V.site = V.sitename;

/**
 * Names too common to trust inside compound class names, data-* attributes or script keys
 * (`postal-code`, `data-item`, `"item": 3`); they still count as exact labels and properties.
 */
export const GENERIC_NAMES = new Set([
  'code',
  'item',
  'article',
  'ref',
  'pid',
  'reference',
  'id',
  'value',
  'available',
]);

const cache = new Map<string, FieldVocabulary>();

export function vocabularyFor(field: string): FieldVocabulary {
  const key = norm(field);
  const hit = cache.get(key);
  if (hit) return hit;
  const names = new Map<string, number>([[key, 1]]);
  const stripped = key.replace(/^(?:is|has|product|item|page|article|main)(?=[a-z]{3,})/, '');
  // A plural names a list of what the singular names: authors, tags, categories.
  const singular = key.length > 4 ? key.replace(/ies$/, 'y').replace(/(?<!s)s$/, '') : key;
  const entry = V[key] ?? V[stripped] ?? V[singular];
  if (stripped !== key) names.set(stripped, 0.9);
  if (singular !== key && !names.has(singular)) names.set(singular, 0.95);
  // Candidate names are normalised (NFD, accents dropped: Hangul becomes jamo), so the
  // vocabulary's are too.
  for (const n of (entry?.names ?? []).map(norm)) if (!names.has(n)) names.set(n, 0.9);
  for (const n of (entry?.weak ?? []).map(norm)) if (!names.has(n)) names.set(n, 0.6);
  for (const n of (entry?.weakest ?? []).map(norm)) if (!names.has(n)) names.set(n, 0.4);
  const vocab: FieldVocabulary = {
    names,
    containers: new Set(entry?.containers ?? []),
    role: entry?.role ?? 'generic',
  };
  cache.set(key, vocab);
  return vocab;
}
