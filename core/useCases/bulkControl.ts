import type { BulkControlRequest } from '../api/requests.js';
import type { BulkControlView } from '../api/views.js';
import type { Access } from '../domain/access.js';
import type { RunDescription } from '../domain/run.js';
import { isTerminal } from '../domain/status.js';
import { actOnEach, assertBulkFilter, matchingRuns } from './bulkRuns.js';
import type { CoreDeps } from './deps.js';
import { DEFAULT_TERMINATE_REASON } from './terminate.js';

export { MAX_BULK_RUNS, MAX_LISTED_RUNS } from './bulkRuns.js';

export type BulkAction = BulkControlView['action'];

/**
 * Terminates or cancels every run the filter matches, as GET /workflow/runs would list them. The matching runs are
 * listed first (a snapshot: acting while paging would shift the pages), then the open ones are acted on; runs listed
 * as closed are only counted, and do not use up the per-call cap. A run that fails (closed in between, gone, the
 * engine refusing) is reported with its error and does not stop the others.
 */
export async function bulkControl(
  deps: Pick<CoreDeps, 'engine' | 'logger' | 'actor'>,
  action: BulkAction,
  request: BulkControlRequest,
  access?: Access,
): Promise<BulkControlView> {
  assertBulkFilter(request.filter);
  const { runs, skipped: alreadyClosed, truncated } = await matchingRuns(deps, request.filter, (run) => !isTerminal(run.status), access);
  const matched = runs.length + alreadyClosed;
  if (request.dryRun) return { action, dryRun: true, matched, alreadyClosed, succeeded: 0, failures: [], truncated };

  const act =
    action === 'terminate'
      ? (run: RunDescription) => deps.engine.terminate(pinned(run), request.reason || DEFAULT_TERMINATE_REASON, undefined, deps.actor)
      : (run: RunDescription) => deps.engine.cancel(pinned(run), deps.actor);
  const { results, failures } = await actOnEach(deps, action, runs, act);
  return { action, dryRun: false, matched, alreadyClosed, succeeded: results.length, failures, truncated };
}

function pinned(run: RunDescription): { workflowId: string; runId: string } {
  return { workflowId: run.workflowId, runId: run.runId };
}
