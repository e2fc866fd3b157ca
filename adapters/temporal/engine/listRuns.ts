import { invalidPageToken } from '../../../core/domain/errors.js';
import { checkRunListLimit } from '../../../core/domain/requestBounds.js';
import type { ListRunsQuery, RunList } from '../../../ports/engine.js';
import { CALLBACK_WORKFLOW_TYPE, CATALOG_WORKFLOW_TYPE } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { GrpcCode, grpcCodeOf, messageChain } from './grpcErrors.js';
import type { PageTokens } from '../../pageTokens.js';
import { decodeTemporalToken, encodeTemporalToken } from './pageTokens.js';
import { runDescriptionOf, SCHEDULED_BY_SEARCH_ATTRIBUTE } from './runDescription.js';
import { VISIBILITY_STATUS } from './status.js';
import { STARTED_BY_SEARCH_ATTRIBUTE } from './startedByMemo.js';

/** A string literal of Temporal's visibility query language (SQL-like: quotes doubled, backslashes escaped). */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * The visibility query of a run-list filter. The catalog is the task queue (TaskQueue is a built-in search
 * attribute on every visibility store, unlike FlowgateCatalog, which a cluster may lack). The catalog registry's own
 * workflows and the callback deliveries never appear.
 */
export function visibilityQuery(filter: Pick<ListRunsQuery, 'workflowName' | 'catalog' | 'status' | 'startedBy' | 'scheduleId'>): string {
  const clauses = [`WorkflowType != ${queryLiteral(CATALOG_WORKFLOW_TYPE)}`, `WorkflowType != ${queryLiteral(CALLBACK_WORKFLOW_TYPE)}`];
  if (filter.workflowName !== undefined) clauses.push(`WorkflowType = ${queryLiteral(filter.workflowName)}`);
  if (filter.catalog !== undefined) clauses.push(`TaskQueue = ${queryLiteral(filter.catalog)}`);
  if (filter.status !== undefined) clauses.push(`ExecutionStatus = ${queryLiteral(VISIBILITY_STATUS[filter.status])}`);
  if (filter.startedBy !== undefined) clauses.push(`${STARTED_BY_SEARCH_ATTRIBUTE} = ${queryLiteral(filter.startedBy)}`);
  if (filter.scheduleId !== undefined) clauses.push(`${SCHEDULED_BY_SEARCH_ATTRIBUTE} = ${queryLiteral(filter.scheduleId)}`);
  return clauses.join(' AND ');
}

const NEWEST_FIRST = ' ORDER BY StartTime DESC';

/**
 * The run list through Temporal's visibility API. Newest first by start time where the visibility store can sort
 * (Elasticsearch); SQL stores (the dev server's SQLite, PostgreSQL, MySQL) refuse ORDER BY, and then the order is
 * theirs: open runs first, then closed runs by close time, newest first. Which one applies is learnt on first use.
 */
export class RunLister {
  private orderBySupported: boolean | undefined;

  constructor(
    private readonly calls: TemporalCalls,
    private readonly tokens: PageTokens,
  ) {}

  async list(query: ListRunsQuery): Promise<RunList> {
    // The list use case checked it; asserted again because Temporal would take any page size it is given.
    checkRunListLimit(query.limit);
    if (matchesNoRun(query)) {
      // No page of this filter was ever handed out, so a token for it is forged or from another filter.
      if (query.pageToken !== undefined) throw invalidPageToken();
      return { runs: [], nextPageToken: null };
    }
    const filter = visibilityQuery(query);
    // Bound to the filter: a token of another filter is refused. It records whether its query was sorted, so a
    // later page uses the same form even on an engine that has not learnt yet what the store supports.
    const scope = JSON.stringify(['runs', filter]);
    const position = query.pageToken === undefined ? undefined : this.tokens.read(scope, query.pageToken, isRunsPosition);
    if (position) return this.page(scope, filter, position.o, query.limit, position);
    if (this.orderBySupported !== false) {
      try {
        const list = await this.page(scope, filter, true, query.limit);
        this.orderBySupported = true;
        return list;
      } catch (error) {
        if (!isOrderByRefusal(error)) throw error;
        this.orderBySupported = false;
      }
    }
    return this.page(scope, filter, false, query.limit);
  }

  private async page(scope: string, filter: string, sorted: boolean, limit: number, position?: RunsPosition): Promise<RunList> {
    const nextPageToken = position ? decodeTemporalToken(position.r) : undefined;
    const response = await this.calls.call(
      () =>
        this.calls.service.listWorkflowExecutions({
          namespace: this.calls.namespace,
          query: sorted ? filter + NEWEST_FIRST : filter,
          pageSize: limit,
          ...(nextPageToken ? { nextPageToken } : {}),
        }),
      { pageToken: nextPageToken !== undefined },
    );
    const runs = (response.executions ?? []).map(runDescriptionOf);
    const next = encodeTemporalToken(response.nextPageToken);
    return { runs, nextPageToken: next ? this.tokens.issue(scope, { r: next, o: sorted } satisfies RunsPosition) : null };
  }
}

/**
 * A filter with a NUL character: SQL visibility stores (the dev server's SQLite among them) fail on one inside a
 * string literal, answering UNAVAILABLE. No workflow type or task queue has one (workflow names are identifiers,
 * task queue names come from the environment), so the answer is known without asking: no run.
 */
function matchesNoRun(filter: Pick<ListRunsQuery, 'workflowName' | 'catalog' | 'startedBy'>): boolean {
  return Boolean(filter.workflowName?.includes('\u0000') || filter.catalog?.includes('\u0000') || filter.startedBy?.includes('\u0000'));
}

/** Temporal's token of the next page, and whether the query was the sorted form. */
interface RunsPosition {
  r: string;
  o: boolean;
}

function isRunsPosition(value: unknown): value is RunsPosition {
  if (typeof value !== 'object' || value === null) return false;
  const { r, o } = value as Partial<RunsPosition>;
  return typeof r === 'string' && r !== '' && typeof o === 'boolean';
}

/** "invalid query: operation is not supported: 'order by' clause" (INVALID_ARGUMENT) from SQL visibility stores. */
function isOrderByRefusal(error: unknown): boolean {
  return grpcCodeOf(error) === GrpcCode.INVALID_ARGUMENT && /order by/i.test(messageChain(error));
}
