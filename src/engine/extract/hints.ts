/**
 * A field's JSON Schema `description` as extra words for matching names: "the price after
 * discount" makes a label "Discount price" a name of the field `price`, and one naming more of
 * the description beats one that only repeats the field's name. Fields without a description
 * are matched exactly as before (no hint, no change).
 */
import { norm } from './candidate.js';
import type { FieldHints } from './json-schema.js';

/** Words that say how a description is phrased, not what the value is. */
const FILLER = new Set(
  'a an the of on in at to for from by with as is are be its it this that these those which who what when where after before than then and or not no value values field fields page pages shown written given listed displayed number text string'.split(
    ' ',
  ),
);

/** What a description says, ready to match names against. */
export interface DescriptionHint {
  /** Its content words, normalised and distinct ("discount", "price"). */
  words: string[];
}

const cache = new Map<string, DescriptionHint | undefined>();

/** The hint of a description, or undefined when it has no content word. */
export function descriptionHint(description: string | undefined): DescriptionHint | undefined {
  if (!description) return undefined;
  if (cache.has(description)) return cache.get(description);
  const words = [
    ...new Set(
      description
        .split(/[^\p{L}\p{N}]+/u)
        .map(norm)
        .filter((w) => w.length >= 2 && !FILLER.has(w) && !/^\d+$/.test(w)),
    ),
  ].slice(0, 12);
  const hint = words.length ? { words } : undefined;
  if (cache.size > 500) cache.clear();
  cache.set(description, hint);
  return hint;
}

/**
 * How much of the description a normalised name says, 0–1: the share of its words the name is
 * made of, when the name is made of nothing else ("discountprice" → discount + price: 1 of
 * "the price after discount"; "price": 1/2; "regularprice": 0, since "regular" is not in it).
 */
export function descriptionCover(name: string, hint: DescriptionHint): number {
  if (!name || name.length > 64) return 0;
  // Which words the name splits into (any order, each at most once), most words first. A
  // (position, words used) pair that failed once fails again: remembered, so a page's label
  // cannot make this try every order of the words (12! of them: seconds of a blocked process).
  const words = hint.words;
  const n = Math.min(words.length, 12); // descriptionHint keeps 12: one bit each
  const failed = new Set<number>();
  let used = 0;
  const split = (at: number): boolean => {
    if (at === name.length) return true;
    const key = at * 4096 + used;
    if (failed.has(key)) return false;
    for (let i = 0; i < n; i++) {
      const w = words[i]!;
      if (used & (1 << i) || !name.startsWith(w, at)) continue;
      used |= 1 << i;
      if (split(at + w.length)) return true;
      used &= ~(1 << i);
    }
    failed.add(key);
    return false;
  };
  if (!split(0)) return 0;
  let count = 0;
  for (let m = used; m; m &= m - 1) count++;
  return count / words.length;
}

/**
 * The name weight of a candidate for a field with a description, from the weight its name has
 * by the field's own vocabulary (`byName`, 0 when none) and what of the description it says:
 * the field's name plus the description weighs most, then the description alone, then the
 * field's name alone (0.75 of before: a description the name does not match counts against it).
 */
export function hintedWeight(byName: number, name: string, hint: DescriptionHint): number {
  const cover = descriptionCover(name, hint);
  const said = 0.75 + 0.5 * cover;
  return byName > 0 ? byName * said : cover > 0 ? 0.9 * said : 0;
}

/** The names a schema's descriptions add to the ones collectors look for (element names, block labels). */
export function hintedNames(hints: FieldHints | undefined, out = new Set<string>()): Set<string> {
  if (!hints) return out;
  const hint = descriptionHint(hints.description);
  for (const w of hint?.words ?? []) if (w.length >= 3) out.add(w);
  if (hint && hint.words.length > 1) out.add(hint.words.join(''));
  for (const f of Object.values(hints.fields ?? {})) hintedNames(f, out);
  if (hints.items) hintedNames(hints.items, out);
  return out;
}

/** Whether any field of a schema has a description (the worker then needs the hints too). */
export function hasDescriptions(hints: FieldHints | undefined): boolean {
  if (!hints) return false;
  if (hints.description) return true;
  return Object.values(hints.fields ?? {}).some(hasDescriptions) || hasDescriptions(hints.items);
}

/** A JSON Schema made from the short form with each field's description put back (sent to a worker as data). */
export function withDescriptions(js: Record<string, unknown>, hints: FieldHints | undefined): Record<string, unknown> {
  if (!hints) return js;
  const out: Record<string, unknown> = { ...js };
  if (hints.description) out.description = hints.description;
  const props = js.properties as Record<string, Record<string, unknown>> | undefined;
  if (hints.fields && props) {
    out.properties = Object.fromEntries(
      Object.entries(props).map(([k, v]) => [k, withDescriptions(v, hints.fields![k])]),
    );
  }
  const items = js.items as Record<string, unknown> | undefined;
  if (hints.items && items) out.items = withDescriptions(items, hints.items);
  return out;
}
