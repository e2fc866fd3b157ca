import type { RequestIdempotency } from '../domain/idempotency.js';
import type { RunRefView } from '../api/views.js';
import { validateFeedbackPayload } from '../validation/inputValidator.js';
import type { CoreDeps } from './deps.js';

/**
 * Delivers a webhook reply to the latest run of `workflowId`; the engine buffers it when the run has not reached its
 * wait yet. A reply its workflow's published feedback schema refuses is a ValidationError and is not delivered: the run
 * never sees it and keeps waiting.
 */
export async function sendFeedback(
  deps: Pick<CoreDeps, 'engine'>,
  workflowId: string,
  payload: unknown,
  idempotency?: RequestIdempotency,
): Promise<RunRefView> {
  await checkFeedback(deps, workflowId, payload);
  const run = await deps.engine.deliverFeedback(workflowId, payload, idempotency);
  return { workflowId: run.workflowId, runId: run.runId };
}

/**
 * The check is made in the API process, from the catalog the run's workflow is published in (on Temporal the API runs
 * no workflow code). A closed run is left to the engine, which refuses it (409) or answers a retried keyed request.
 */
async function checkFeedback(deps: Pick<CoreDeps, 'engine'>, workflowId: string, payload: unknown): Promise<void> {
  const run = await deps.engine.describe({ workflowId });
  if (run.status !== 'running') return;
  const catalog = await deps.engine.describeCatalog(run.catalog);
  const type = catalog?.workflows.find((workflow) => workflow.name === run.workflowName);
  if (type?.feedbackSchema !== undefined) validateFeedbackPayload(type.name, type.feedbackSchema, payload);
}
