import type { RunRefView } from '../api/views.js';
import type { RunRef } from '../domain/run.js';
import type { CoreDeps } from './deps.js';

/** Cancels the run (clean-up allowed). Without a run id it acts on the latest run and names the one it stopped. */
export async function stop(deps: Pick<CoreDeps, 'engine' | 'actor'>, ref: RunRef): Promise<RunRefView> {
  const run = await deps.engine.cancel(ref, deps.actor);
  return { workflowId: run.workflowId, runId: run.runId };
}
