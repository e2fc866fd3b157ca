import type { RunSyncRequest } from '../api/requests.js';
import type { ResultVersion, WorkflowResult } from '../api/views.js';
import { WorkflowExecutionTimedOutError } from '../domain/errors.js';
import { toResult } from '../results/toResult.js';
import { locateTrace } from '../trace/locateTrace.js';
import { traceKeyOf } from '../trace/traceKey.js';
import type { CoreDeps } from './deps.js';
import { awaitOutcomeUnlessAborted } from './awaitRun.js';
import { startRun } from './start.js';

/**
 * Starts a run and waits for the end of its continue-as-new chain. On timeout the run is NOT cancelled: the
 * error names it so the caller can read its result later. A wait cut short by the server's shutdown ends the same
 * way (408, the run not cancelled): the run has started, so a 503 inviting a blind retry would start it twice.
 */
export async function runSync(
  deps: Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs' | 'traces' | 'logger' | 'clock' | 'shutdownSignal'>,
  request: RunSyncRequest,
  version: ResultVersion,
): Promise<WorkflowResult> {
  const run = await startRun(deps, request);
  const ref = { workflowId: run.workflowId, runId: run.runId };
  const outcome = await awaitOutcomeUnlessAborted(deps.engine, ref, { timeoutMs: request.timeoutSeconds * 1000 }, [deps.shutdownSignal]);
  if (outcome === 'aborted') {
    throw new WorkflowExecutionTimedOutError(
      `The server is shutting down and stopped waiting for workflow ${run.workflowId}; the run was not cancelled. On an engine that outlives the server (Temporal) it keeps running and its result stays readable at ${resultPath(run.workflowId)}; the embedded engine's open runs end with the server`,
      ref,
    );
  }
  if (outcome === 'timeout') {
    throw new WorkflowExecutionTimedOutError(
      `Workflow ${run.workflowId} did not complete within ${request.timeoutSeconds} s; it keeps running and its result stays readable at ${resultPath(run.workflowId)}`,
      ref,
    );
  }
  const trace = await locateTrace(deps.traces, traceKeyOf(outcome.run), deps.logger, deps.clock);
  return toResult({ outcome, input: request.input, trace }, version);
}

function resultPath(workflowId: string): string {
  return `/workflow/${encodeURIComponent(workflowId)}/result`;
}
