import type { BulkControlRequest } from '../../../core/api/requests.js';
import type { BulkControlView, RunRefView, TerminateView } from '../../../core/api/views.js';
import type { RunStatus } from '../../../core/domain/status.js';
import type { RouteContext, RouteResult } from '../route.js';
import { ok } from '../route.js';
import type { RequestHeaders } from '../types.js';
import { idempotencyOf, withExpiry } from './idempotency.js';
import { toRunRef, type RunPathParams } from './runs.js';

/** PATCH /workflow/{id}/runs/{rid}/stop and the deprecated PATCH /workflow/{id}/stop (latest run). */
export async function stopRun(params: RunPathParams, context: RouteContext): Promise<RouteResult<RunRefView>> {
  const stopped = await context.api.stop(toRunRef(params));
  return ok(stopped, { runId: stopped.runId });
}

/** POST /workflow/{id}/runs/{rid}/terminate */
export async function terminateRun(
  params: Required<RunPathParams>,
  reason: string | undefined,
  headers: RequestHeaders,
  context: RouteContext,
): Promise<RouteResult<TerminateView>> {
  const { answer, expiresAt } = await context.api.terminate(toRunRef(params), reason, idempotencyOf(headers));
  return ok(answer, { runId: answer.runId, headers: withExpiry(expiresAt) });
}

/**
 * POST /workflow/{id}/runs/{rid}/reset, and the deprecated POST /workflow/{id}/reset, which resets the latest run.
 * The response's runId is the NEW run, so the run acted on has to be known some other way for the deprecated
 * form's successor Link: it describes the latest run first and then resets exactly that run. Like the legacy stop,
 * it acts on the run as described, even if another execution starts in between. With an Idempotency-Key the
 * deprecated form resets "the latest run" as one keyed request (a retry must not resolve the run it created), so
 * its Link stays the template.
 */
export async function resetRun(
  params: RunPathParams,
  body: { stepName: string; reason?: string | undefined },
  headers: RequestHeaders,
  context: RouteContext,
): Promise<RouteResult<RunRefView>> {
  const idempotency = idempotencyOf(headers);
  const keyed = idempotency.idempotencyKey !== undefined;
  const runId = params.rid ?? (keyed ? undefined : (await context.api.getStatus({ workflowId: params.id })).runId);
  const run = toRunRef({ id: params.id, rid: runId });
  const { answer, expiresAt } = await context.api.reset(run, body.stepName, body.reason, idempotency);
  return ok(answer, { headers: withExpiry(expiresAt), ...(runId === undefined ? {} : { runId }) });
}

export interface BulkControlBody {
  workflowName?: string | undefined;
  catalog?: string | undefined;
  status?: RunStatus | undefined;
  reason?: string | undefined;
  dryRun: boolean;
}

/** POST /workflow/runs/terminate and /workflow/runs/cancel */
export async function bulkControl(action: 'terminate' | 'cancel', body: BulkControlBody, context: RouteContext): Promise<RouteResult<BulkControlView>> {
  const filter: BulkControlRequest['filter'] = {};
  if (body.workflowName !== undefined) filter.workflowName = body.workflowName;
  if (body.catalog !== undefined) filter.catalog = body.catalog;
  if (body.status !== undefined) filter.status = body.status;
  const request: BulkControlRequest = { filter, dryRun: body.dryRun };
  if (body.reason !== undefined) request.reason = body.reason;
  return ok(await context.api.bulkControl(action, request));
}
