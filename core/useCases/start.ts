import type { IdempotencyOptions, StartRequest } from '../api/requests.js';
import type { Answer, StartView } from '../api/views.js';
import type { RunIdempotency } from '../domain/idempotency.js';
import type { PinnedRunRef, RunDescription } from '../domain/run.js';
import { assertWorkflowId } from '../domain/ids.js';
import { assertCallbackUrl, DEFAULT_CALLBACK_RETRY_FOR_MS } from '../domain/callback.js';
import { validateWorkflowInput } from '../validation/inputValidator.js';
import type { CoreDeps } from './deps.js';
import { resolveWorkflowType } from './resolveWorkflowType.js';
import { startOnce } from '../idempotency/startOnce.js';

/** A start as the use cases make it: a rerun (rerun.ts) also names the run it repeats. */
export type RunStart = StartRequest & { rerunOf?: PinnedRunRef };

/** Checks catalog, type and input, then starts the run. Nothing is started when any check fails. */
export async function startRun(
  deps: Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist' | 'actor'>,
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
    ...(deps.actor === undefined ? {} : { startedBy: deps.actor }),
  });
}

type StartDeps = Pick<CoreDeps, 'engine' | 'ids' | 'digest' | 'clock' | 'defaultCatalog' | 'callbackRetryForMs' | 'outboundAllowlist' | 'idempotencyRetentionMs' | 'actor'>;

/**
 * POST /workflow. With an idempotency key, every retry gets the same start response until it expires
 * (core/idempotency/startOnce.ts).
 */
export async function start(deps: StartDeps, request: StartRequest, options: IdempotencyOptions = {}): Promise<Answer<StartView>> {
  const key = options.idempotencyKey;
  if (key === undefined) return { answer: startView(await startRun(deps, request)) };
  // The start response is final the moment the run starts: its retention runs from then.
  const expiresAt = (run: RunDescription) => new Date(run.startedAt.getTime() + deps.idempotencyRetentionMs);
  const run = await startOnce(deps, { operation: 'start', request, key, expiresAt }, (keyed, idempotency) => startRun(deps, keyed, idempotency));
  return { answer: startView(run), expiresAt: expiresAt(run) };
}

function startView(run: RunDescription): StartView {
  return { workflowId: run.workflowId, runId: run.runId, status: 'running' };
}
