import type { LogFields, Logger } from '../../ports/logger.js';

/** One line a server logged, as the JSON logger would write it: level, message and the fields beside them. */
export interface LogLine extends LogFields {
  level: string;
  msg: string;
}

/** A Logger that keeps every line for assertions (the access log, a token never appearing, a warning given once). */
export class CapturingLogger implements Logger {
  constructor(readonly lines: LogLine[] = []) {}
  info(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', msg, ...fields });
  }
  warn(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', msg, ...fields });
  }
  error(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', msg, ...fields });
  }
}
