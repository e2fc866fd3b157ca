import { ValidationError } from '../../../core/domain/errors.js';
import type { ListSchedulesQuery } from '../../../ports/schedules.js';

/**
 * A page of schedules by id. The token is the last id handed out: schedule ids are not secret (whoever may list may
 * read them), and a page after a deleted id still starts at the right place.
 */
export function listPage<S extends { definition: { scheduleId: string } }>(schedules: readonly S[], query: Pick<ListSchedulesQuery, 'limit' | 'pageToken'>): { page: S[]; nextPageToken: string | null } {
  const after = query.pageToken === undefined ? undefined : idOfToken(query.pageToken);
  const sorted = [...schedules].sort((a, b) => compare(a.definition.scheduleId, b.definition.scheduleId));
  const rest = after === undefined ? sorted : sorted.filter((schedule) => compare(schedule.definition.scheduleId, after) > 0);
  const page = rest.slice(0, query.limit);
  const last = page.at(-1);
  return { page, nextPageToken: rest.length > query.limit && last ? tokenOf(last.definition.scheduleId) : null };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const PREFIX = 's1.';

function tokenOf(scheduleId: string): string {
  return PREFIX + Buffer.from(scheduleId).toString('base64url');
}

function idOfToken(token: string): string {
  if (!token.startsWith(PREFIX)) {
    const message = 'pageToken is not one this server handed out for schedules';
    throw new ValidationError(message, { issues: [{ code: 'invalid_page_token', path: ['pageToken'], message }] });
  }
  return Buffer.from(token.slice(PREFIX.length), 'base64url').toString();
}
