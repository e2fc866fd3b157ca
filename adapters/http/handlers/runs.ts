import type { ListRunsRequest, ResultWait } from '../../../core/api/requests.js';
import type { InputView, ResultVersion, RunListView, RunStatusView, TraceLogView, WorkflowResult } from '../../../core/api/views.js';
import type { RunRef } from '../../../core/domain/run.js';
import type { RunStatus } from '../../../core/domain/status.js';
import { DEPRECATION_HEADER } from '../responseDocs.js';
import { ok, type RouteContext, type RouteResult } from '../route.js';

/** Path parameters of the id form (`{id}`) and the pinned form (`{id}` + `{rid}`). */
export interface RunPathParams {
  id: string;
  rid?: string;
}

export function toRunRef(params: RunPathParams): RunRef {
  return params.rid === undefined ? { workflowId: params.id } : { workflowId: params.id, runId: params.rid };
}

/** docs/api.md: a legacy result carries `Deprecation` (RFC 9745). */
export function resultHeaders(version: ResultVersion): Record<string, string> | undefined {
  return version === 'legacy' ? { deprecation: DEPRECATION_HEADER } : undefined;
}

/** GET /workflow/{id}/result and /workflow/{id}/runs/{rid}/result */
export async function getResult(params: RunPathParams, version: ResultVersion, context: RouteContext, wait: ResultWait = {}): Promise<RouteResult<WorkflowResult>> {
  return ok(await context.api.getResult(toRunRef(params), version, wait), { headers: resultHeaders(version) });
}

/** GET /workflow/{id}/status and /workflow/{id}/runs/{rid}/status */
export async function getStatus(params: RunPathParams, context: RouteContext): Promise<RouteResult<RunStatusView>> {
  return ok(await context.api.getStatus(toRunRef(params)));
}

/** GET /workflow/{id}/input and /workflow/{id}/runs/{rid}/input */
export async function getInput(params: RunPathParams, context: RouteContext): Promise<RouteResult<InputView>> {
  return ok(await context.api.getInput(toRunRef(params)));
}

export interface ListRunsQuery {
  workflowName?: string | undefined;
  catalog?: string | undefined;
  status?: RunStatus | undefined;
  startedBy?: string | undefined;
  scheduleId?: string | undefined;
  limit: number;
  pageToken?: string | undefined;
}

/** GET /workflow/runs */
export async function listRuns(query: ListRunsQuery, context: RouteContext): Promise<RouteResult<RunListView>> {
  const request: ListRunsRequest = { limit: query.limit };
  if (query.workflowName !== undefined) request.workflowName = query.workflowName;
  if (query.catalog !== undefined) request.catalog = query.catalog;
  if (query.status !== undefined) request.status = query.status;
  if (query.startedBy !== undefined) request.startedBy = query.startedBy;
  if (query.scheduleId !== undefined) request.scheduleId = query.scheduleId;
  if (query.pageToken !== undefined) request.pageToken = query.pageToken;
  return ok(await context.api.listRuns(request));
}

/** GET /workflow/{id}/runs/{rid}/trace-log */
export async function getTraceLog(params: Required<RunPathParams>, context: RouteContext): Promise<RouteResult<TraceLogView>> {
  return ok(await context.api.fetchTrace({ workflowId: params.id, runId: params.rid }), { runId: params.rid });
}
