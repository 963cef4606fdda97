/**
 * How deep a raw JSON body may nest, checked before JSON.parse (json-body.ts, the body workers).
 * The Zod field helpers and `parseBody` are the contract's (contract/validation.ts).
 */
/**
 * Deepest nesting of arrays and objects a JSON body may have. No request of the contract needs
 * more than a dozen levels (a JSON Schema for extraction is the deepest); the bound keeps every
 * recursive walk after parsing (validation, schema compiling) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Where the text first opens a level deeper than `max` (a 1-based character offset), if it
 * does: one linear pass over the raw body, before JSON.parse, skipping brackets inside strings.
 */
export function jsonTooDeepAt(text: string, max = MAX_JSON_DEPTH): number | undefined {
  return scanJson(text, max).tooDeepAt;
}

/**
 * The same pass, also counting values (each array or object, and each comma: every value but
 * the first of a container): what JSON.parse would build, known before it builds it.
 */
export function scanJson(text: string, max = MAX_JSON_DEPTH): { tooDeepAt?: number; values: number } {
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c) values++;
    else if (c === 0x5b || c === 0x7b) {
      values++;
      if (++depth > max) return { tooDeepAt: i + 1, values };
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { values };
}
