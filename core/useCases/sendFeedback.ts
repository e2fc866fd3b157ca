import type { RequestIdempotency } from '../domain/idempotency.js';
import type { RunRefView } from '../api/views.js';
import type { CoreDeps } from './deps.js';

/** Delivers a webhook reply; the engine buffers it when the run has not reached its wait yet. */
export async function sendFeedback(
  deps: Pick<CoreDeps, 'engine'>,
  workflowId: string,
  payload: unknown,
  idempotency?: RequestIdempotency,
): Promise<RunRefView> {
  const run = await deps.engine.deliverFeedback(workflowId, payload, idempotency);
  return { workflowId: run.workflowId, runId: run.runId };
}
