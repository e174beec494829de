/**
 * Plain objects whose keys come from outside (JSON from a client or a provider, the config, the
 * environment) meet `Object.prototype`: `object["constructor"]` is a function, `"toString" in
 * object` is true, a write under `__proto__` replaces the prototype. Maps keyed by such strings
 * are `Map`s (scripts/check-maps.ts enforces it); these helpers cover the JSON shapes and
 * constant tables that stay objects.
 */

/** `object[key]` when it is the object's own property, else undefined: never an inherited member. */
export function ownValue<V>(object: Readonly<Record<string, V>>, key: string): V | undefined {
  // plain-object: read only after Object.hasOwn, so an inherited member is never found
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** A constant table as a Map, for lookups with strings from outside. */
export function lookupTable<V>(entries: Readonly<Record<string, V>>): ReadonlyMap<string, V> {
  return new Map(Object.entries(entries));
}

/** An empty object without a prototype: a JSON shape keyed by outside strings (`__proto__` is just a key in it). */
export function nullPrototypeObject<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}
