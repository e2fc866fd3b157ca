import type { z } from 'zod';
import type { StartRequest } from '../../../core/api/requests.js';
import type { ResultVersion, RunRefView, StartView, WorkflowListView, WorkflowResult } from '../../../core/api/views.js';
import { ok, type RouteContext, type RouteResult } from '../route.js';
import type { createRunWorkflowBodySchema, FeedbackBodySchema, StartWorkflowBodySchema } from '../schemas/requests.js';
import type { RequestHeaders } from '../types.js';
import { idempotencyOf, withExpiry } from './idempotency.js';
import { resultHeaders } from './runs.js';

type RunWorkflowBody = z.output<ReturnType<typeof createRunWorkflowBodySchema>>;
type StartWorkflowBody = z.output<typeof StartWorkflowBodySchema>;
type FeedbackBody = z.output<typeof FeedbackBodySchema>;

/** POST /workflow/run */
export async function runAndWait(body: RunWorkflowBody, version: ResultVersion, headers: RequestHeaders, context: RouteContext, signal: AbortSignal): Promise<RouteResult<WorkflowResult>> {
  const request = { ...toStartRequest(body), timeoutSeconds: body.timeout };
  const { answer, expiresAt } = await context.api.runAndWait(request, version, { ...idempotencyOf(headers), signal });
  return ok(answer, { headers: withExpiry(expiresAt, resultHeaders(version)) });
}

/** POST /workflow */
export async function startWorkflow(body: StartWorkflowBody, headers: RequestHeaders, context: RouteContext): Promise<RouteResult<StartView>> {
  const { answer, expiresAt } = await context.api.start(toStartRequest(body), idempotencyOf(headers));
  return ok(answer, { headers: withExpiry(expiresAt) });
}

/** GET /workflow/list */
export async function listWorkflows(catalog: string | undefined, context: RouteContext): Promise<RouteResult<WorkflowListView>> {
  return ok(await context.api.listWorkflows(catalog));
}

/** POST /workflow/feedback */
export async function sendFeedback(body: FeedbackBody, headers: RequestHeaders, context: RouteContext): Promise<RouteResult<RunRefView>> {
  const { answer, expiresAt } = await context.api.sendFeedback(body.workflowId, body.payload, idempotencyOf(headers));
  return ok(answer, { runId: answer.runId, headers: withExpiry(expiresAt) });
}

/** Folds the deprecated `taskQueue` alias into `catalog` (docs/api.md: `catalog` wins) and drops absent fields. */
export function toStartRequest(body: StartWorkflowBody | RunWorkflowBody): StartRequest {
  const request: StartRequest = { workflowName: body.workflowName, input: body.input };
  if (body.workflowId !== undefined) request.workflowId = body.workflowId;
  const catalog = body.catalog ?? body.taskQueue;
  if (catalog !== undefined) request.catalog = catalog;
  if (body.callbackUrl !== undefined) request.callbackUrl = body.callbackUrl;
  return request;
}
