import { callbackIdempotencyKey, callbackRetriesExhausted, callbackRetryDelayMs, type RunCallbackTarget } from '../domain/callback.js';
import type { PinnedRunRef } from '../domain/run.js';
import { NonRetryableError, OutboundAddressRefusedError } from '../definition/failures.js';
import { redactUrl } from '../domain/urlRedaction.js';
import type { CallbackPost, CallbackSender } from '../../ports/callbackSender.js';
import type { Clock } from '../../ports/clock.js';
import type { CoreDeps } from './deps.js';
import { getResult } from './getResult.js';

export type CallbackDeps = Pick<CoreDeps, 'engine' | 'traces' | 'logger' | 'clock'>;

/**
 * What a run's callback POSTs: exactly the v2 result GET /workflow/{id}/runs/{rid}/result answers for the run (the
 * same use case builds it), as JSON text, keyed `<workflowId>:<runId>`. With `waitSeconds`, a run that is still
 * closing (Temporal: the delivery starts a moment before its run's close is recorded) is waited for.
 */
export async function runCallbackPost(deps: CallbackDeps, run: PinnedRunRef, url: string, waitSeconds = 0): Promise<CallbackPost> {
  const result = await getResult(deps, run, '2', waitSeconds > 0 ? { seconds: waitSeconds } : {});
  return { url, body: JSON.stringify(result), idempotencyKey: callbackIdempotencyKey(run) };
}

export type CallbackDelivery = 'delivered' | 'refused' | 'address_refused' | 'abandoned' | 'aborted';

/** What every log line of a run's callback carries: the run's ids and the URL, redacted (its query may hold secrets). */
export function callbackLogFields(run: PinnedRunRef, url: string): { workflowId: string; runId: string; url: string } {
  return { workflowId: run.workflowId, runId: run.runId, url: redactUrl(url) };
}

/** The log line of a callback refused by its address (the embedded engine's delivery and the Temporal worker's). */
export const CALLBACK_ADDRESS_REFUSED = 'run callback not sent: its receiver’s address is refused';

/**
 * In-process delivery (the embedded engine): the body is built once, then sent until the receiver takes it (2xx),
 * refuses it (4xx), or the next attempt would start more than `target.retryForMs` after the first; attempts are
 * spaced by CALLBACK_BACKOFF, the schedule the Temporal worker's retry policy follows. Never rejects: every end is
 * logged.
 */
export async function deliverRunCallback(
  deps: CallbackDeps & { sender: CallbackSender },
  run: PinnedRunRef,
  target: RunCallbackTarget,
  signal?: AbortSignal,
): Promise<CallbackDelivery> {
  const fields = callbackLogFields(run, target.url);
  let post: CallbackPost;
  try {
    post = await runCallbackPost(deps, run, target.url);
  } catch (error) {
    deps.logger.error('run callback not sent: the result could not be read', { ...fields, error: messageOf(error) });
    return 'abandoned';
  }
  const firstAttemptAt = deps.clock.now();
  for (let attempt = 1; ; attempt += 1) {
    if (signal?.aborted) return aborted(deps, fields, attempt - 1);
    try {
      await deps.sender.deliver(post);
      deps.logger.info('run callback delivered', { ...fields, attempt });
      return 'delivered';
    } catch (error) {
      if (error instanceof OutboundAddressRefusedError) {
        deps.logger.error(CALLBACK_ADDRESS_REFUSED, { ...fields, address: error.address, error: error.message });
        return 'address_refused';
      }
      if (error instanceof NonRetryableError) {
        deps.logger.warn('run callback refused by its receiver; not retried', { ...fields, attempt, error: error.message });
        return 'refused';
      }
      if (callbackRetriesExhausted(attempt, firstAttemptAt, deps.clock.now(), target.retryForMs)) {
        deps.logger.warn('run callback abandoned: still failing when its retry time ran out', { ...fields, attempt, retryForMs: target.retryForMs, error: messageOf(error) });
        return 'abandoned';
      }
      deps.logger.warn('run callback attempt failed; retrying', { ...fields, attempt, retryInMs: callbackRetryDelayMs(attempt), error: messageOf(error) });
    }
    await pause(deps.clock, callbackRetryDelayMs(attempt), signal);
  }
}

function aborted(deps: CallbackDeps, fields: Record<string, string>, attempts: number): 'aborted' {
  deps.logger.warn('run callback abandoned: the server is shutting down', { ...fields, attempts });
  return 'aborted';
}

function pause(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimer(ms, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
