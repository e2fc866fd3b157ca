import type { LogFields, Logger } from '../../ports/logger.js';

/** One line a server logged, as the JSON logger would write it: level, message and the fields beside them. */
export interface LogLine extends LogFields {
  level: string;
  msg: string;
}

/** A line as the code under test gave it: level, message, and its fields apart (`{}` when none were given). */
export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields;
}

/**
 * The test double of the Logger port: keeps every line for assertions (the access log, a token never appearing, a
 * warning given once), both as the JSON logger would write it (`lines`) and as it was given (`entries`).
 */
export class CapturingLogger implements Logger {
  readonly entries: LogEntry[] = [];

  /** `lines` may be shared by several loggers (a server's and its workers'), to read them in one order. */
  constructor(readonly lines: LogLine[] = []) {}

  info(message: string, fields?: LogFields): void {
    this.keep('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.keep('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.keep('error', message, fields);
  }

  /** The messages of one level, in order. */
  messages(level: LogEntry['level']): string[] {
    return this.entries.filter((entry) => entry.level === level).map((entry) => entry.message);
  }

  /** Every entry as one JSON text: for asserting that something (a secret) never appears. */
  text(): string {
    return JSON.stringify(this.entries);
  }

  private keep(level: LogEntry['level'], message: string, fields: LogFields = {}): void {
    this.entries.push({ level, message, fields });
    this.lines.push({ level, msg: message, ...fields });
  }
}
