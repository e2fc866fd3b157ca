import { once, type EventEmitter } from 'node:events';
import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import type { LogFields, Logger } from '../../ports/logger.js';

export type LogLevel = 'info' | 'warn' | 'error' | 'silent';
const LEVELS: readonly LogLevel[] = ['info', 'warn', 'error', 'silent'];

/**
 * Field paths whose values never reach a log line: secrets by name at the top level, and the credentials of a logged
 * `headers` object. Named paths, not wildcards (`*.token`): a wildcard path tripled the cost of every line (figure 1
 * writes one per request). URLs are redacted where they are logged (core/domain/urlRedaction.ts); this is the net below.
 */
export const REDACTED_PATHS: readonly string[] = [
  ...['authorization', 'cookie', 'token', 'apiKey', 'password', 'secret', 'signingSecret'],
  ...['authorization', 'cookie', 'x-api-key'].map((header) => `headers["${header}"]`),
];
export const REDACTION_CENSOR = '[redacted]';

export interface PinoLoggerOptions {
  /** Lowest level written. @default 'info' */
  level?: LogLevel;
  /**
   * Where lines go. @default standard output through an asynchronous buffered writer: lines go out together, 8 KiB
   * at a time, once 50 ms old on a turn that logs, or 250 ms after the last when nothing more is logged (a warn or
   * error line at the end of its turn); they queue while a write is on its way, up to 16 MiB, so logging never blocks
   * a request on the terminal or pipe (flushed at exit and by flush()).
   */
  destination?: DestinationStream;
  /** Fields added to every line. */
  base?: LogFields;
  /** Field paths redacted besides {@link REDACTED_PATHS}, in pino's path syntax. */
  redact?: readonly string[];
}

/**
 * The Logger port on pino: one JSON object per line, `{"level":"info","time":"<ISO 8601>",...fields,"msg":"..."}`
 * (the field names the logs have always had), Error values anywhere in the fields written as `{name, message, cause}`,
 * secrets redacted by path.
 */
export class PinoLogger implements Logger {
  private readonly pino: Pino;
  /** Where pino's lines end up: the given destination, or the default asynchronous writer. */
  private readonly destination: DestinationStream;
  /** Holds the lines of a turn for the default writer; absent for a destination given in the options. */
  private readonly batch: TurnBatch | undefined;

  constructor(options: PinoLoggerOptions = {}, parent?: { pino: Pino; destination: DestinationStream; batch: TurnBatch | undefined }) {
    if (parent) {
      this.pino = parent.pino;
      this.destination = parent.destination;
      this.batch = parent.batch;
      return;
    }
    const level = options.level ?? 'info';
    if (!LEVELS.includes(level)) throw new TypeError(`PinoLogger: options.level must be one of ${LEVELS.join(', ')}`);
    if (options.destination) {
      this.destination = options.destination;
    } else {
      const writer = pino.destination({ dest: 1, sync: false, minLength: TURN_BATCH_BYTES, maxLength: MAX_WAITING_BYTES });
      this.destination = writer;
      this.batch = new TurnBatch(writer as unknown as AsyncDestination);
    }
    this.pino = pino(
      {
        level,
        base: options.base ?? null,
        messageKey: 'msg',
        timestamp: isoTimeOfTheMillisecond,
        formatters: { level: (label) => ({ level: label }), log: withPlainErrors },
        redact: { paths: [...REDACTED_PATHS, ...(options.redact ?? [])], censor: REDACTION_CENSOR },
      },
      this.batch ?? this.destination,
    );
    if (this.batch) {
      this.batch.onDropped = (lines) =>
        this.pino.warn({ droppedLines: lines }, `log lines dropped: standard output was not read while ${MAX_WAITING_BYTES / MIB} MiB of lines waited`);
    }
  }

  info(message: string, fields?: LogFields): void {
    this.pino.info(fields ?? {}, message);
  }

  warn(message: string, fields?: LogFields): void {
    this.pino.warn(fields ?? {}, message);
    this.batch?.writeSoon();
  }

  error(message: string, fields?: LogFields): void {
    this.pino.error(fields ?? {}, message);
    this.batch?.writeSoon();
  }

  child(fields: LogFields): Logger {
    return new PinoLogger({}, { pino: this.pino.child(fields), destination: this.destination, batch: this.batch });
  }

  /**
   * Resolves once every line logged so far is written: the writes on their way first, then what is still buffered,
   * synchronously. Other destinations are asked to flush (pino's flush). When standard output takes no write for
   * 5 s (nobody reads it), what still waits is dropped and the writer closed: a shutdown does not hang on it, nor does
   * the exit after it.
   */
  async flush(): Promise<void> {
    this.batch?.handOver();
    const boom = this.destination as Partial<AsyncDestination>;
    if (typeof boom.flushSync !== 'function' || typeof boom.once !== 'function') {
      await new Promise<void>((resolve) => this.pino.flush(() => resolve()));
      return;
    }
    const destination = boom as AsyncDestination;
    if (destination.destroyed) return;
    if (destination.fd < 0) await once(destination, 'ready');
    // sonic-boom's own flag for an asynchronous write in progress; it has no public one. Each finished write starts the
    // next one (what came in meanwhile) before its 'write' event is seen here, so this waits out the whole queue. A
    // flushSync while a write is in flight would race it for the file offset and lose lines.
    while (destination._writing) {
      if (!(await writtenWithin(destination, UNREAD_OUTPUT_MS))) {
        destination.destroy();
        return;
      }
    }
    // Nothing in flight now: what a minimum write length held back goes out synchronously.
    destination.flushSync();
  }
}

/** How long flush() waits for standard output to take a write before it takes it for unread. */
const UNREAD_OUTPUT_MS = 5000;

/** Whether the writer finished a write within `ms`. */
async function writtenWithin(destination: AsyncDestination, ms: number): Promise<boolean> {
  const wait = new AbortController();
  const timer = setTimeout(() => wait.abort(), ms);
  try {
    await once(destination, 'write', { signal: wait.signal });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** pino.destination({ sync: false }): a sonic-boom. */
interface AsyncDestination extends EventEmitter {
  fd: number;
  /** Below this many bytes held, write() holds; at or above, it starts an asynchronous write. */
  minLength: number;
  destroyed: boolean;
  _writing: boolean;
  /** Bytes buffered, not yet handed to a write. */
  _len: number;
  write(text: string): boolean;
  flushSync(): void;
  destroy(): void;
  flush(): void;
}

/**
 * Below this many bytes the default writer holds what it was handed until it is asked to flush, once the event-loop
 * turn is over (TurnBatch); above, it writes at once. Under load one turn answers many requests, and one write for all
 * their access lines costs the thread pool one task instead of one per line (docs/performance.md, figure 1). Under
 * sonic-boom's largest write (16 KiB).
 */
const TURN_BATCH_BYTES = 8 * 1024;

/**
 * The most handed to the writer at once (sonic-boom's largest write, in characters): what one asynchronous write has
 * on its way, which an exit or crash meanwhile loses, stays as small as it was without TurnBatch.
 */
const MAX_HANDED_OVER = 16 * 1024;

const MIB = 1024 * 1024;
/**
 * The most lines wait for standard output: a reader that stops (a stalled log shipper) would otherwise grow the
 * process without end. Beyond it lines are dropped, counted, and the count logged once writing resumes.
 */
const MAX_WAITING_BYTES = 16 * MIB;

/**
 * How old the lines the default writer holds under its minimum write length must be before a turn that logs writes
 * them. Written once per turn, a server answering a few requests per turn paid a write (a thread-pool task and its
 * wake-up) per turn, most of the access log's cost (docs/performance.md, figure 1b).
 */
const HOLD_MS = 50;

/**
 * How long the writer holds lines when nothing else logs: a timer then writes them. Only silence waits for it: a busy
 * process writes on a turn it is awake for anyway, where a timer of HOLD_MS woke an otherwise idle process up to 20
 * times a second, at a few requests per second more than the write saved (docs/performance.md, figure 9). An exit
 * writes what is held first.
 */
const QUIET_HOLD_MS = 250;

/**
 * The default writer's front: it keeps pino's lines in a list while the event-loop turn that logs them runs, then
 * hands them to the writer as one string and has it write what it holds once that is HOLD_MS old (QUIET_HOLD_MS when
 * nothing more is logged). Handed one line at a time, sonic-boom appends each to the string it holds and measures that
 * string again (Buffer.byteLength), which flattens it: a copy of up to 16 KiB per line, under load the largest
 * allocation of a request (docs/performance.md, figure 1b).
 */
class TurnBatch implements DestinationStream {
  private lines: string[] = [];
  private scheduled = false;
  /** A warn or error line is held: what the writer holds goes out at the end of this turn, not after HOLD_MS. */
  private urgent = false;
  /** Lines the writer dropped (over MAX_WAITING_BYTES) since the last report. */
  private dropped = 0;
  /** Reports dropped lines once the writer takes lines again. */
  onDropped: ((lines: number) => void) | undefined;

  private quietTimer: NodeJS.Timeout | undefined;
  /** When the writer began to hold what it holds (performance.now()); undefined while it holds nothing of ours. */
  private heldSince: number | undefined;

  constructor(private readonly writer: AsyncDestination) {
    // A write that ends leaves what came in meanwhile held when that is under the minimum length: written by the same
    // rule, not whenever a later line asks.
    writer.on('drain', this.writeOrHold);
    writer.on('drop', (text: string) => {
      for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) this.dropped += 1;
    });
  }

  write(line: string): void {
    this.lines.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    heldBatches.add(this);
    holdUntilExitAtMost();
    setImmediate(this.endOfTurn);
  }

  /** Hands the lines held to the writer (which holds them below its minimum write length), 16 KiB at most at a time. */
  handOver(): void {
    const lines = this.lines;
    if (lines.length === 0) return;
    this.lines = [];
    if (this.writer.destroyed) return;
    this.heldSince ??= performance.now();
    let from = 0;
    let length = 0;
    for (let index = 0; index < lines.length; index += 1) {
      const lineLength = lines[index]!.length;
      if (length > 0 && length + lineLength > MAX_HANDED_OVER) {
        this.writer.write(joined(lines, from, index));
        from = index;
        length = 0;
      }
      length += lineLength;
    }
    this.writer.write(joined(lines, from, lines.length));
  }

  /** The lines of a warn or error go out at the end of the turn: not held for others to join, nor lost if it dies. */
  writeSoon(): void {
    this.urgent = true;
  }

  /**
   * At exit: the lines held go to the writer without starting an asynchronous write, which the exit would cut short;
   * pino's exit hook then writes all the writer holds, synchronously.
   */
  handOverAtExit(): void {
    this.writer.minLength = Number.MAX_SAFE_INTEGER;
    this.handOver();
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    heldBatches.delete(this);
    this.handOver();
    this.writeOrHold();
  };

  /**
   * What the writer holds goes out on this turn once it is HOLD_MS old, so the lines of many turns share a write; the
   * quiet timer writes it when no later turn logs. A write in flight comes back here through 'drain' when it ends.
   */
  private readonly writeOrHold = (): void => {
    const writer = this.writer;
    if (this.dropped > 0 && writer._len < TURN_BATCH_BYTES) {
      const dropped = this.dropped;
      this.dropped = 0;
      this.onDropped?.(dropped);
    }
    if (writer.destroyed || writer._writing) return;
    // Written meanwhile: sonic-boom writes at its minimum length itself.
    if (writer._len === 0 || this.urgent) return this.writeHeld();
    const now = performance.now();
    const held = now - (this.heldSince ??= now);
    if (held >= HOLD_MS) return this.writeHeld();
    if (this.quietTimer) return;
    this.quietTimer = setTimeout(this.writeHeld, QUIET_HOLD_MS - held);
    this.quietTimer.unref();
  };

  private readonly writeHeld = (): void => {
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    this.heldSince = undefined;
    // sonic-boom writes an empty buffer when asked with nothing held: only ask when something is. While a write is on
    // its way, flush() does nothing; its end comes back here through 'drain' (an urgent line still urgent).
    if (this.writer.destroyed || this.writer._writing) return;
    this.urgent = false;
    if (this.writer._len > 0) this.writer.flush();
  };
}

/** The batches holding lines of the current turn: handed over if the process exits before the turn is over. */
const heldBatches = new Set<TurnBatch>();
let exitHookInstalled = false;

/**
 * A process that exits within the turn that logged (process.exit after a last error line) still writes those lines:
 * they are handed to the writer before pino's own exit hook writes out what the writer holds, synchronously.
 */
function holdUntilExitAtMost(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.prependListener('exit', () => {
    for (const batch of heldBatches) batch.handOverAtExit();
    heldBatches.clear();
  });
}

function joined(lines: readonly string[], from: number, to: number): string {
  if (to - from === 1) return lines[from]!;
  return from === 0 && to === lines.length ? lines.join('') : lines.slice(from, to).join('');
}

let timeMs = Number.NaN;
let timeField = '';

/**
 * pino's isoTime, made once per millisecond: under load a millisecond logs several access lines, and building the
 * ISO string was a tenth of a line's cost (docs/performance.md, figure 1b).
 */
function isoTimeOfTheMillisecond(): string {
  const now = Date.now();
  if (now !== timeMs) {
    timeMs = now;
    timeField = `,"time":"${new Date(now).toISOString()}"`;
  }
  return timeField;
}

/** Errors have no enumerable fields: JSON would write `{}`. Copies only the objects that hold one. */
function withPlainErrors(fields: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (value === null || typeof value !== 'object') continue;
    const plain = plainValue(value, 0);
    if (plain !== value) (copy ??= { ...fields })[key] = plain;
  }
  return copy ?? fields;
}

function plainValue(value: unknown, depth: number): unknown {
  if (value instanceof Error) {
    const cause = value.cause === undefined ? {} : { cause: plainValue(value.cause, depth + 1) };
    return { name: value.name, message: value.message, ...cause };
  }
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => plainValue(item, depth + 1));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const plain = plainValue(item, depth + 1);
    if (plain !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = plain;
  }
  return copy ?? value;
}
