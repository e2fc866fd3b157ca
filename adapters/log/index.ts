export { PinoLogger, REDACTED_PATHS, REDACTION_CENSOR, type PinoLoggerOptions, type LogLevel } from './pinoLogger.js';
