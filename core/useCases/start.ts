import type { StartRequest } from '../api/requests.js';
import type { StartView } from '../api/views.js';
import type { Idempotent, RunIdempotency } from '../domain/idempotency.js';
import type { PinnedRunRef, RunDescription } from '../domain/run.js';
import { assertWorkflowId } from '../domain/ids.js';
import { assertCallbackUrl, DEFAULT_CALLBACK_RETRY_FOR_MS } from '../domain/callback.js';
import { validateWorkflowInput } from '../validation/inputValidator.js';
import type { CoreDeps } from './deps.js';
import { resolveWorkflowType } from './resolveWorkflowType.js';
import { startOnce } from './startOnce.js';

/** A start as the use cases make it: a rerun (rerun.ts) also names the run it repeats. */
export type RunStart = StartRequest & { rerunOf?: PinnedRunRef };

/** Checks catalog, type and input, then starts the run. Nothing is started when any check fails. */
export async function startRun(
  deps: Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist'>,
  request: RunStart,
  idempotency?: RunIdempotency,
): Promise<RunDescription> {
  const catalog = request.catalog ?? deps.defaultCatalog;
  const workflowId = request.workflowId === undefined ? deps.ids.uuid() : assertWorkflowId(request.workflowId);
  const callback =
    request.callbackUrl === undefined
      ? undefined
      : { url: assertCallbackUrl(request.callbackUrl, deps.outboundAllowlist), retryForMs: deps.callbackRetryForMs ?? DEFAULT_CALLBACK_RETRY_FOR_MS };
  const type = await resolveWorkflowType(deps, request.workflowName, catalog);
  validateWorkflowInput(type.name, type.inputSchema, request.input);
  return deps.engine.start({
    workflowName: type.name,
    catalog,
    workflowId,
    input: request.input,
    ...(callback ? { callback } : {}),
    ...(idempotency ? { idempotency } : {}),
    ...(request.rerunOf ? { rerunOf: request.rerunOf } : {}),
  });
}

export async function start(deps: Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist'>, request: StartRequest): Promise<StartView> {
  return startView(await startRun(deps, request));
}

/** POST /workflow with an Idempotency-Key: the same start response for every retry until it expires. */
export async function startWithKey(
  deps: Pick<CoreDeps, 'engine' | 'ids' | 'digest' | 'clock' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist' | 'idempotencyRetentionMs'>,
  request: StartRequest,
  key: string,
): Promise<Idempotent<StartView>> {
  // The start response is final the moment the run starts: its retention runs from then.
  const expiresAt = (run: RunDescription) => new Date(run.startedAt.getTime() + deps.idempotencyRetentionMs);
  const run = await startOnce(deps, { operation: 'start', request, key, expiresAt });
  return { answer: startView(run), expiresAt: expiresAt(run) };
}

function startView(run: RunDescription): StartView {
  return { workflowId: run.workflowId, runId: run.runId, status: 'running' };
}
