import type { IdempotencyOptions, RerunRequest, StartRequest } from '../api/requests.js';
import type { Answer, RerunView } from '../api/views.js';
import type { PinnedRunRef, RunDescription } from '../domain/run.js';
import { startOnce } from '../idempotency/startOnce.js';
import type { CoreDeps } from './deps.js';
import { startRun } from './start.js';

export type RerunDeps = Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist' | 'actor'>;
type KeyedRerunDeps = RerunDeps & Pick<CoreDeps, 'digest' | 'clock' | 'idempotencyRetentionMs'>;

/**
 * POST /workflow/{id}/runs/{rid}/rerun: a new run of the pinned run's workflow, in its catalog, with its own input
 * (a continued run's is the input it was continued with), started as POST /workflow starts one: the catalog, the
 * type and the input are checked against what the catalog publishes now, and nothing starts when a check fails.
 * Without a `workflowId` the new run gets a new one; with the original's, the start fails while that run is open
 * (WorkflowAlreadyStartedError) and adds a run to the id once it closed.
 */
export async function rerun(deps: KeyedRerunDeps, ref: PinnedRunRef, request: RerunRequest, options: IdempotencyOptions = {}): Promise<Answer<RerunView>> {
  const original = await deps.engine.describe(ref);
  const key = options.idempotencyKey;
  if (key === undefined) return { answer: await rerunRun(deps, original, request) };
  // A keyed rerun is a keyed start that also names the run it repeats (core/idempotency/startOnce.ts): a retry gets
  // the run the first one started, until the answer expires as a start's does.
  const rerunOf = { workflowId: original.workflowId, runId: original.runId };
  const expiresAt = (run: RunDescription) => new Date(run.startedAt.getTime() + deps.idempotencyRetentionMs);
  const run = await startOnce(
    deps,
    { operation: 'rerun', request: await startRequestOf(deps, original, request), rerunOf, key, expiresAt },
    (keyed, idempotency) => startRun(deps, { ...keyed, rerunOf }, idempotency),
  );
  return { answer: { workflowId: run.workflowId, runId: run.runId, status: 'running', rerunOf }, expiresAt: expiresAt(run) };
}

/** Reruns a run already described (the bulk rerun has it from the listing). */
export async function rerunRun(deps: RerunDeps, original: RunDescription, request: RerunRequest): Promise<RerunView> {
  const rerunOf = { workflowId: original.workflowId, runId: original.runId };
  const run = await startRun(deps, { ...(await startRequestOf(deps, original, request)), rerunOf });
  return { workflowId: run.workflowId, runId: run.runId, status: 'running', rerunOf };
}

/** The start a rerun of `original` makes: its workflow, catalog and own input, with the rerun's own id and callback. */
async function startRequestOf(deps: RerunDeps, original: RunDescription, request: RerunRequest): Promise<StartRequest> {
  // As GET .../input answers it: an engine that kept no value for a `null` input gives undefined.
  const input = (await deps.engine.getInput({ workflowId: original.workflowId, runId: original.runId })) ?? null;
  return {
    workflowName: original.workflowName,
    catalog: original.catalog,
    input,
    ...(request.workflowId === undefined ? {} : { workflowId: request.workflowId }),
    ...(request.callbackUrl === undefined ? {} : { callbackUrl: request.callbackUrl }),
  };
}
