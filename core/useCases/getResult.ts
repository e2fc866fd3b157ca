import type { ResultWait } from '../api/requests.js';
import type { ResultVersion, WorkflowResult } from '../api/views.js';
import { WorkflowNotCompletedError, WorkflowNotFoundError } from '../domain/errors.js';
import type { RunOutcome, RunRef } from '../domain/run.js';
import { toResult } from '../results/toResult.js';
import { locateTrace } from '../trace/locateTrace.js';
import { awaitOutcomeUnlessAborted } from './awaitRun.js';
import type { CoreDeps } from './deps.js';

/**
 * The original input shown with a result: the pinned run's own input, or for the latest run the input that
 * started its continue-as-new chain. Null when the engine no longer has it.
 */
async function originalInput(deps: Pick<CoreDeps, 'engine'>, ref: RunRef, outcome: RunOutcome): Promise<unknown> {
  const runId = ref.runId ?? outcome.run.firstRunId;
  try {
    return await deps.engine.getInput({ workflowId: outcome.run.workflowId, runId });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
}

export async function getResult(
  deps: Pick<CoreDeps, 'engine' | 'traces' | 'logger' | 'clock' | 'shutdownSignal'>,
  ref: RunRef,
  version: ResultVersion,
  wait: ResultWait = {},
): Promise<WorkflowResult> {
  const outcome = wait.seconds === undefined || wait.seconds <= 0 ? await deps.engine.getOutcome(ref) : await outcomeWithin(deps, ref, wait);
  const [input, trace] = await Promise.all([
    originalInput(deps, ref, outcome),
    locateTrace(deps.traces, outcome.run, deps.logger, deps.clock),
  ]);
  return toResult({ outcome, input, trace }, version);
}

/** Seconds a long-poll that ran out suggests before asking again: the run was still going a moment ago. */
export const LONG_POLL_RETRY_AFTER_SECONDS = 1;

/**
 * The outcome of a run that may still be open: waits up to `wait.seconds` for it to close (the id form follows the
 * latest run's continue-as-new chain, as runAndWait does; the pinned form answers with its own run's outcome). When the
 * wait runs out, the client leaves or the server shuts down first, it is the same 424 as without a wait, with a
 * Retry-After: the run keeps going.
 */
async function outcomeWithin(deps: Pick<CoreDeps, 'engine' | 'shutdownSignal'>, ref: RunRef, wait: ResultWait): Promise<RunOutcome> {
  try {
    return await deps.engine.getOutcome(ref);
  } catch (error) {
    if (!(error instanceof WorkflowNotCompletedError)) throw error;
  }
  const open = await deps.engine.describe(ref);
  const outcome = await awaitOutcomeUnlessAborted(
    deps.engine,
    { workflowId: open.workflowId, runId: open.runId },
    { timeoutMs: wait.seconds! * 1000, followChain: ref.runId === undefined, startedRun: open },
    [wait.signal, deps.shutdownSignal],
  );
  if (typeof outcome === 'string') {
    // Only the shutdown is worth naming: a client that left reads no message.
    const cutByShutdown = outcome === 'aborted' && deps.shutdownSignal?.aborted === true;
    throw new WorkflowNotCompletedError(
      cutByShutdown
        ? `The server is shutting down and stopped waiting for workflow ${open.workflowId} before its wait of ${wait.seconds} s was over; the run was not cancelled. Ask again (the wait can be repeated); on an engine that outlives the server (Temporal) it keeps running, the embedded engine's open runs end with the server.`
        : `Workflow ${open.workflowId} did not complete within ${wait.seconds} s; it keeps running. Ask again (the wait can be repeated).`,
      { workflowId: open.workflowId, runId: open.runId, retryAfterSeconds: LONG_POLL_RETRY_AFTER_SECONDS },
    );
  }
  return outcome;
}
