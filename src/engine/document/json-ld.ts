/**
 * JSON-LD as pages write it: parsed leniently (XHTML-era wrappers, trailing commas, raw
 * control characters) and flattened (`@graph`, top-level arrays) into its items.
 */

/** The items of a JSON-LD script: top-level arrays and `@graph` lists flattened. */
export function flattenGraph(data: unknown): unknown[] {
  if (Array.isArray(data)) return data.flatMap(flattenGraph);
  if (data && typeof data === 'object' && Array.isArray((data as Record<string, unknown>)['@graph'])) {
    return ((data as Record<string, unknown>)['@graph'] as unknown[]).flatMap(flattenGraph);
  }
  return [data];
}

/** A JSON-LD script's data, or undefined when it is not JSON even after the usual repairs. */
export function parseLenient(text: string): unknown {
  // Wrappers from XHTML-era templates: <!-- … -->, <![CDATA[ … ]]>, //-commented lines.
  const t = text
    .trim()
    .replace(/^(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)$/g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .trim();
  try {
    return JSON.parse(t);
  } catch {
    try {
      // eslint-disable-next-line no-control-regex -- raw control characters are what breaks such JSON
      return JSON.parse(t.replace(/,\s*([}\]])/g, '$1').replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      return undefined;
    }
  }
}
