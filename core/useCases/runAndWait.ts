import type { RunAndWaitOptions, RunAndWaitRequest } from '../api/requests.js';
import type { Answer, ResultVersion, WorkflowResult } from '../api/views.js';
import { WorkflowExecutionTimedOutError } from '../domain/errors.js';
import { idPathSegment } from '../domain/ids.js';
import { toResult } from '../results/toResult.js';
import { locateTrace } from '../trace/locateTrace.js';
import type { RunDescription } from '../domain/run.js';
import type { CoreDeps } from './deps.js';
import { awaitOutcomeUnlessAborted } from './awaitRun.js';
import { startRun } from './start.js';
import { startOnce } from '../idempotency/startOnce.js';

type RunAndWaitDeps = Pick<
  CoreDeps,
  'engine' | 'ids' | 'digest' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist' | 'traces' | 'logger' | 'clock' | 'shutdownSignal' | 'idempotencyRetentionMs' | 'actor'
>;

/**
 * Starts a run and waits for the end of its continue-as-new chain. On timeout the run is NOT cancelled: the
 * error names it so the caller can read its result later. A wait cut short by the server's shutdown ends the same
 * way (408, the run not cancelled): the run has started, so a 503 inviting a blind retry would start it twice. A
 * client that goes away ends the wait, not the run.
 * With an idempotency key, a retry while the run is open waits on that same run; once it closed, the result is
 * answered again until the retention after its close passes (core/idempotency/startOnce.ts).
 */
export async function runAndWait(deps: RunAndWaitDeps, request: RunAndWaitRequest, version: ResultVersion, options: RunAndWaitOptions = {}): Promise<Answer<WorkflowResult>> {
  const key = options.idempotencyKey;
  if (key === undefined) return { answer: (await awaitResult(deps, await startRun(deps, request), request, version, options.signal)).result };
  const expiresAt = (closedAt: Date) => new Date(closedAt.getTime() + deps.idempotencyRetentionMs);
  const run = await startOnce(
    deps,
    { operation: 'run', request, key, expiresAt: (_keyed, latest) => (latest.closedAt ? expiresAt(latest.closedAt) : undefined) },
    (keyed, idempotency) => startRun(deps, keyed, idempotency),
  );
  const { result, closedAt } = await awaitResult(deps, run, request, version, options.signal);
  return { answer: result, expiresAt: expiresAt(closedAt) };
}

async function awaitResult(
  deps: RunAndWaitDeps,
  run: RunDescription,
  request: RunAndWaitRequest,
  version: ResultVersion,
  clientGone: AbortSignal | undefined,
): Promise<{ result: WorkflowResult; closedAt: Date }> {
  const ref = { workflowId: run.workflowId, runId: run.runId };
  // The client leaving ends the wait (and what it holds: the request, its answer, a timer), not the run.
  const outcome = await awaitOutcomeUnlessAborted(deps.engine, ref, { timeoutMs: request.timeoutSeconds * 1000, startedRun: run }, [deps.shutdownSignal, clientGone]);
  if (outcome === 'aborted' && deps.shutdownSignal?.aborted !== true) {
    throw new WorkflowExecutionTimedOutError(`The client went away; the wait for workflow ${run.workflowId} ended, the run keeps going`, ref);
  }
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
  const trace = await locateTrace(deps.traces, outcome.run, deps.logger, deps.clock);
  return { result: toResult({ outcome, input: request.input, trace }, version), closedAt: outcome.run.closedAt ?? new Date(deps.clock.now()) };
}

function resultPath(workflowId: string): string {
  return `/workflow/${idPathSegment(workflowId)}/result`;
}
