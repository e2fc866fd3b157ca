import { knownJsonText } from '../../core/domain/json.js';

/*
 * Large JSON answers, built as the client reads them. `JSON.stringify` of a 12 MB trace makes a 12 MB string that
 * a client reading slowly (or not at all) keeps alive until it has read the last byte: thirty such clients held
 * gigabytes. `jsonChunks` gives the same text a slice at a time, so the transport builds the next slice only once
 * the socket has taken the last one: a slow reader holds one slice, not a copy of its answer.
 */

/*
 * Concurrent answers that hold the same large part (readers of one trace share one parsed record, readers of one history
 * page one page: core/trace/sharedReads.ts, core/useCases/sharedHistoryPages.ts) would each serialise it again: sixty
 * clients of a 12 MB trace that do not read had the server build megabytes of JSON for each, as fast as their kernel
 * buffers took it, seconds of CPU that kept /health waiting. A part one answer is writing is registered while it does;
 * once another answer reaches it, the part's chunks are made once, a chunk at a time as the answers sharing it ask for
 * them, and kept until the last of those is done with the part. An answer alone makes and keeps nothing more.
 */
interface SharedChunks {
  chunks: string[];
  /** A walk of the part of its own, not sharing (its parts are the shared part's). */
  producer: Generator<string, void, undefined>;
  done: boolean;
  failure?: { error: unknown };
}

const partsBeingWritten = new WeakMap<object, { writers: number; shared?: SharedChunks }>();

/** A part this answer starts to write: its shared chunks if another answer is writing it too, else undefined. */
function enterPart(part: object, chunkChars: number): SharedChunks | undefined {
  const entry = partsBeingWritten.get(part);
  if (!entry) {
    partsBeingWritten.set(part, { writers: 1 });
    return undefined;
  }
  entry.writers += 1;
  return (entry.shared ??= { chunks: [], producer: chunksOf(part, chunkChars, false), done: false });
}

function leavePart(part: object): void {
  const entry = partsBeingWritten.get(part);
  if (!entry || --entry.writers > 0) return;
  partsBeingWritten.delete(part);
  entry.shared?.producer.return(undefined);
}

/** Chunk `index` of a shared part, made now if no answer asked for it before; undefined past the end. */
function sharedChunk(shared: SharedChunks, index: number): string | undefined {
  while (index >= shared.chunks.length && !shared.done) {
    try {
      const next = shared.producer.next();
      if (next.done) shared.done = true;
      else shared.chunks.push(next.value);
    } catch (error) {
      shared.done = true;
      shared.failure = { error };
    }
  }
  if (index >= shared.chunks.length && shared.failure) throw shared.failure.error;
  return shared.chunks[index];
}

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
      // Its text is known (JSON_TEXT): measured without reading the object (whose parts may be made when read).
      const text = knownJsonText(value);
      if (text !== undefined) return text.length;
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

/** A part's JSON text known already (JSON_TEXT), written as it is. */
interface TextFrame {
  kind: 'text';
  value: string;
  offset: number;
}

/** A part other answers are writing too: their shared chunks (partsBeingWritten). */
interface SharedFrame {
  kind: 'shared';
  part: object;
  shared: SharedChunks;
  index: number;
}

type Frame = ObjectFrame | ArrayFrame | StringFrame | TextFrame | SharedFrame;

/**
 * Exactly `JSON.stringify(value)` (no replacer, no indent), in chunks of about `chunkChars` characters. Nothing is
 * computed ahead of the chunk being asked for; a string longer than a chunk is itself cut (never inside a surrogate
 * pair). Throws what `JSON.stringify` throws (a cycle, a BigInt), when it reaches it.
 */
export function jsonChunks(value: unknown, chunkChars: number = JSON_CHUNK_CHARS): Generator<string, void, undefined> {
  return chunksOf(value, chunkChars, true);
}

/** jsonChunks; `share`: whether its large parts are shared with other answers writing them (partsBeingWritten). */
function* chunksOf(value: unknown, chunkChars: number, share: boolean): Generator<string, void, undefined> {
  const frames: Frame[] = [];
  const open = new Set<object>();
  /** The parts this answer registered as being written (partsBeingWritten), until it is done with each. */
  const entered = new Set<object>();
  const leave = (part: object): void => {
    if (entered.delete(part)) leavePart(part);
  };
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
        // A part whose JSON text its maker already holds (a stored history event): written as it is.
        const known = knownJsonText(item);
        if (known !== undefined) {
          if (known.length <= chunkChars) out += known;
          else frames.push({ kind: 'text', value: known, offset: 0 });
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
          else openPart(item, () => {
            out += '[';
            frames.push({ kind: 'array', value: item, index: 0 });
          });
          return;
        }
        const keys = Object.keys(item);
        if (keys.length === 0) out += '{}';
        else openPart(item, () => {
          out += '{';
          frames.push({ kind: 'object', value: item as Record<string, unknown>, keys, index: 0, written: false });
        });
        return;
      }
      default:
        // Numbers, booleans; a BigInt throws here as it does in JSON.stringify.
        out += JSON.stringify(item);
    }
  };

  /** A large part: written from the chunks other answers writing it share, else walked here. */
  const openPart = (part: object, walk: () => void): void => {
    // A part with its own toJSON (the result of another's) would be written differently by a walk of its own.
    const shareable = share && typeof (part as { toJSON?: unknown }).toJSON !== 'function';
    const shared = shareable ? enterPart(part, chunkChars) : undefined;
    if (shareable) entered.add(part);
    if (shared === undefined) {
      open.add(part);
      walk();
    } else {
      frames.push({ kind: 'shared', part, shared, index: 0 });
    }
  };

  try {
    yield* walk();
  } finally {
    // Done, failed, or left by its reader: the parts still open are no longer being written by this answer.
    for (const part of entered) leavePart(part);
  }

  function* walk(): Generator<string, void, undefined> {
    const root = prepared(value, '');
    if (!isSkipped(root)) write(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      if (frame.kind === 'object') {
        if (frame.index === frame.keys.length) {
          out += '}';
          frames.pop();
          open.delete(frame.value);
          leave(frame.value);
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
          leave(frame.value);
        } else {
          const index = frame.index++;
          if (index > 0) out += ',';
          const item = prepared(frame.value[index], String(index));
          if (isSkipped(item)) out += 'null';
          else write(item);
        }
      } else if (frame.kind === 'shared') {
        const chunk = sharedChunk(frame.shared, frame.index++);
        if (chunk === undefined) {
          frames.pop();
          leave(frame.part);
        } else {
          out += chunk;
        }
      } else {
        const { value: text, offset } = frame;
        let end = Math.min(offset + chunkChars, text.length);
        // Never between the halves of a surrogate pair: each alone would be escaped (or encoded) as a lone surrogate.
        if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += 1;
        out += frame.kind === 'string' ? JSON.stringify(text.slice(offset, end)).slice(1, -1) : text.slice(offset, end);
        frame.offset = end;
        if (end === text.length) {
          if (frame.kind === 'string') out += '"';
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
