import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import type { LogFields, Logger } from '../../../ports/logger.js';

const RANK: Record<LogLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

/**
 * Temporal's Logger on top of flowgate's. The SDK logs webpack's whole report and every poll at INFO and below, so
 * only `minimum` and above are passed on; `onError` also sees every ERROR line (to explain a failed bundle).
 */
export function temporalLoggerFor(logger: Logger, minimum: LogLevel = 'WARN', onError?: (message: string) => void): TemporalLogger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    if (level === 'ERROR') onError?.(message);
    if (RANK[level] < RANK[minimum]) return;
    const fields = plainFields(meta);
    if (level === 'ERROR') logger.error(message, fields);
    else if (level === 'WARN') logger.warn(message, fields);
    else logger.info(message, fields);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

/** Metadata may carry symbol keys (the SDK's log-source marker); a JSON log line keeps the string keys. */
function plainFields(meta: LogMetadata | undefined): LogFields | undefined {
  if (!meta) return undefined;
  return Object.fromEntries(Object.entries(meta));
}
