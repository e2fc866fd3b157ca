import type { RunSyncRequest } from '../api/requests.js';
import type { ResultVersion, WorkflowResult } from '../api/views.js';
import { WorkflowExecutionTimedOutError } from '../domain/errors.js';
import { toResult } from '../results/toResult.js';
import { locateTrace } from '../trace/locateTrace.js';
import { traceKeyOf } from '../trace/traceKey.js';
import type { CoreDeps } from './deps.js';
import { startRun } from './start.js';

/**
 * Starts a run and waits for the end of its continue-as-new chain. On timeout the run is NOT cancelled: the
 * error names it so the caller can read its result later.
 */
export async function runSync(
  deps: Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'traces' | 'logger'>,
  request: RunSyncRequest,
  version: ResultVersion,
): Promise<WorkflowResult> {
  const run = await startRun(deps, request);
  const outcome = await deps.engine.awaitOutcome(
    { workflowId: run.workflowId, runId: run.runId },
    { timeoutMs: request.timeoutSeconds * 1000 },
  );
  if (!outcome) {
    throw new WorkflowExecutionTimedOutError(
      `Workflow ${run.workflowId} did not complete within ${request.timeoutSeconds} s; it keeps running and its result stays readable at /workflow/${encodeURIComponent(run.workflowId)}/result`,
      { workflowId: run.workflowId, runId: run.runId },
    );
  }
  const trace = await locateTrace(deps.traces, traceKeyOf(outcome.run), deps.logger);
  return toResult({ outcome, input: request.input, trace }, version);
}
