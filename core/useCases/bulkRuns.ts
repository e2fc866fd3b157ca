import type { BulkControlRequest } from '../api/requests.js';
import { narrowRunFilter, type Access } from '../domain/access.js';
import type { BulkFailureView } from '../api/views.js';
import { EngineError, EngineUnavailableError, FlowgateError, ValidationError } from '../domain/errors.js';
import { MAX_RUN_LIST_LIMIT } from '../domain/requestBounds.js';
import type { RunDescription } from '../domain/run.js';
import type { CoreDeps } from './deps.js';
import { runVisibleTo } from './runAccess.js';

/*
 * What the bulk operations (bulkControl.ts: terminate and cancel; bulkRerun.ts) share: the filter rule, the snapshot
 * of the matching runs, and acting on them a few at a time with failures reported per run.
 */

/** Most runs one bulk call acts on; more are reported as `truncated`. */
export const MAX_BULK_RUNS = 10_000;
/** Most runs one call lists (open and closed): bounds the time a filter matching a long history can take. */
export const MAX_LISTED_RUNS = 100_000;
/** Engine calls in flight at once: fast on a healthy engine, gentle on a struggling one. */
const BULK_CONCURRENCY = 16;
const LIST_PAGE = MAX_RUN_LIST_LIMIT;

export type BulkFilter = BulkControlRequest['filter'];

/** A bulk operation never means "every run there is": at least one filter, else a ValidationError. */
export function assertBulkFilter(filter: BulkFilter): void {
  if (filter.workflowName === undefined && filter.catalog === undefined && filter.status === undefined) {
    throw new ValidationError('A bulk operation needs at least one filter: workflowName, catalog or status.', {
      issues: [{ code: 'missing_filter', path: [], message: 'give workflowName, catalog or status' }],
    });
  }
}

export interface MatchingRuns {
  /** The runs `select` took, in the listing's order (at most MAX_BULK_RUNS). */
  runs: RunDescription[];
  /** Listed runs `select` left: counted, not acted on, and not counted against MAX_BULK_RUNS. */
  skipped: number;
  truncated: boolean;
}

/**
 * The runs the filter matches, as GET /workflow/runs lists them for the key, listed first (a snapshot: acting while
 * paging would shift the pages). Runs the key may not touch are neither acted on nor counted (docs/security.md). Runs
 * `select` leaves do not use up the cap, so a filter matching many of them still reaches the others behind them. The
 * listing itself stops after MAX_LISTED_RUNS.
 */
export async function matchingRuns(
  deps: Pick<CoreDeps, 'engine'>,
  filter: BulkFilter,
  select: (run: RunDescription) => boolean,
  access: Access,
): Promise<MatchingRuns> {
  const runs: RunDescription[] = [];
  let skipped = 0;
  let listed = 0;
  const narrowed = narrowRunFilter(access, filter);
  if (narrowed.kind === 'none') return { runs, skipped, truncated: false };
  const visible = runVisibleTo(access);
  let pageToken: string | undefined;
  do {
    const page = await deps.engine.listRuns({ ...narrowed.filter, limit: LIST_PAGE, ...(pageToken ? { pageToken } : {}) });
    for (const run of page.runs) {
      if (listed === MAX_LISTED_RUNS) return { runs, skipped, truncated: true };
      listed += 1;
      if (!visible(run)) continue;
      if (!select(run)) {
        skipped += 1;
        continue;
      }
      // Truncated only by a run that would be acted on: a full cap followed by runs left alone is the whole answer.
      if (runs.length === MAX_BULK_RUNS) return { runs, skipped, truncated: true };
      runs.push(run);
    }
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken);
  return { runs, skipped, truncated: false };
}

/**
 * Calls `act` for each run, BULK_CONCURRENCY at a time. A run that fails is reported with its error and does not
 * stop the others; failures come back sorted by workflow id and run id.
 */
export async function actOnEach<T>(
  deps: Pick<CoreDeps, 'logger'>,
  operation: string,
  runs: readonly RunDescription[],
  act: (run: RunDescription) => Promise<T>,
): Promise<{ results: T[]; failures: BulkFailureView[] }> {
  const results: T[] = [];
  const failures: BulkFailureView[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const run = runs[next++]!;
      const ref = { workflowId: run.workflowId, runId: run.runId };
      try {
        results.push(await act(run));
      } catch (error) {
        failures.push({ ...ref, ...describeFailure(error) });
        if (!isClientSafe(error)) deps.logger.error(`bulk ${operation} failed for a run`, { ...ref, error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, runs.length) }, worker));
  failures.sort((a, b) => a.workflowId.localeCompare(b.workflowId) || a.runId.localeCompare(b.runId));
  return { results, failures };
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
