/** A JSON Schema document (draft 2020-12), as zod's `toJSONSchema` produces it. */
export type JsonSchema = Record<string, unknown> | boolean;

/**
 * On an object: its JSON text, when whoever made the object already holds it (the durable embedded engine keeps each
 * history event's attributes as JSON text). A transport writes that text as it is instead of serialising the object
 * again; JSON.stringify still serialises the object itself. Not enumerable: the object's value is unchanged.
 */
export const JSON_TEXT: unique symbol = Symbol('flowgate.jsonText');

/** The JSON text `value` carries (JSON_TEXT), if it carries one. */
export function knownJsonText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const text = (value as { [JSON_TEXT]?: unknown })[JSON_TEXT];
  return typeof text === 'string' ? text : undefined;
}

/**
 * Freezes `value` and everything it holds, in place: a catalog's published workflows are shared by every reader (the
 * core caches a compiled validator per schema object), so no reader may change one.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value)) deepFreeze(nested);
  }
  return value;
}
