import { defaultPayloadConverter } from '@temporalio/client';
import { IdempotencyKeyReusedError } from '../../../core/domain/errors.js';
import type { RequestIdempotency } from '../../../core/domain/idempotency.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import { FEEDBACK_SIGNAL } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { allHistoryEvents, closeHistoryEvent } from './historyReader.js';
import { enums, type Payload } from './proto.js';
import { parseResetReason, type ResetKeyRecord } from './resetReason.js';
import { decodeIfPossible, toDate } from './values.js';

/*
 * Where Temporal keeps the Idempotency-Key of a feedback, a terminate or a reset, so that any API replica recognises
 * a retry after the API process that answered the first request is gone: in the feedback signal's header, in the
 * terminate's details and in the reset's reason (resetReason.ts), all recorded in the run's history.
 */

/** Header field of a keyed feedback signal (the workflow ignores it). */
export const FEEDBACK_KEY_HEADER = 'flowgate-idempotency';

export function keyPayload(idempotency: RequestIdempotency): Payload {
  return defaultPayloadConverter.toPayload(recordOf(idempotency));
}

/** What Temporal keeps of a keyed request: the digests, and when the API process took it (ISO 8601). */
export interface RecordedKey {
  key: string;
  fingerprint: string;
  /** Absent in records written before it was kept: the event's own time stands in. */
  requestedAt?: Date;
}

export function recordOf(idempotency: RequestIdempotency): ResetKeyRecord {
  return { key: idempotency.key, fingerprint: idempotency.fingerprint, at: idempotency.requestedAt.toISOString() };
}

function keyOf(payload: Payload | null | undefined): RecordedKey | undefined {
  return recordedKey((decodeIfPossible(payload) ?? {}) as Record<string, unknown>);
}

function recordedKey({ key, fingerprint, at }: Record<string, unknown>): RecordedKey | undefined {
  if (typeof key !== 'string' || typeof fingerprint !== 'string') return undefined;
  const requestedAt = typeof at === 'string' ? new Date(at) : undefined;
  return { key, fingerprint, ...(requestedAt && !Number.isNaN(requestedAt.getTime()) ? { requestedAt } : {}) };
}

/**
 * Whether the run already did the keyed request within the retention: true for the same request (the engine then
 * tells `idempotency` when that request was taken, which its expiry counts from), IdempotencyKeyReusedError for the
 * same key with another request, false when the key is not there (or expired).
 */
export function alreadyDone(recorded: RecordedKey | undefined, eventTime: Date | undefined, idempotency: RequestIdempotency, now: number): boolean {
  if (recorded?.key !== idempotency.key) return false;
  const since = recorded.requestedAt ?? eventTime;
  if (since !== undefined && since.getTime() + idempotency.retentionMs <= now) return false;
  if (recorded.fingerprint !== idempotency.fingerprint) {
    throw new IdempotencyKeyReusedError('Idempotency-Key was already used for another request (a different body or endpoint); use a new key for a new request');
  }
  if (since !== undefined) idempotency.recognised(since);
  return true;
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

/** How long a keyed feedback waits for its signal to show in the run's history (normally one workflow task). */
const SIGNAL_RECORD_WAIT_MS = 5_000;
const SIGNAL_RECORD_RECHECK_MS = 50;

/**
 * After a keyed feedback signalled: waits until the signal carrying the key shows in the history, then reads it as a
 * retry would. Temporal holds a signal that arrives during a workflow task until the task ends, and drops a duplicate
 * with the same request id meanwhile: a request racing another with the key (through another API replica) sees the
 * other's record here, so it answers with the same expiry, or 409 for another payload. True once the record was read.
 */
export async function feedbackRecorded(calls: TemporalCalls, run: PinnedRunRef, idempotency: RequestIdempotency, now: () => number): Promise<boolean> {
  // A wall-clock deadline: the engine's clock may be a test's virtual one.
  const deadline = Date.now() + SIGNAL_RECORD_WAIT_MS;
  for (;;) {
    if (await feedbackDone(calls, run, idempotency, now())) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, SIGNAL_RECORD_RECHECK_MS));
  }
}

/** The run was terminated by the keyed request (its closing event's details carry the key). */
export async function terminateDone(calls: TemporalCalls, run: PinnedRunRef, idempotency: RequestIdempotency, now: number): Promise<boolean> {
  const close = await closeHistoryEvent(calls, run);
  const terminated = close?.workflowExecutionTerminatedEventAttributes;
  return alreadyDone(keyOf(terminated?.details?.payloads?.[0]), toDate(close?.eventTime), idempotency, now);
}

/**
 * The run was made by the keyed reset: the reset's mark in its history (the workflow task failed with cause
 * RESET_WORKFLOW, the last such mark: earlier ones were copied from the runs it was reset from) carries the key in
 * its reason. Reads the run's history (keyed resets only).
 */
export async function resetDone(calls: TemporalCalls, run: PinnedRunRef, idempotency: RequestIdempotency, now: number): Promise<boolean> {
  let mark: { record: RecordedKey | undefined; at: Date | undefined } | undefined;
  for await (const event of allHistoryEvents(calls, run, { skipPayloads: true })) {
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed?.cause !== enums.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW) continue;
    const { record } = parseResetReason(failed.failure?.message ?? '');
    mark = { record: record && recordedKey({ ...record }), at: toDate(event.eventTime) };
  }
  return alreadyDone(mark?.record, mark?.at, idempotency, now);
}
