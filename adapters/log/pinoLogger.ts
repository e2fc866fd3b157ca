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
   * Where lines go. @default standard output through an asynchronous buffered writer: the lines of one event-loop turn
   * go out in one write after it, and lines queue while a write is on its way, so logging never blocks a request on
   * the terminal or pipe (flushed at exit and by flush()).
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
  private readonly destination: DestinationStream;
  /** Writes what the turn logged once the turn is over; absent for a destination given in the options. */
  private readonly turnFlush: TurnFlush | undefined;

  constructor(options: PinoLoggerOptions = {}, parent?: { pino: Pino; destination: DestinationStream; turnFlush: TurnFlush | undefined }) {
    if (parent) {
      this.pino = parent.pino;
      this.destination = parent.destination;
      this.turnFlush = parent.turnFlush;
      return;
    }
    const level = options.level ?? 'info';
    if (!LEVELS.includes(level)) throw new TypeError(`PinoLogger: options.level must be one of ${LEVELS.join(', ')}`);
    if (options.destination) {
      this.destination = options.destination;
    } else {
      const batched = pino.destination({ dest: 1, sync: false, minLength: TURN_BATCH_BYTES });
      this.destination = batched;
      this.turnFlush = new TurnFlush(batched as unknown as AsyncDestination);
    }
    this.pino = pino(
      {
        level,
        base: options.base ?? null,
        messageKey: 'msg',
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }), log: withPlainErrors },
        redact: { paths: [...REDACTED_PATHS, ...(options.redact ?? [])], censor: REDACTION_CENSOR },
      },
      this.destination,
    );
  }

  info(message: string, fields?: LogFields): void {
    this.pino.info(fields ?? {}, message);
    this.turnFlush?.request();
  }

  warn(message: string, fields?: LogFields): void {
    this.pino.warn(fields ?? {}, message);
    this.turnFlush?.request();
  }

  error(message: string, fields?: LogFields): void {
    this.pino.error(fields ?? {}, message);
    this.turnFlush?.request();
  }

  child(fields: LogFields): Logger {
    return new PinoLogger({}, { pino: this.pino.child(fields), destination: this.destination, turnFlush: this.turnFlush });
  }

  /**
   * Resolves once every line logged so far is written: the writes on their way first, then what is still buffered,
   * synchronously. Other destinations are asked to flush (pino's flush).
   */
  async flush(): Promise<void> {
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
    while (destination._writing) await once(destination, 'write');
    // Nothing in flight now: what a minimum write length held back goes out synchronously.
    destination.flushSync();
  }
}

/** pino.destination({ sync: false }): a sonic-boom. */
interface AsyncDestination extends EventEmitter {
  fd: number;
  destroyed: boolean;
  _writing: boolean;
  /** Bytes buffered, not yet handed to a write. */
  _len: number;
  flushSync(): void;
  flush(): void;
}

/**
 * Below this many bytes the default writer holds lines back until the event-loop turn that logged them is over
 * (TurnFlush); above, it writes at once. Under load one turn answers many requests, and one write for all their access
 * lines costs the thread pool one task instead of one per line (docs/performance.md, figure 1). Under sonic-boom's
 * largest write (16 KiB).
 */
const TURN_BATCH_BYTES = 8 * 1024;

/** Asks the writer to write what it holds once the current event-loop turn is over, once per turn. */
class TurnFlush {
  private scheduled = false;

  constructor(private readonly destination: AsyncDestination) {}

  /** After a line was logged: a line below the level, or one already written, holds nothing back. */
  request(): void {
    if (this.scheduled || this.destination._len === 0) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    // sonic-boom writes an empty buffer when asked with nothing held (a write since): only ask when something is.
    if (!this.destination.destroyed && this.destination._len > 0) this.destination.flush();
  };
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
