/**
 * Guards for JSON that arrives from outside, before anything walks it. Pure functions, no I/O.
 */

/**
 * The deepest nesting of arrays and objects in JSON text, counted without parsing it (strings are skipped, so
 * brackets inside them do not count). Stops counting once `limit` is passed: only "too deep or not" matters.
 */
export function jsonNestingDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x22 /* " */) {
      // Skip the string: a backslash escapes the next character, whatever it is.
      for (index += 1; index < text.length; index += 1) {
        const inner = text.charCodeAt(index);
        if (inner === 0x5c /* \ */) index += 1;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth -= 1;
    }
  }
  return deepest;
}

/** Where a key that could reach an object's prototype sits in a parsed JSON value, if anywhere. */
export interface PrototypeKey {
  key: '__proto__' | 'constructor';
  path: (string | number)[];
}

/**
 * Finds the first `__proto__` key, or `constructor` key holding an object with a `prototype` key, in a parsed JSON
 * value. JSON.parse makes them harmless own properties, but the first merge, spread into a setter or
 * `target[key] = value` copy downstream (in flowgate, a library or a workflow's own code) turns them into
 * prototype pollution; the same rule as secure-json-parse's defaults. Iterative: depth is limited elsewhere, but a
 * guard must not be the thing that overflows.
 */
export function findPrototypeKey(value: unknown): PrototypeKey | undefined {
  // Only objects and arrays are queued, each with a link to its parent instead of a copied path: a body of a
  // million numbers must cost nothing, and the path is built only for the one object that is refused.
  const pending: Visit[] = [];
  const queue = (candidate: unknown, parent: Visit | undefined, key: string | number): void => {
    if (candidate !== null && typeof candidate === 'object') pending.push({ value: candidate as object, parent, key });
  };
  queue(value, undefined, '');
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const current = visit.value;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) queue(current[index], visit, index);
      continue;
    }
    const record = current as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(record, '__proto__')) return { key: '__proto__', path: pathOf(visit) };
    const constructorValue = Object.prototype.hasOwnProperty.call(record, 'constructor') ? record['constructor'] : undefined;
    if (constructorValue !== null && typeof constructorValue === 'object' && Object.prototype.hasOwnProperty.call(constructorValue, 'prototype')) {
      return { key: 'constructor', path: pathOf(visit) };
    }
    for (const key of Object.keys(record)) queue(record[key], visit, key);
  }
  return undefined;
}

interface Visit {
  value: object;
  parent: Visit | undefined;
  key: string | number;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * Whether {@link findPrototypeKey} can find anything in this text: a cheap test that spares the walk for nearly
 * every body. Any `\u` escape could spell either key, so it sends the body to the walk as well.
 */
export function mayHavePrototypeKey(text: string): boolean {
  return text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
}
