/*
 * Large JSON answers, built as the client reads them. `JSON.stringify` of a 12 MB trace makes a 12 MB string that
 * a client reading slowly (or not at all) keeps alive until it has read the last byte: thirty such clients held
 * gigabytes. `jsonChunks` gives the same text a slice at a time, so the transport builds the next slice only once
 * the socket has taken the last one: a slow reader holds one slice, not a copy of its answer.
 */

/** About how many characters of a large answer are built ahead of its reader. */
export const JSON_CHUNK_CHARS = 64 * 1024;

/** Parts of a large answer at most this long are serialised whole. */
const SMALL_PART_CHARS = 4 * 1024;

/**
 * Whether `value` serialises to more than about `budget` characters. Walks at most about `budget` characters' worth
 * of it and allocates nothing, so small answers keep the fast path (`JSON.stringify`, a `Content-Length`).
 */
export function jsonLengthExceeds(value: unknown, budget: number): boolean {
  return measure(value, budget) > budget;
}

function measure(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
    case 'bigint':
      return 8;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      // A Date and the like: its toJSON is called once, when the answer is built.
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return 32;
      let length = 2;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length && length <= budget; index++) length += measure(value[index], budget - length) + 1;
        return length;
      }
      for (const key in value) {
        if (length > budget) break;
        if (!Object.hasOwn(value, key)) continue;
        length += key.length + 4 + measure((value as Record<string, unknown>)[key], budget - length);
      }
      return length;
    }
    default:
      return 0;
  }
}

interface ObjectFrame {
  kind: 'object';
  value: Record<string, unknown>;
  keys: string[];
  index: number;
  written: boolean;
}

interface ArrayFrame {
  kind: 'array';
  value: readonly unknown[];
  index: number;
}

interface StringFrame {
  kind: 'string';
  value: string;
  offset: number;
}

type Frame = ObjectFrame | ArrayFrame | StringFrame;

/**
 * Exactly `JSON.stringify(value)` (no replacer, no indent), in chunks of about `chunkChars` characters. Nothing is
 * computed ahead of the chunk being asked for; a string longer than a chunk is itself cut (never inside a surrogate
 * pair). Throws what `JSON.stringify` throws (a cycle, a BigInt), when it reaches it.
 */
export function* jsonChunks(value: unknown, chunkChars: number = JSON_CHUNK_CHARS): Generator<string, void, undefined> {
  const frames: Frame[] = [];
  const open = new Set<object>();
  const wholeChars = Math.min(chunkChars, SMALL_PART_CHARS);
  let out = '';

  /** Writes a value (toJSON already applied): its text, or the opening of a frame that the loop continues. */
  const write = (item: unknown): void => {
    switch (typeof item) {
      case 'string':
        if (item.length <= chunkChars) out += JSON.stringify(item);
        else {
          out += '"';
          frames.push({ kind: 'string', value: item, offset: 0 });
        }
        return;
      case 'object': {
        if (item === null) {
          out += 'null';
          return;
        }
        if (item instanceof Number || item instanceof String || item instanceof Boolean) {
          out += JSON.stringify(item);
          return;
        }
        if (open.has(item)) throw new TypeError('Converting circular structure to JSON');
        // A small part goes through the native serialiser whole: several times faster than walking it here. (A
        // reference back to a part being walked makes the estimate large, so cycles still reach the check above.)
        if (typeof (item as { toJSON?: unknown }).toJSON !== 'function' && !jsonLengthExceeds(item, wholeChars)) {
          out += JSON.stringify(item);
          return;
        }
        if (Array.isArray(item)) {
          if (item.length === 0) out += '[]';
          else {
            out += '[';
            open.add(item);
            frames.push({ kind: 'array', value: item, index: 0 });
          }
          return;
        }
        const keys = Object.keys(item);
        if (keys.length === 0) out += '{}';
        else {
          out += '{';
          open.add(item);
          frames.push({ kind: 'object', value: item as Record<string, unknown>, keys, index: 0, written: false });
        }
        return;
      }
      default:
        // Numbers, booleans; a BigInt throws here as it does in JSON.stringify.
        out += JSON.stringify(item);
    }
  };

  const root = prepared(value, '');
  if (!isSkipped(root)) write(root);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.kind === 'object') {
      if (frame.index === frame.keys.length) {
        out += '}';
        frames.pop();
        open.delete(frame.value);
      } else {
        const key = frame.keys[frame.index++]!;
        const item = prepared(frame.value[key], key);
        if (!isSkipped(item)) {
          out += `${frame.written ? ',' : ''}${JSON.stringify(key)}:`;
          frame.written = true;
          write(item);
        }
      }
    } else if (frame.kind === 'array') {
      if (frame.index === frame.value.length) {
        out += ']';
        frames.pop();
        open.delete(frame.value);
      } else {
        const index = frame.index++;
        if (index > 0) out += ',';
        const item = prepared(frame.value[index], String(index));
        if (isSkipped(item)) out += 'null';
        else write(item);
      }
    } else {
      const { value: text, offset } = frame;
      let end = Math.min(offset + chunkChars, text.length);
      // Never between the halves of a surrogate pair: each alone would be escaped as a lone surrogate.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += 1;
      out += JSON.stringify(text.slice(offset, end)).slice(1, -1);
      frame.offset = end;
      if (end === text.length) {
        out += '"';
        frames.pop();
      }
    }
    if (out.length >= chunkChars) {
      yield out;
      out = '';
    }
  }
  if (out.length > 0) yield out;
}

/** What JSON.stringify serialises in place of `item`: the result of its toJSON(key), if it has one. */
function prepared(item: unknown, key: string): unknown {
  if (item !== null && (typeof item === 'object' || typeof item === 'bigint')) {
    const toJSON = (item as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return toJSON.call(item, key) as unknown;
  }
  return item;
}

/** Values JSON.stringify leaves out of objects (and writes as null in arrays). */
function isSkipped(item: unknown): boolean {
  return item === undefined || typeof item === 'function' || typeof item === 'symbol';
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
