import { Runtime } from '@temporalio/worker';
import type { Logger } from '../../../ports/logger.js';
import { temporalLoggerFor } from './temporalLogger.js';

let installed = false;

/**
 * Routes the Temporal SDK's own log lines (worker state, polls) through flowgate's JSON logger at WARN and above.
 * Temporal's Runtime is one per process and can be configured only before first use, so the first worker of the
 * process decides; later calls (and a Runtime someone else already installed) leave it as it is. Signals are the
 * embedding's to handle (FlowgateWorker.shutdown), as `flowgate worker` handles them.
 */
export function installRuntimeLogging(logger: Logger): void {
  if (installed) return;
  installed = true;
  try {
    // No shutdownSignals: with the SDK's default it stops polling on SIGTERM by itself, before the embedding's own
    // handler calls shutdown(), which then finds the worker stopping and cannot say goodbye to the catalog.
    Runtime.install({ logger: temporalLoggerFor(logger, 'WARN'), shutdownSignals: [] });
  } catch {
    // Already instantiated by the embedding application: its configuration stands.
  }
}
