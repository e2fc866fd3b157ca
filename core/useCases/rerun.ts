import type { RerunRequest } from '../api/requests.js';
import type { RerunView } from '../api/views.js';
import type { PinnedRunRef, RunDescription } from '../domain/run.js';
import type { CoreDeps } from './deps.js';
import { startRun } from './start.js';

export type RerunDeps = Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist'>;

/**
 * POST /workflow/{id}/runs/{rid}/rerun: a new run of the pinned run's workflow, in its catalog, with its own input
 * (a continued run's is the input it was continued with), started as POST /workflow starts one: the catalog, the
 * type and the input are checked against what the catalog publishes now, and nothing starts when a check fails.
 * Without a `workflowId` the new run gets a new one; with the original's, the start fails while that run is open
 * (WorkflowAlreadyStartedError) and adds a run to the id once it closed.
 */
export async function rerun(deps: RerunDeps, ref: PinnedRunRef, request: RerunRequest): Promise<RerunView> {
  return rerunRun(deps, await deps.engine.describe(ref), request);
}

/** Reruns a run already described (the bulk rerun has it from the listing). */
export async function rerunRun(deps: RerunDeps, original: RunDescription, request: RerunRequest): Promise<RerunView> {
  const rerunOf = { workflowId: original.workflowId, runId: original.runId };
  // As GET .../input answers it: an engine that kept no value for a `null` input gives undefined.
  const input = (await deps.engine.getInput(rerunOf)) ?? null;
  const run = await startRun(deps, {
    workflowName: original.workflowName,
    catalog: original.catalog,
    input,
    ...(request.workflowId === undefined ? {} : { workflowId: request.workflowId }),
    ...(request.callbackUrl === undefined ? {} : { callbackUrl: request.callbackUrl }),
    rerunOf,
  });
  return { workflowId: run.workflowId, runId: run.runId, status: 'running', rerunOf };
}
