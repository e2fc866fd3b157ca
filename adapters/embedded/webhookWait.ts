import type { WebhookRequest } from '../../core/definition/context.js';
import { WebhookTimeoutError } from '../../core/definition/failures.js';
import { checkWebhookRequest, parseFeedback } from '../../core/definition/runRules.js';
import { feedbackWaitStartedAttributes } from '../../core/domain/history.js';
import type { WebhookCall } from '../../ports/webhookSender.js';
import type { CommandCall } from './commandLog.js';
import type { Payload } from './payload.js';
import type { RunScope } from './runCommands.js';
import { never } from './never.js';
import { executeStep } from './stepExecution.js';

/**
 * ctx.waitForWebhook: with a `url`, first the internal step `webhook` sends the call (retried like any step);
 * then the run waits for a reply from deliverFeedback, oldest buffered reply first, and hands it over parsed by the
 * workflow's feedbackSchema (the log keeps the reply as received, so a replay parses it again).
 */
export async function waitForWebhook<T>(scope: RunScope, request: WebhookRequest = {}): Promise<T> {
  checkWebhookRequest(request);
  const { commands } = scope;
  const ordinal = commands.nextOrdinal('webhook');
  if (request.url !== undefined) {
    const run = commands.run;
    const call: WebhookCall = {
      url: request.url,
      workflowId: run.workflowId,
      runId: run.runId,
      workflowName: run.workflowName,
      payload: request.payload ?? null,
      idempotencyKey: `${run.workflowId}:${run.runId}:webhook-${ordinal}`,
    };
    await executeStep(scope, commands.services.webhookStep, call);
  }
  const reply = await awaitReply(scope, request.timeoutMs);
  return parseFeedback(commands.run.workflowName, commands.feedbackSchema, reply) as T;
}

function awaitReply(scope: RunScope, timeoutMs: number | undefined): Promise<unknown> {
  const { commands } = scope;
  const call = commands.call('webhook', 'webhook');
  if (!call) return never();
  if (call.mode === 'replayed') {
    if (call.record.consumedFeedback) commands.inbox.dropOldest();
    return commands.replayed(call);
  }
  if (commands.isCancelled(scope)) return commands.settle(call, commands.cancelledOutcome('Webhook wait cancelled'));
  const buffered = commands.inbox.take();
  if (buffered) return received(call, scope, buffered);
  // A resumed wait keeps the time limit it was given when it began.
  const progress = call.record.progress;
  const dueAt = progress?.kind === 'webhook' ? progress.dueAt : timeoutMs === undefined ? undefined : commands.now() + timeoutMs;
  if (call.mode === 'new') {
    // The wait begins for real: its one feedback_wait_started (a resumed wait has it in its history already).
    commands.append('feedback_wait_started', feedbackWaitStartedAttributes(timeoutMs));
    commands.progressed(call, { kind: 'webhook', ...(dueAt === undefined ? {} : { dueAt }) });
  }
  return new Promise((resolve) => {
    let stopTimer = (): void => {};
    let withdrawCancel = (): void => {};
    const withdrawWait = commands.inbox.wait((payload) => {
      stopTimer();
      withdrawCancel();
      resolve(received(call, scope, payload));
    });
    if (dueAt !== undefined && timeoutMs !== undefined) {
      stopTimer = commands.timerAt(dueAt, () => {
        withdrawWait();
        withdrawCancel();
        resolve(commands.settle(call, { ok: false, error: new WebhookTimeoutError(timeoutMs) }));
      });
    }
    withdrawCancel = commands.onCancel(scope, () => {
      withdrawWait();
      stopTimer();
      resolve(commands.settle(call, commands.cancelledOutcome('Webhook wait cancelled')));
    });
  });
}

function received(call: CommandCall, scope: RunScope, payload: Payload): Promise<unknown> {
  call.record.consumedFeedback = true;
  return scope.commands.settle(call, { ok: true, value: payload });
}
