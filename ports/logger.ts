import { token } from './token.js';

export type LogFields = Record<string, unknown>;

/** Structured logging; one JSON object per line in the default adapter. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export const LOGGER = token<Logger>('Logger');
