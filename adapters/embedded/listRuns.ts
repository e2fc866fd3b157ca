import { checkRunListLimit } from '../../core/domain/requestBounds.js';
import type { ListRunsQuery, RunList } from '../../ports/engine.js';
import type { PageTokens } from '../pageTokens.js';
import { isStorePosition } from './pageTokens.js';
import type { EngineStore } from './store/engineStore.js';

/** A page of the store's runs, newest first, and the token of the next page (bound to the filter it was issued for). */
export function listStoredRuns(store: EngineStore, tokens: PageTokens, query: ListRunsQuery): RunList {
  const { limit } = query;
  // The list use case checked it; asserted again because the store's query takes it as is.
  checkRunListLimit(limit);
  // The token holds the position of the last run returned, bound to the filter it was issued for. (The starter and
  // the schedule join the scope only when they filter: tokens issued before they existed stay good.)
  const starter = query.startedBy === undefined ? [] : [{ startedBy: query.startedBy }];
  const schedule = query.scheduleId === undefined ? [] : [{ scheduleId: query.scheduleId }];
  const scope = JSON.stringify(['runs', query.workflowName ?? null, query.catalog ?? null, query.status ?? null, ...starter, ...schedule]);
  const position = query.pageToken === undefined ? undefined : tokens.read(scope, query.pageToken, isStorePosition);
  const page = store.listRuns({
    ...(query.workflowName === undefined ? {} : { workflowName: query.workflowName }),
    ...(query.catalog === undefined ? {} : { catalog: query.catalog }),
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.startedBy === undefined ? {} : { startedBy: query.startedBy }),
    ...(query.scheduleId === undefined ? {} : { scheduleId: query.scheduleId }),
    limit,
    ...(position ? { after: { startedAt: position.t ?? Number.POSITIVE_INFINITY, sequence: position.q ?? Number.POSITIVE_INFINITY } } : {}),
  });
  const last = page.runs.at(-1);
  const nextPageToken = page.more && last ? tokens.issue(scope, { t: last.description.startedAt.getTime(), q: last.sequence }) : null;
  return { runs: page.runs.map(({ description }) => description), nextPageToken };
}
