import type { WebhookRequest } from '../../core/definition/context.js';
import { WebhookTimeoutError } from '../../core/definition/failures.js';
import { checkWebhookRequest } from '../../core/definition/runRules.js';
import type { WebhookCall } from '../../ports/webhookSender.js';
import type { CommandCall } from './commandLog.js';
import type { Payload } from './payload.js';
import type { RunScope } from './runHost.js';
import { never } from './never.js';
import { executeStep } from './stepExecution.js';

/**
 * ctx.waitForWebhook: with a `url`, first the internal step `webhook` sends the call (retried like any step);
 * then the run waits for a reply from deliverFeedback, oldest buffered reply first.
 */
export async function waitForWebhook<T>(scope: RunScope, request: WebhookRequest = {}): Promise<T> {
  checkWebhookRequest(request);
  const { execution } = scope;
  const ordinal = execution.nextOrdinal('webhook');
  if (request.url !== undefined) {
    const run = execution.record.description;
    const call: WebhookCall = {
      url: request.url,
      workflowId: run.workflowId,
      runId: run.runId,
      workflowName: run.workflowName,
      payload: request.payload ?? null,
      idempotencyKey: `${run.workflowId}:${run.runId}:webhook-${ordinal}`,
    };
    await executeStep(scope, execution.host.webhookStep, call);
  }
  return (await awaitReply(scope, request.timeoutMs)) as T;
}

function awaitReply(scope: RunScope, timeoutMs: number | undefined): Promise<unknown> {
  const { execution } = scope;
  const call = execution.call('webhook', 'webhook');
  if (!call) return never();
  if (call.replayed) {
    if (call.record.consumedFeedback) execution.inbox.dropOldest();
    return execution.replay(call.record);
  }
  if (execution.isCancelled(scope)) return execution.settle(call, execution.cancelledOutcome('Webhook wait cancelled'));
  const buffered = execution.inbox.take();
  if (buffered) return received(call, scope, buffered);
  return new Promise((resolve) => {
    let stopTimer = (): void => {};
    let withdrawCancel = (): void => {};
    const withdrawWait = execution.inbox.wait((payload) => {
      stopTimer();
      withdrawCancel();
      resolve(received(call, scope, payload));
    });
    if (timeoutMs !== undefined) {
      stopTimer = execution.setTimer(timeoutMs, () => {
        withdrawWait();
        withdrawCancel();
        resolve(execution.settle(call, { ok: false, error: new WebhookTimeoutError(timeoutMs) }));
      });
    }
    withdrawCancel = execution.onCancel(scope, () => {
      withdrawWait();
      stopTimer();
      resolve(execution.settle(call, execution.cancelledOutcome('Webhook wait cancelled')));
    });
  });
}

function received(call: CommandCall, scope: RunScope, payload: Payload): Promise<unknown> {
  call.record.consumedFeedback = true;
  return scope.execution.settle(call, { ok: true, value: payload });
}
