import type { BulkControlRequest } from '../api/requests.js';
import type { BulkControlView, BulkFailureView } from '../api/views.js';
import { EngineError, EngineUnavailableError, FlowgateError, ValidationError } from '../domain/errors.js';
import type { PinnedRunRef } from '../domain/run.js';
import { isTerminal } from '../domain/status.js';
import type { CoreDeps } from './deps.js';
import { DEFAULT_TERMINATE_REASON } from './terminate.js';

/** Most runs one bulk call acts on; more are reported as `truncated` and taken by the next call. */
export const MAX_BULK_RUNS = 10_000;
/** Most runs one call lists (open and closed): bounds the time a filter matching a long history can take. */
export const MAX_LISTED_RUNS = 100_000;
/** Engine calls in flight at once: fast on a healthy engine, gentle on a struggling one. */
const BULK_CONCURRENCY = 16;
const LIST_PAGE = 1000;

export type BulkAction = BulkControlView['action'];

/**
 * Terminates or cancels every run the filter matches, as GET /workflow/runs would list them. The matching runs are
 * listed first (a snapshot: acting while paging would shift the pages), then the open ones are acted on; runs listed
 * as closed are only counted. A run that fails (closed in between, gone, the engine refusing) is reported with its
 * error and does not stop the others.
 */
export async function bulkControl(
  deps: Pick<CoreDeps, 'engine' | 'logger'>,
  action: BulkAction,
  request: BulkControlRequest,
): Promise<BulkControlView> {
  const { filter } = request;
  if (filter.workflowName === undefined && filter.catalog === undefined && filter.status === undefined) {
    throw new ValidationError('A bulk operation needs at least one filter: workflowName, catalog or status.', {
      issues: [{ code: 'missing_filter', path: [], message: 'give workflowName, catalog or status' }],
    });
  }
  const { runs, alreadyClosed, truncated } = await matchingRuns(deps, filter);
  const matched = runs.length + alreadyClosed;
  if (request.dryRun) return { action, dryRun: true, matched, alreadyClosed, succeeded: 0, failures: [], truncated };

  const act =
    action === 'terminate'
      ? (run: PinnedRunRef) => deps.engine.terminate(run, request.reason || DEFAULT_TERMINATE_REASON)
      : (run: PinnedRunRef) => deps.engine.cancel(run);
  const failures: BulkFailureView[] = [];
  let succeeded = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const run = runs[next++]!;
      try {
        await act(run);
        succeeded += 1;
      } catch (error) {
        failures.push({ ...run, ...describeFailure(error) });
        if (!isClientSafe(error)) deps.logger.error(`bulk ${action} failed for a run`, { ...run, error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, runs.length) }, worker));
  failures.sort((a, b) => a.workflowId.localeCompare(b.workflowId) || a.runId.localeCompare(b.runId));
  return { action, dryRun: false, matched, alreadyClosed, succeeded, failures, truncated };
}

/**
 * The open runs the filter matches (at most MAX_BULK_RUNS), and how many closed ones it matched besides: those are
 * counted, never acted on, and do not use up the cap, so a filter matching many closed runs still reaches the open
 * ones behind them. The listing itself stops after MAX_LISTED_RUNS.
 */
async function matchingRuns(
  deps: Pick<CoreDeps, 'engine'>,
  filter: BulkControlRequest['filter'],
): Promise<{ runs: PinnedRunRef[]; alreadyClosed: number; truncated: boolean }> {
  const runs: PinnedRunRef[] = [];
  let alreadyClosed = 0;
  let listed = 0;
  let pageToken: string | undefined;
  do {
    const page = await deps.engine.listRuns({ ...filter, limit: LIST_PAGE, ...(pageToken ? { pageToken } : {}) });
    for (const run of page.runs) {
      if (runs.length === MAX_BULK_RUNS || listed === MAX_LISTED_RUNS) return { runs, alreadyClosed, truncated: true };
      listed += 1;
      if (isTerminal(run.status)) alreadyClosed += 1;
      else runs.push({ workflowId: run.workflowId, runId: run.runId });
    }
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken);
  return { runs, alreadyClosed, truncated: false };
}

/** Named errors keep their message (it is written for clients); an engine's own failure does not leak. */
function describeFailure(error: unknown): { error: string; message: string } {
  if (isClientSafe(error)) return { error: error.name, message: error.message };
  if (error instanceof EngineUnavailableError) return { error: error.name, message: 'The workflow engine is temporarily unavailable; retry later.' };
  return { error: EngineError.errorName, message: 'The workflow engine failed to handle the request.' };
}

function isClientSafe(error: unknown): error is FlowgateError {
  return error instanceof FlowgateError && !(error instanceof EngineError) && !(error instanceof EngineUnavailableError);
}
