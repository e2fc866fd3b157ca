import type { RequestIdempotency } from '../domain/idempotency.js';
import type { TerminateView } from '../api/views.js';
import type { RunRef } from '../domain/run.js';
import type { CoreDeps } from './deps.js';

export const DEFAULT_TERMINATE_REASON = 'Terminated through the API';

/** Ends the run at once, without clean-up. */
export async function terminate(
  deps: Pick<CoreDeps, 'engine' | 'actor'>,
  ref: RunRef,
  reason: string | undefined,
  idempotency?: RequestIdempotency,
): Promise<TerminateView> {
  const run = await deps.engine.terminate(ref, reason || DEFAULT_TERMINATE_REASON, idempotency, deps.actor);
  return { terminated: true, workflowId: run.workflowId, runId: run.runId };
}
