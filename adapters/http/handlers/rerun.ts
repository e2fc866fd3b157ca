import type { z } from 'zod';
import type { BulkRerunView, RerunView } from '../../../core/api/views.js';
import type { BulkControlRequest, RerunRequest } from '../../../core/api/requests.js';
import { ok, type RouteContext, type RouteResult } from '../route.js';
import type { BulkRerunBodySchema, RerunBodySchema } from '../schemas/requests.js';
import type { RequestHeaders } from '../types.js';
import { idempotencyOf, withExpiry } from './idempotency.js';
import type { RunPathParams } from './runs.js';

type RerunBody = z.output<typeof RerunBodySchema>;
type BulkRerunBody = z.output<typeof BulkRerunBodySchema>;

/** POST /workflow/{id}/runs/{rid}/rerun */
export async function rerunRun(params: Required<RunPathParams>, body: RerunBody, headers: RequestHeaders, context: RouteContext): Promise<RouteResult<RerunView>> {
  const request: RerunRequest = {};
  if (body.workflowId !== undefined) request.workflowId = body.workflowId;
  if (body.callbackUrl !== undefined) request.callbackUrl = body.callbackUrl;
  const { answer, expiresAt } = await context.api.rerun({ workflowId: params.id, runId: params.rid }, request, idempotencyOf(headers));
  return ok(answer, { headers: withExpiry(expiresAt) });
}

/** POST /workflow/runs/rerun */
export async function bulkRerun(body: BulkRerunBody, context: RouteContext): Promise<RouteResult<BulkRerunView>> {
  const filter: BulkControlRequest['filter'] = {};
  if (body.workflowName !== undefined) filter.workflowName = body.workflowName;
  if (body.catalog !== undefined) filter.catalog = body.catalog;
  if (body.status !== undefined) filter.status = body.status;
  return ok(await context.api.bulkRerun({ filter, dryRun: body.dryRun }));
}
