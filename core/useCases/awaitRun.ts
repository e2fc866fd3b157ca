import { linkSignals } from '../domain/abortSignals.js';
import { checkAwaitTimeout } from '../domain/requestBounds.js';
import type { PinnedRunRef, RunOutcome } from '../domain/run.js';
import type { AwaitOptions, WorkflowEngine } from '../../ports/engine.js';

/**
 * Waits for a run's outcome until `timeoutMs` passes or any of the signals aborts: the outcome, `'timeout'` or
 * `'aborted'`. The run goes on either way. Shared by run-and-wait and the result long-poll (the server's shutdown or
 * the client leaving).
 */
export async function awaitOutcomeUnlessAborted(
  engine: WorkflowEngine,
  run: PinnedRunRef,
  options: Pick<AwaitOptions, 'timeoutMs' | 'followChain' | 'startedRun'>,
  signals: readonly (AbortSignal | undefined)[],
): Promise<RunOutcome | 'timeout' | 'aborted'> {
  checkAwaitTimeout(options.timeoutMs);
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  // The shutdown signal lives as long as the server; a wait links to it and lets go when it ends.
  const linked = present.length > 1 ? linkSignals(present) : undefined;
  const signal = linked?.signal ?? present[0];
  try {
    return (await engine.awaitOutcome(run, signal ? { ...options, signal } : options)) ?? 'timeout';
  } catch (error) {
    if (signal?.aborted) return 'aborted';
    throw error;
  } finally {
    linked?.unlink();
  }
}
