import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { z } from 'zod';
import type { WebhookRequest } from '../../../core/definition/context.js';
import { CancelledError, WebhookTimeoutError } from '../../../core/definition/failures.js';
import { checkWebhookRequest, parseFeedback } from '../../../core/definition/runRules.js';
import type { WebhookCall } from '../../../ports/webhookSender.js';
import { recordFeedbackWaitStarted } from './feedbackWaitStarted.js';
import type { RunState } from './runState.js';
import { callStep } from './stepActivity.js';
import { WEBHOOK_STEP_META } from './webhookStepMeta.js';

/**
 * ctx.waitForWebhook, as on the embedded engine (adapters/embedded/webhookWait.ts): with a `url`, the internal step
 * `webhook` first sends the call (activity `<workflow>#webhook`, retried like any step); then the run waits for a
 * FEEDBACK_SIGNAL reply, oldest buffered reply first, and hands it over parsed by the workflow's feedbackSchema.
 */
export async function waitForWebhook<T>(run: RunState, feedbackSchema: z.ZodType | undefined, request: WebhookRequest = {}): Promise<T> {
  checkWebhookRequest(request);
  const ordinal = run.nextOrdinal('webhook');
  if (request.url !== undefined) {
    const { workflowId, runId, workflowName } = run.info;
    const call: WebhookCall = {
      url: request.url,
      workflowId,
      runId,
      workflowName,
      payload: request.payload ?? null,
      idempotencyKey: `${workflowId}:${runId}:webhook-${ordinal}`,
    };
    await callStep(WEBHOOK_STEP_META, call);
  }
  let reply: { payload: unknown } | undefined;
  // A stopped run gets no reply, not even a buffered one (embedded engine: the cancel is checked first).
  if (CancellationScope.current().consideredCancelled) throw new CancelledError('Webhook wait cancelled');
  if (!run.inbox.hasReply) recordFeedbackWaitStarted(request.timeoutMs);
  try {
    reply = await run.inbox.take(request.timeoutMs);
  } catch (error) {
    if (isCancellation(error)) throw new CancelledError('Webhook wait cancelled');
    throw error;
  }
  if (!reply) throw new WebhookTimeoutError(request.timeoutMs ?? 0);
  return parseFeedback(run.info.workflowName, feedbackSchema, reply.payload) as T;
}
