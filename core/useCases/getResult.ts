import type { ResultVersion, WorkflowResult } from '../api/views.js';
import { WorkflowNotFoundError } from '../domain/errors.js';
import type { RunOutcome, RunRef } from '../domain/run.js';
import { toResult } from '../results/toResult.js';
import { locateTrace } from '../trace/locateTrace.js';
import { traceKeyOf } from '../trace/traceKey.js';
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
  deps: Pick<CoreDeps, 'engine' | 'traces' | 'logger' | 'clock'>,
  ref: RunRef,
  version: ResultVersion,
): Promise<WorkflowResult> {
  const outcome = await deps.engine.getOutcome(ref);
  const [input, trace] = await Promise.all([
    originalInput(deps, ref, outcome),
    locateTrace(deps.traces, traceKeyOf(outcome.run), deps.logger, deps.clock),
  ]);
  return toResult({ outcome, input, trace }, version);
}
