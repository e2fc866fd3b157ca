/**
 * Reading what workflow or step code threw, which can be anything: an object without a prototype (no toString), an
 * Error whose `name` or `message` getter throws, a message that is a number. Each reader here answers with text and
 * never throws: a failure being recorded must not become a crash of the engine that records it.
 */

/** A field of a thrown object (`cause`, `nonRetryable`, a non-Error's `message`); a getter that throws reads as absent. */
export function thrownField(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Any value as text: String() where it works, else what kind of object it is. */
export function textOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return '[a value that cannot be written as text]';
    }
  }
}

/** Whether a thrown value says it is not worth retrying (NonRetryableError, `nonRetryable = true`); a getter that throws says no. */
export function thrownNonRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && thrownField(error, 'nonRetryable') === true;
}

/** The class name of a thrown value: its `name` when that is a non-empty string, else `Error`. */
export function thrownName(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'Error';
  const name = thrownField(error, 'name');
  return typeof name === 'string' && name !== '' ? name : 'Error';
}

/** The message of a thrown value, as text: an Error's `message` (written as text when it is not), else the value. */
export function thrownMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const message = thrownField(error, 'message');
    if (typeof message === 'string') return message;
    if (isError(error)) return message === undefined ? '' : textOf(message);
  }
  return textOf(error);
}

function isError(value: object): boolean {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}
