/*
 * Text rules shared by ids and names. Lengths are counted in characters (Unicode code points), as JSON Schema's
 * minLength and maxLength count them, not in UTF-16 code units (`string.length`, zod's `.max()`), where an emoji
 * counts twice.
 */

// With the `u` flag a well-formed surrogate pair is one code point, so only an unpaired half matches.
const UNPAIRED_SURROGATE = /\p{Surrogate}/u;

/** Characters (code points) in `value`. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _character of value) count += 1;
  return count;
}

/** Whether `value` is at most `max` characters long, without counting when its code units already say so. */
export function fitsCharacters(value: string, max: number): boolean {
  return value.length <= max || characterCount(value) <= max;
}

/**
 * JSON may carry a lone surrogate escape (`"\ud800"`), which is no character at all: it cannot be written as UTF-8,
 * so an engine cannot store it (Temporal's gRPC refuses the whole request). Ids, names and reasons must not have one.
 */
export function hasUnpairedSurrogate(value: string): boolean {
  return UNPAIRED_SURROGATE.test(value);
}
