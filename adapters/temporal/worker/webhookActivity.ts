import { Context } from '@temporalio/activity';
import type { ActivityDefinition } from '../../../core/definition/activity.js';
import { defineActivity } from '../../../core/definition/step.js';
import type { WebhookCall, WebhookSender } from '../../../ports/webhookSender.js';
import { WEBHOOK_STEP_META } from '../sandbox/webhookStepMeta.js';

/**
 * The internal step `webhook` (activity `<workflow>#webhook`): POSTs the call a waiting workflow sends. The sandbox
 * sends `{url, payload, idempotencyKey}` and the run's ids; ids it left out are taken from the activity's context.
 */
export function webhookStepDefinition(sender: WebhookSender): ActivityDefinition {
  return defineActivity('internal_step', {
    name: WEBHOOK_STEP_META.name,
    fn: (call: Partial<WebhookCall> & Pick<WebhookCall, 'url' | 'idempotencyKey'>) => sender.send(completeCall(call)),
    retry: WEBHOOK_STEP_META.retry,
    timeoutMs: WEBHOOK_STEP_META.timeoutMs,
  }).definition as unknown as ActivityDefinition;
}

function completeCall(call: Partial<WebhookCall> & Pick<WebhookCall, 'url' | 'idempotencyKey'>): WebhookCall {
  const { info } = Context.current();
  return {
    url: call.url,
    workflowId: call.workflowId ?? info.workflowExecution?.workflowId ?? '',
    runId: call.runId ?? info.workflowExecution?.runId ?? '',
    workflowName: call.workflowName ?? info.workflowType ?? '',
    payload: call.payload ?? null,
    idempotencyKey: call.idempotencyKey,
  };
}
