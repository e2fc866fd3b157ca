import { defaultPayloadConverter } from '@temporalio/client';
import { IdempotencyKeyReusedError } from '../../../core/domain/errors.js';
import type { RequestIdempotency } from '../../../core/domain/idempotency.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import { FEEDBACK_SIGNAL } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { allHistoryEvents, closeHistoryEvent } from './historyReader.js';
import type { Payload } from './proto.js';
import { decodeIfPossible, toDate } from './values.js';

/*
 * Where Temporal keeps the Idempotency-Key of a feedback or a terminate, so that any API replica recognises a retry
 * after the API process that answered the first request is gone: in the feedback signal's header and in the
 * terminate's details, both recorded in the run's history.
 */

/** Header field of a keyed feedback signal (the workflow ignores it). */
export const FEEDBACK_KEY_HEADER = 'flowgate-idempotency';

export function keyPayload(idempotency: RecordedKey): Payload {
  return defaultPayloadConverter.toPayload({ key: idempotency.key, fingerprint: idempotency.fingerprint });
}

type RecordedKey = Pick<RequestIdempotency, 'key' | 'fingerprint'>;

function keyOf(payload: Payload | null | undefined): RecordedKey | undefined {
  const { key, fingerprint } = (decodeIfPossible(payload) ?? {}) as Partial<Record<keyof RequestIdempotency, unknown>>;
  return typeof key === 'string' && typeof fingerprint === 'string' ? { key, fingerprint } : undefined;
}

/**
 * Whether the run already did the keyed request within the retention: true for the same request,
 * IdempotencyKeyReusedError for the same key with another request, false when the key is not there (or expired).
 */
function alreadyDone(recorded: RecordedKey | undefined, at: Date | undefined, idempotency: RequestIdempotency, now: number): boolean {
  if (recorded?.key !== idempotency.key) return false;
  if (at !== undefined && at.getTime() + idempotency.retentionMs <= now) return false;
  if (recorded.fingerprint === idempotency.fingerprint) return true;
  throw new IdempotencyKeyReusedError('Idempotency-Key was already used for another request (a different body or endpoint); use a new key for a new request');
}

/** A feedback signal of the run carries the key (reads the run's history: keyed requests only). */
export async function feedbackDone(calls: TemporalCalls, run: PinnedRunRef, idempotency: RequestIdempotency, now: number): Promise<boolean> {
  // Only signal headers are read: the run's large payloads stay in the claim-check store.
  for await (const event of allHistoryEvents(calls, run, { skipPayloads: true })) {
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName !== FEEDBACK_SIGNAL) continue;
    if (alreadyDone(keyOf(signal.header?.fields?.[FEEDBACK_KEY_HEADER]), toDate(event.eventTime), idempotency, now)) return true;
  }
  return false;
}

/** The run was terminated by the keyed request (its closing event's details carry the key). */
export async function terminateDone(calls: TemporalCalls, run: PinnedRunRef, idempotency: RequestIdempotency, now: number): Promise<boolean> {
  const close = await closeHistoryEvent(calls, run);
  const terminated = close?.workflowExecutionTerminatedEventAttributes;
  return alreadyDone(keyOf(terminated?.details?.payloads?.[0]), toDate(close?.eventTime), idempotency, now);
}
