import type { RequestIdempotency } from '../domain/idempotency.js';
import type { RunRefView } from '../api/views.js';
import type { RunRef } from '../domain/run.js';
import type { CoreDeps } from './deps.js';

export const DEFAULT_RESET_REASON = 'Reset through the API';

/** Replays the run up to just after `stepName` last completed, in a new run; answers with the NEW run id. */
export async function reset(
  deps: Pick<CoreDeps, 'engine' | 'actor'>,
  ref: RunRef,
  stepName: string,
  reason: string | undefined,
  idempotency?: RequestIdempotency,
): Promise<RunRefView> {
  const run = await deps.engine.reset(ref, stepName, reason || DEFAULT_RESET_REASON, idempotency, deps.actor);
  return { workflowId: run.workflowId, runId: run.runId };
}
