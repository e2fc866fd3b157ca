import type { RunRecord } from '../runRecord.js';
import type { RunsPage, RunsQuery } from './engineStore.js';

/**
 * A runs list page from the runs the memory store keeps: newest first (start time, then insertion order), only runs
 * older than the query's position, so runs started meanwhile never shift a page.
 */
export function listMemoryRuns(runs: Iterable<RunRecord>, query: RunsQuery): RunsPage {
  const matches: RunRecord[] = [];
  for (const record of runs) {
    if (!record.committed) continue;
    const run = record.description;
    if (query.workflowName !== undefined && run.workflowName !== query.workflowName) continue;
    if (query.catalog !== undefined && run.catalog !== query.catalog) continue;
    if (query.status !== undefined && run.status !== query.status) continue;
    if (query.startedBy !== undefined && run.startedBy !== query.startedBy) continue;
    if (query.scheduleId !== undefined && run.scheduleId !== query.scheduleId) continue;
    if (query.after && !isOlder(record, query.after)) continue;
    matches.push(record);
  }
  matches.sort(newestFirst);
  const page = matches.slice(0, query.limit);
  return { runs: page.map((record) => ({ description: record.snapshot(), sequence: record.sequence })), more: matches.length > query.limit };
}

function newestFirst(a: RunRecord, b: RunRecord): number {
  return b.description.startedAt.getTime() - a.description.startedAt.getTime() || b.sequence - a.sequence;
}

function isOlder(record: RunRecord, position: { startedAt: number; sequence: number }): boolean {
  const time = record.description.startedAt.getTime();
  return time < position.startedAt || (time === position.startedAt && record.sequence < position.sequence);
}
