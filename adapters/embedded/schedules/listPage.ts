import type { ListSchedulesQuery } from '../../../ports/schedules.js';
import type { PageTokens } from '../../pageTokens.js';

/**
 * A page of schedules by id. The token holds the last id handed out to the core, sealed and bound to the filter: a
 * page after a deleted id still starts at the right place, and a limited key, whose page the core filters after
 * this, never reads the id of a schedule it may not see.
 */
export function listPage<S extends { definition: { scheduleId: string } }>(
  schedules: readonly S[],
  query: Pick<ListSchedulesQuery, 'limit' | 'pageToken' | 'workflowName'>,
  tokens: PageTokens,
): { page: S[]; nextPageToken: string | null } {
  const scope = JSON.stringify(['schedules', query.workflowName ?? null]);
  const after = query.pageToken === undefined ? undefined : tokens.read(scope, query.pageToken, isPosition).a;
  const sorted = [...schedules].sort((a, b) => compare(a.definition.scheduleId, b.definition.scheduleId));
  const rest = after === undefined ? sorted : sorted.filter((schedule) => compare(schedule.definition.scheduleId, after) > 0);
  const page = rest.slice(0, query.limit);
  const last = page.at(-1);
  return { page, nextPageToken: rest.length > query.limit && last ? tokens.issue(scope, { a: last.definition.scheduleId }) : null };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** After which schedule id the next page starts. */
interface Position {
  a: string;
}

function isPosition(value: unknown): value is Position {
  return typeof value === 'object' && value !== null && typeof (value as Partial<Position>).a === 'string';
}
