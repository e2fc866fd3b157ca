import type { LogFields, Logger } from '../../ports/logger.js';

export type LogLevel = 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { info: 0, warn: 1, error: 2, silent: 3 };

export interface JsonLoggerOptions {
  /** Lowest level written. @default 'info' */
  level?: LogLevel;
  /** Where lines go. @default process.stdout */
  write?: (line: string) => void;
  /** Fields added to every line. */
  base?: LogFields;
}

/** One JSON object per line: `{time, level, msg, ...fields}`. */
export class JsonLogger implements Logger {
  private readonly minimum: number;
  private readonly write: (line: string) => void;
  private readonly base: LogFields;

  constructor(options: JsonLoggerOptions = {}) {
    const level = options.level ?? 'info';
    if (!(level in RANK)) throw new TypeError(`JsonLogger: options.level must be one of ${Object.keys(RANK).join(', ')}`);
    this.minimum = RANK[level];
    this.write = options.write ?? ((line) => process.stdout.write(line));
    this.base = options.base ?? {};
  }

  info(message: string, fields?: LogFields): void {
    this.log('info', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.log('warn', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.log('error', message, fields);
  }

  private log(level: Exclude<LogLevel, 'silent'>, msg: string, fields: LogFields | undefined): void {
    if (RANK[level] < this.minimum) return;
    this.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...this.base, ...fields }, errorReplacer)}\n`);
  }
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(value.cause !== undefined ? { cause: value.cause } : {}) };
  }
  return value;
}
