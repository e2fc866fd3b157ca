import { decodeJson, encodeJson } from './json.js';

/**
 * A JSON value as the embedded engine keeps it: its JSON text, made once when the value crosses into the engine
 * and shared by every place that shows it (history event, run record, trace step, command log, feedback inbox).
 * A string is the most compact form V8 has for it (a parsed value takes several times its text), and its size is
 * known for the byte limits without encoding it again. Readers get a fresh decoded copy, as a Temporal client
 * decodes a payload, so nothing outside the engine can change what it keeps. Immutable.
 */
export class Payload {
  /** `undefined` (a step or workflow that returned nothing; Temporal encodes it as a null payload). */
  static readonly UNDEFINED = new Payload(undefined, 0);

  private constructor(
    readonly text: string | undefined,
    /** Bytes of the JSON text as UTF-8: what Temporal counts for a payload. */
    readonly bytes: number,
  ) {}

  /** Encodes a value; throws TypeError for values JSON cannot carry (BigInt, cycles). */
  static of(value: unknown): Payload {
    const text = encodeJson(value);
    return text === undefined ? Payload.UNDEFINED : new Payload(text, Buffer.byteLength(text, 'utf8'));
  }

  /** A payload from JSON text already made (read back from a store); undefined for `undefined`. */
  static fromText(text: string | undefined | null): Payload {
    return text === undefined || text === null ? Payload.UNDEFINED : new Payload(text, Buffer.byteLength(text, 'utf8'));
  }

  /** A fresh copy of the value. */
  value(): unknown {
    return decodeJson(this.text);
  }
}

/** Below this size a payload is not worth comparing: a copy costs less than the lookup. */
const POOLED_MIN_BYTES = 16 * 1024;
/** Same-length payloads compared per lookup; a run with many of one length only compares the latest. */
const POOLED_PER_LENGTH = 4;

/**
 * The large payloads of one run by content, so a value met again is kept once: an input handed to a step, returned
 * by it and returned by the workflow is one string, not four. Comparing two strings of equal length is a memcmp that
 * stops at the first difference, and only payloads of the same length are compared.
 */
export class PayloadPool {
  private readonly byLength = new Map<number, Payload[]>();

  /** The pooled payload with the same text, or `payload` itself (now pooled). */
  intern(payload: Payload): Payload {
    const { text } = payload;
    if (text === undefined || payload.bytes < POOLED_MIN_BYTES) return payload;
    const same = this.byLength.get(text.length);
    if (!same) {
      this.byLength.set(text.length, [payload]);
      return payload;
    }
    const found = same.find((pooled) => pooled === payload || pooled.text === text);
    if (found) return found;
    same.push(payload);
    if (same.length > POOLED_PER_LENGTH) same.shift();
    return payload;
  }

  /** Forgets every payload (the run closed: nothing new will be compared). */
  clear(): void {
    this.byLength.clear();
  }
}
