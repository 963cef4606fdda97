/**
 * Turns the request bodies of Trawl's OpenAPI document (GET /v1/openapi.json, made by the server
 * from the Zod objects that validate requests) into TypeScript types. Pure: the document in, the
 * file's text out, so a test can regenerate it from a running server and compare.
 */

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

interface Operation {
  summary?: string;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** The server's own names for its Zod body objects (src/contract/schemas.ts, src/app/monitors.ts). */
const NAMES: Record<string, string> = {
  'POST /v1/scrape': 'ScrapeBody',
  'POST /v1/crawl': 'CrawlBody',
  'POST /v1/extract': 'ExtractBody',
  'POST /v1/map': 'MapBody',
  'POST /v1/search': 'SearchBody',
  'POST /v1/batch/scrape': 'BatchScrapeBody',
  'POST /v1/marketplace': 'MarketplaceBody',
  'POST /v1/meta-ads': 'MetaAdsBody',
  'POST /v1/monitors': 'CreateMonitorBody',
  'PATCH /v1/monitors/{id}': 'UpdateMonitorBody',
  'POST /v1/webhooks/replay': 'ReplayBody',
};

/** A name for a body the table does not know yet (a new endpoint): `POST /v1/foo/{id}/bar` → `PostFooBarBody`. */
function fallbackName(method: string, path: string): string {
  const words = [
    method.toLowerCase(),
    ...path
      .replace(/^\/v1\//, '')
      .split(/[/_-]/)
      .filter((w) => w && !w.startsWith('{')),
  ];
  return `${words.map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Body`;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A literal in the project's style (single quotes). */
const literal = (v: unknown) =>
  typeof v === 'string'
    ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`
    : JSON.stringify(v);
const key = (k: string) => (IDENT.test(k) ? k : literal(k));
const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/** What a reader should know that the type cannot say: bounds, patterns, the server's description. */
function notes(s: JsonSchema): string[] {
  const out: string[] = [];
  if (s.description) out.push(sentence(s.description));
  const types = [s.type].flat();
  if (types.includes('integer')) out.push('An integer.');
  if (s.minimum !== undefined && s.maximum !== undefined) out.push(`From ${s.minimum} to ${s.maximum}.`);
  else if (s.minimum !== undefined) out.push(`At least ${s.minimum}.`);
  else if (s.maximum !== undefined) out.push(`At most ${s.maximum}.`);
  if (s.minLength !== undefined && s.maxLength !== undefined) out.push(`${s.minLength} to ${s.maxLength} characters.`);
  else if (s.maxLength !== undefined) out.push(`At most ${s.maxLength} characters.`);
  if (s.minItems !== undefined && s.maxItems !== undefined) out.push(`${s.minItems} to ${s.maxItems} items.`);
  else if (s.maxItems !== undefined) out.push(`At most ${s.maxItems} items.`);
  else if (s.minItems !== undefined) out.push(`At least ${s.minItems} items.`);
  if (s.pattern) out.push(`Matches \`${s.pattern}\`.`);
  if (s.items) out.push(...notes(s.items).map((n) => `Each item: ${n[0].toLowerCase()}${n.slice(1)}`));
  for (const alt of s.anyOf ?? []) {
    const n = notes(alt);
    if (n.length) out.push(`As a ${typeOf(alt, '')}: ${n.join(' ').replace(/^./, (c) => c.toLowerCase())}`);
  }
  return out;
}

function doc(lines: string[], indent: string): string {
  if (!lines.length) return '';
  const text = lines.join(' ').replace(/\*\//g, '*\\/');
  return `${indent}/** ${text} */\n`;
}

function typeOf(s: JsonSchema, indent: string): string {
  if (s.const !== undefined) return literal(s.const);
  if (s.enum) return s.enum.map(literal).join(' | ');
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map((a) => typeOf(a, indent)).join(' | ');
  const types = s.type === undefined ? [] : [s.type].flat();
  if (!types.length) return s.properties ? objectOf(s, indent) : 'unknown';
  return types
    .map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'number':
        case 'integer':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array': {
          const item = s.items ? typeOf(s.items, indent) : 'unknown';
          return /[ |&]/.test(item) ? `Array<${item}>` : `${item}[]`;
        }
        case 'object':
          return objectOf(s, indent);
        default:
          return 'unknown';
      }
    })
    .join(' | ');
}

function objectOf(s: JsonSchema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set(s.required ?? []);
  let out = '{\n';
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    out += doc(notes(v), inner);
    out += `${inner}${key(k)}${required.has(k) ? '' : '?'}: ${typeOf(v, inner)};\n`;
  }
  if (s.additionalProperties && s.additionalProperties !== true)
    out += `${inner}[key: string]: ${typeOf(s.additionalProperties, inner)};\n`;
  else if (s.additionalProperties === undefined || s.additionalProperties === true) {
    if (!s.properties) out += `${inner}[key: string]: unknown;\n`;
  }
  return `${out}${indent}}`;
}

export const HEADER = `// Generated by sdk/typescript/scripts/generate-types.ts from GET /v1/openapi.json: do not edit.
// The server makes that document from the Zod objects that validate each request body, so these
// are the bodies the server accepts. Regenerate after changing a body: npm run generate (in sdk/typescript).
`;

/** The file of request body types, one exported interface per body, sorted by name. */
export function renderRequestTypes(document: OpenApiDocument): string {
  const bodies: { name: string; route: string; summary?: string; schema: JsonSchema }[] = [];
  for (const [path, ops] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const route = `${method.toUpperCase()} ${path}`;
      bodies.push({ name: NAMES[route] ?? fallbackName(method, path), route, summary: op.summary, schema });
    }
  }
  bodies.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parts = bodies.map(
    (b) =>
      `${doc([`${b.route}: ${b.summary ?? ''}`.trim()], '')}export interface ${b.name} ${objectOf(b.schema, '')}\n`,
  );
  return `${HEADER}\n${parts.join('\n')}`;
}
