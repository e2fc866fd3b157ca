/**
 * Values cross the engine boundary as JSON, as Temporal payloads do: a workflow or step never shares an object
 * with history, its caller or another run. `undefined` survives (Temporal encodes it as a null payload).
 */

/** The JSON text of a value; throws TypeError for values JSON cannot carry (BigInt, cycles). */
export function encodeJson(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

export function decodeJson(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}

/** A fresh copy of a value as it would arrive on the other side of a payload converter. */
export function jsonCopy(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  return decodeJson(encodeJson(value));
}
