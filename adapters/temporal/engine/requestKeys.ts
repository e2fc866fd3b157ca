import { defaultPayloadConverter } from '@temporalio/client';
import { IdempotencyKeyReusedError } from '../../../core/domain/errors.js';
import type { RequestIdempotency } from '../../../core/domain/idempotency.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { TemporalCalls } from './calls.js';
import { isFeedbackSignal, isResetMark, newestEventWhere } from './keyedRecords.js';
import type { Payload } from './proto.js';
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

/**
 * The record of the keyed feedback signal of the run, newest first: its own signal is among the newest events, a
 * retry's among those since the first request; events at most `aboveEventId` are not read.
 */
export async function feedbackRecord(calls: TemporalCalls, run: PinnedRunRef, key: string, aboveEventId = 0): Promise<KeyMark | undefined> {
  const event = await newestEventWhere(
    calls,
    run,
    (candidate) => isFeedbackSignal(candidate, FEEDBACK_KEY_HEADER) && keyOf(candidate.workflowExecutionSignaledEventAttributes?.header?.fields?.[FEEDBACK_KEY_HEADER])?.key === key,
    aboveEventId,
  );
  return event && { record: keyOf(event.workflowExecutionSignaledEventAttributes?.header?.fields?.[FEEDBACK_KEY_HEADER]), at: toDate(event.eventTime) };
}

/** A key's record as an event keeps it, with the event's time (for records written without their own). */
export interface KeyMark {
  record: RecordedKey | undefined;
  at: Date | undefined;
}

/**
 * The run was terminated by the keyed request (its closing event's details carry the key): the newest event of the
 * closed run, its first newest-first page.
 */
export async function terminateDone(calls: TemporalCalls, run: PinnedRunRef, idempotency: RequestIdempotency, now: number): Promise<boolean> {
  const close = await newestEventWhere(calls, run, () => true);
  const terminated = close?.workflowExecutionTerminatedEventAttributes;
  return alreadyDone(keyOf(terminated?.details?.payloads?.[0]), toDate(close?.eventTime), idempotency, now);
}

/**
 * The record of the reset that made the run: the newest reset mark in its history (the workflow task failed with
 * cause RESET_WORKFLOW; older marks were copied from the runs it was reset from) carries it in its reason. Read newest
 * first: only the events the run recorded since the reset are read.
 */
export async function resetMark(calls: TemporalCalls, run: PinnedRunRef): Promise<KeyMark | undefined> {
  const event = await newestEventWhere(calls, run, isResetMark);
  if (!event) return undefined;
  const { record } = parseResetReason(event.workflowTaskFailedEventAttributes?.failure?.message ?? '');
  return { record: record && recordedKey({ ...record }), at: toDate(event.eventTime) };
}
