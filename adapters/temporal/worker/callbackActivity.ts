import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { callbackRetriesExhausted } from '../../../core/domain/callback.js';
import { NonRetryableError, OutboundAddressRefusedError } from '../../../core/definition/failures.js';
import { CALLBACK_ADDRESS_REFUSED, callbackLogFields, runCallbackPost, type CallbackDeps } from '../../../core/useCases/runCallback.js';
import type { CallbackSender } from '../../../ports/callbackSender.js';
import { CALLBACK_ACTIVITY, type CallbackDelivery } from '../protocol.js';
import type { ActivityFunction } from './activities.js';

/**
 * How long an attempt waits for the run's close to be recorded: the callback workflow starts a moment before its
 * run closes (sandbox/runCallback.ts).
 */
const RESULT_WAIT_SECONDS = 10;

/**
 * The callback workflow's activity: one attempt reads the run's v2 result (the use case GET .../result uses, so the
 * body is the same) and POSTs it. Temporal retries it on CALLBACK_BACKOFF's schedule; it stops the retries itself, with
 * a non-retryable failure, when the receiver refuses (4xx), when its address is refused (OutboundAddressRefusedError),
 * or when the next attempt would start after the run's `retryForMs`, and logs each outcome as the embedded engine's
 * delivery does (core/useCases/runCallback.ts).
 */
export function callbackActivities(deps: CallbackDeps & { sender: CallbackSender }): Record<string, ActivityFunction> {
  const deliver = async (delivery: CallbackDelivery): Promise<void> => {
    const { info } = Context.current();
    const run = { workflowId: delivery.workflowId, runId: delivery.runId };
    const fields = { ...callbackLogFields(run, delivery.target.url), attempt: info.attempt };
    try {
      await deps.sender.deliver(await runCallbackPost(deps, run, delivery.target.url, RESULT_WAIT_SECONDS));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof OutboundAddressRefusedError) {
        // Recorded on Temporal too: the failure of this activity, in the history of flowgate.callback:<runId>.
        deps.logger.error(CALLBACK_ADDRESS_REFUSED, { ...fields, address: error.address, error: message });
        throw ApplicationFailure.nonRetryable(message, error.name);
      }
      if (error instanceof NonRetryableError) {
        deps.logger.warn('run callback refused by its receiver; not retried', { ...fields, error: message });
        throw ApplicationFailure.nonRetryable(message, 'CallbackRefusedError');
      }
      if (callbackRetriesExhausted(info.attempt, info.scheduledTimestampMs, Date.now(), delivery.target.retryForMs)) {
        deps.logger.warn('run callback abandoned: still failing when its retry time ran out', { ...fields, retryForMs: delivery.target.retryForMs, error: message });
        throw ApplicationFailure.nonRetryable(message, 'CallbackAbandonedError');
      }
      deps.logger.warn('run callback attempt failed; retrying', { ...fields, error: message });
      throw error;
    }
    deps.logger.info('run callback delivered', fields);
  };
  return { [CALLBACK_ACTIVITY]: deliver as ActivityFunction };
}
