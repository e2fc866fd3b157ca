import type { BulkRerunRequest } from '../api/requests.js';
import type { BulkRerunView } from '../api/views.js';
import type { Access } from '../domain/access.js';
import { actOnEach, assertBulkFilter, matchingRuns } from './bulkRuns.js';
import type { CoreDeps } from './deps.js';
import { rerunRun, type RerunDeps } from './rerun.js';

/**
 * POST /workflow/runs/rerun: reruns every run the filter matches, open or closed, each under a new workflow id
 * (rerun.ts). The matching runs are listed first, so the runs this call starts are never among them. A run that
 * cannot be rerun (its workflow or catalog gone, its input no longer valid) is reported with the error a single
 * rerun would have answered and does not stop the others.
 */
export async function bulkRerun(deps: RerunDeps & Pick<CoreDeps, 'logger'>, request: BulkRerunRequest, access?: Access): Promise<BulkRerunView> {
  assertBulkFilter(request.filter);
  const { runs, truncated } = await matchingRuns(deps, request.filter, () => true, access);
  const matched = runs.length;
  const listed = runs.map((run) => ({ workflowId: run.workflowId, runId: run.runId }));
  if (request.dryRun) return { action: 'rerun', dryRun: true, matched, runs: listed, started: [], succeeded: 0, failures: [], truncated };

  const { results, failures } = await actOnEach(deps, 'rerun', runs, (run) => rerunRun(deps, run, {}));
  const started = results.sort((a, b) => a.rerunOf.workflowId.localeCompare(b.rerunOf.workflowId) || a.rerunOf.runId.localeCompare(b.rerunOf.runId));
  return { action: 'rerun', dryRun: false, matched, runs: listed, started, succeeded: started.length, failures, truncated };
}
