import { Runtime } from '@temporalio/worker';
import type { Logger } from '../../../ports/logger.js';
import { temporalLoggerFor } from './temporalLogger.js';

let installed = false;

/**
 * Routes the Temporal SDK's own log lines (worker state, polls) through flowgate's JSON logger at WARN and above.
 * Temporal's Runtime is one per process and can be configured only before first use, so the first worker of the
 * process decides; later calls (and a Runtime someone else already installed) leave it as it is.
 */
export function installRuntimeLogging(logger: Logger): void {
  if (installed) return;
  installed = true;
  try {
    Runtime.install({ logger: temporalLoggerFor(logger, 'WARN') });
  } catch {
    // Already instantiated by the embedding application: its configuration stands.
  }
}
