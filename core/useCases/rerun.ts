import type { IdempotencyOptions, RerunRequest, StartRequest } from '../api/requests.js';
import type { Answer, RerunView } from '../api/views.js';
import type { PinnedRunRef, RunDescription } from '../domain/run.js';
import { WorkflowNotFoundError } from '../domain/errors.js';
import { runWithKey, startOnce } from '../idempotency/startOnce.js';
import { hiddenRun } from './runAccess.js';
import type { CoreDeps } from './deps.js';
import { startRun } from './start.js';

export type RerunDeps = Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist' | 'actor'>;
type KeyedRerunDeps = RerunDeps & Pick<CoreDeps, 'digest' | 'clock' | 'idempotencyRetentionMs'>;

/**
 * POST /workflow/{id}/runs/{rid}/rerun: a new run of the pinned run's workflow, in its catalog, with its own input
 * (a continued run's is the input it was continued with), started as POST /workflow starts one: the catalog, the
 * type and the input are checked against what the catalog publishes now, and nothing starts when a check fails.
 * Without a `workflowId` the new run gets a new one; with the original's, the start fails while that run is open
 * (WorkflowAlreadyStartedError) and adds a run to the id once it closed. `visible`: whether the calling API key may
 * see a run (a key limited to some workflows sees theirs only; another is a 404, as if it did not exist).
 */
export async function rerun(
  deps: KeyedRerunDeps,
  ref: PinnedRunRef,
  request: RerunRequest,
  options: IdempotencyOptions = {},
  visible: (run: RunDescription) => boolean = () => true,
): Promise<Answer<RerunView>> {
  const key = options.idempotencyKey;
  let original: RunDescription;
  try {
    original = await deps.engine.describe(ref);
  } catch (error) {
    const stored = key !== undefined && error instanceof WorkflowNotFoundError ? await rerunOfGoneRun(deps, ref, request, key, visible) : undefined;
    if (stored) return stored;
    throw error;
  }
  if (!visible(original)) throw hiddenRun(ref);
  if (key === undefined) return { answer: await rerunRun(deps, original, request) };
  return keyedRerun(deps, { workflowId: original.workflowId, runId: original.runId }, await startRequestOf(deps, original, request), key);
}

/**
 * A keyed rerun is a keyed start that also names the run it repeats (core/idempotency/startOnce.ts): a retry gets the
 * run the first one started, until the answer expires as a start's does.
 */
async function keyedRerun(deps: KeyedRerunDeps, rerunOf: PinnedRunRef, start: StartRequest, key: string): Promise<Answer<RerunView>> {
  const run = await startOnce(
    deps,
    { operation: 'rerun', request: start, rerunOf, key, expiresAt: (keyed) => expiryOf(deps, keyed) },
    (keyed, idempotency) => startRun(deps, { ...keyed, rerunOf }, idempotency),
  );
  return { answer: { workflowId: run.workflowId, runId: run.runId, status: 'running', rerunOf }, expiresAt: expiryOf(deps, run) };
}

function expiryOf(deps: Pick<KeyedRerunDeps, 'idempotencyRetentionMs'>, run: RunDescription): Date {
  return new Date(run.startedAt.getTime() + deps.idempotencyRetentionMs);
}

/**
 * The answer of a keyed rerun retried after the run it repeats is gone (retention, the memory engine's cap on closed
 * runs): the key's record is on the run the first request started, which has the repeated run's workflow, catalog and
 * input, so the request is rebuilt from it and checked against the record as any retry is. Undefined when no such
 * run answers (never started, another run's rerun, expired): the repeated run's absence stands.
 */
async function rerunOfGoneRun(
  deps: KeyedRerunDeps,
  ref: PinnedRunRef,
  request: RerunRequest,
  key: string,
  visible: (run: RunDescription) => boolean,
): Promise<Answer<RerunView> | undefined> {
  const started = await runWithKey(deps, request.workflowId, key);
  if (started?.rerunOf?.workflowId !== ref.workflowId || started.rerunOf.runId !== ref.runId || !visible(started)) return undefined;
  if (expiryOf(deps, started).getTime() <= deps.clock.now()) return undefined;
  return keyedRerun(deps, ref, await startRequestOf(deps, started, request), key);
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
