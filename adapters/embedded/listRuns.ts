import { ValidationError } from '../../core/domain/errors.js';
import type { ListRunsQuery, RunList } from '../../ports/engine.js';
import type { PageTokens } from './pageTokens.js';
import type { RunRecord } from './runRecord.js';

/**
 * Newest first (start time, then insertion order). The page token holds the position of the last run returned,
 * so runs started meanwhile never shift a page; it is bound to the filter it was issued for.
 */
export function listRuns(runs: Iterable<RunRecord>, tokens: PageTokens, query: ListRunsQuery): RunList {
  const { limit } = query;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new ValidationError('limit must be an integer from 1 to 1000', {
      issues: [{ code: 'invalid_limit', path: ['limit'], message: 'limit must be an integer from 1 to 1000' }],
    });
  }
  const scope = JSON.stringify(['runs', query.workflowName ?? null, query.catalog ?? null, query.status ?? null]);
  const after = query.pageToken === undefined ? undefined : tokens.read(scope, query.pageToken);

  const matches: RunRecord[] = [];
  for (const record of runs) {
    const run = record.description;
    if (query.workflowName !== undefined && run.workflowName !== query.workflowName) continue;
    if (query.catalog !== undefined && run.catalog !== query.catalog) continue;
    if (query.status !== undefined && run.status !== query.status) continue;
    if (after && !isOlder(record, after)) continue;
    matches.push(record);
  }
  matches.sort(newestFirst);
  const page = matches.slice(0, limit);
  const last = page[page.length - 1];
  const nextPageToken =
    matches.length > limit && last ? tokens.issue(scope, { t: last.description.startedAt.getTime(), q: last.sequence }) : null;
  return { runs: page.map((record) => record.snapshot()), nextPageToken };
}

function newestFirst(a: RunRecord, b: RunRecord): number {
  return b.description.startedAt.getTime() - a.description.startedAt.getTime() || b.sequence - a.sequence;
}

function isOlder(record: RunRecord, position: Record<string, number>): boolean {
  const time = record.description.startedAt.getTime();
  const { t = Number.POSITIVE_INFINITY, q = Number.POSITIVE_INFINITY } = position;
  return time < t || (time === t && record.sequence < q);
}
