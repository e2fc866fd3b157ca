import type { ListRunsRequest } from '../api/requests.js';
import type { RunListView } from '../api/views.js';
import { narrowRunFilter, type Access } from '../domain/access.js';
import { invalidPageToken } from '../domain/errors.js';
import { checkRunListLimit } from '../domain/requestBounds.js';
import type { RunDescription } from '../domain/run.js';
import { toStatusView } from '../results/statusView.js';
import type { CoreDeps } from './deps.js';
import { runVisibleTo } from './runAccess.js';

/**
 * Engine pages one request reads for a limited key before answering with what it found (fewer runs than `limit`,
 * and a nextPageToken to go on): bounds the time a key that sees few of many runs can take.
 */
export const MAX_SCANNED_PAGES = 10;

/**
 * One page of runs, newest first. A key limited to catalogs or workflows sees only their runs: the filter is narrowed
 * to them where it can be, and otherwise the engine's pages are read whole and the others left out, so a page may
 * hold fewer than `limit` runs and still have a nextPageToken (docs/api.md).
 */
export async function listRuns(deps: Pick<CoreDeps, 'engine'>, request: ListRunsRequest, access?: Access): Promise<RunListView> {
  checkRunListLimit(request.limit);
  const narrowed = narrowRunFilter(access, request);
  if (narrowed.kind === 'none') {
    // No page of this filter was ever handed to this key, so a token for it is forged or from another filter.
    if (request.pageToken !== undefined) throw invalidPageToken();
    return { runs: [], nextPageToken: null };
  }
  if (narrowed.exact) {
    const list = await deps.engine.listRuns(narrowed.filter);
    return { runs: list.runs.map(toStatusView), nextPageToken: list.nextPageToken };
  }
  const visible = runVisibleTo(access);
  const runs: RunDescription[] = [];
  let pageToken = request.pageToken;
  for (let page = 0; page < MAX_SCANNED_PAGES; page += 1) {
    // Whole pages only: the engine's token resumes after a page, never inside one.
    const list = await deps.engine.listRuns({ ...narrowed.filter, limit: request.limit - runs.length, ...(pageToken === undefined ? {} : { pageToken }) });
    runs.push(...list.runs.filter(visible));
    pageToken = list.nextPageToken ?? undefined;
    if (pageToken === undefined || runs.length >= request.limit) break;
  }
  return { runs: runs.map(toStatusView), nextPageToken: pageToken ?? null };
}
