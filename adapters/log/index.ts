export { JsonLogger, type JsonLoggerOptions, type LogLevel } from './jsonLogger.js';
