import { token } from './token.js';

export type LogFields = Record<string, unknown>;

/** Structured logging; one JSON object per line in the default adapter. */
export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * A logger whose every line also carries `fields` (a request's `requestId`, `workflowId`, `runId`, `traceId`).
   * Optional: {@link childLogger} gives one for any Logger.
   */
  child?: ((fields: LogFields) => Logger) | undefined;
  /** Writes out what is buffered; resolves once written (before a process exits). */
  flush?: (() => Promise<void>) | undefined;
}

/** `logger.child(fields)`, or for a Logger without one, a wrapper that adds `fields` to every line. */
export function childLogger(logger: Logger, fields: LogFields): Logger {
  if (logger.child) return logger.child(fields);
  return {
    info: (message, more) => logger.info(message, { ...fields, ...more }),
    warn: (message, more) => logger.warn(message, { ...fields, ...more }),
    error: (message, more) => logger.error(message, { ...fields, ...more }),
    child: (inner) => childLogger(logger, { ...fields, ...inner }),
    ...(logger.flush ? { flush: () => logger.flush!() } : {}),
  };
}

export const LOGGER = token<Logger>('Logger');
