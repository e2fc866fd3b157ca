import type { StartRequest } from '../api/requests.js';
import type { StartView } from '../api/views.js';
import type { RunDescription } from '../domain/run.js';
import { assertWorkflowId } from '../domain/ids.js';
import { assertCallbackUrl, DEFAULT_CALLBACK_RETRY_FOR_MS } from '../domain/callback.js';
import { validateWorkflowInput } from '../validation/inputValidator.js';
import type { CoreDeps } from './deps.js';
import { resolveWorkflowType } from './resolveWorkflowType.js';

/** Checks catalog, type and input, then starts the run. Nothing is started when any check fails. */
export async function startRun(
  deps: Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs'>,
  request: StartRequest,
): Promise<RunDescription> {
  const catalog = request.catalog ?? deps.defaultCatalog;
  const workflowId = request.workflowId === undefined ? deps.ids.uuid() : assertWorkflowId(request.workflowId);
  const callback =
    request.callbackUrl === undefined
      ? undefined
      : { url: assertCallbackUrl(request.callbackUrl), retryForMs: deps.callbackRetryForMs ?? DEFAULT_CALLBACK_RETRY_FOR_MS };
  const type = await resolveWorkflowType(deps, request.workflowName, catalog);
  validateWorkflowInput(type.name, type.inputSchema, request.input);
  return deps.engine.start({ workflowName: type.name, catalog, workflowId, input: request.input, ...(callback ? { callback } : {}) });
}

export async function start(deps: Pick<CoreDeps, 'engine' | 'ids' | 'defaultCatalog' | 'callbackRetryForMs'>, request: StartRequest): Promise<StartView> {
  const run = await startRun(deps, request);
  return { workflowId: run.workflowId, runId: run.runId, status: 'running' };
}
