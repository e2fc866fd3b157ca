import { constants } from 'node:os';

/**
 * Resolves with the first of SIGINT and SIGTERM; both stop a long-running command gracefully. A second one ends the
 * process at once, as by default, but through process.exit (128 + the signal's number): the exit hooks still run, so
 * the log lines held for their write go out (adapters/log/pinoLogger.ts).
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      process.once('SIGINT', forceExit);
      process.once('SIGTERM', forceExit);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

function forceExit(signal: NodeJS.Signals): void {
  process.exit(128 + constants.signals[signal]);
}
