import { createHash } from 'node:crypto';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import { FEEDBACK_SIGNAL } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { enums, type HistoryEvent } from './proto.js';
import { toNumber } from './values.js';

/*
 * How a keyed feedback or reset finds its key's record without reading the run's whole history (docs/idempotency.md,
 * Temporal). Temporal deduplicates both by request id, which flowgate derives from the key alone, so every API
 * replica sends the same one and a key acts at most once on a run whatever body comes with it:
 * - a signal whose request id the run already saw is dropped, also once the run closed (the server checks the id
 *   before whether the run is open), so a retry is answered without a second delivery;
 * - a reset whose request id made the id's current run answers that run.
 * What the request was (its fingerprint) and when it was taken stay in the record the signal's header or the reset's
 * reason carries; it is read newest first, so only the events recorded after it are read, never the history before.
 */

/** A request id of a keyed request: a UUID (version 5 layout) of SHA-256 over the kind and the key's digest. */
export function keyedRequestId(kind: 'reset', keyDigest: string): string {
  const bytes = createHash('sha256').update(`flowgate.${kind}\0${keyDigest}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/*
 * Pages of a newest-first read. Temporal's page size counts the batches of events it reads from its store, not the
 * events: a batch can hold hundreds (a step fan-out schedules them in one), so a page of 100 can cost as much as a
 * long history's forward read. A record is normally among the newest few batches, so the first page is small and the
 * pages grow from there for a record further back.
 */
const FIRST_NEWEST_PAGE_SIZE = 4;
const MAX_NEWEST_PAGE_SIZE = 128;

/**
 * The run's events newest first (GetWorkflowExecutionHistoryReverse), page by page, large payloads left in the
 * claim-check store; stops at the first event `found` accepts, or at an event whose id is at most `aboveEventId`.
 */
export async function newestEventWhere(
  calls: TemporalCalls,
  run: PinnedRunRef,
  found: (event: HistoryEvent) => boolean,
  aboveEventId = 0,
): Promise<HistoryEvent | undefined> {
  let nextPageToken: Uint8Array | undefined;
  let pageSize = FIRST_NEWEST_PAGE_SIZE;
  do {
    const response = await calls.call(
      () =>
        calls.service.getWorkflowExecutionHistoryReverse({
          namespace: calls.namespace,
          execution: { workflowId: run.workflowId, runId: run.runId },
          maximumPageSize: pageSize,
          ...(nextPageToken ? { nextPageToken } : {}),
        }),
      { workflowId: run.workflowId, runId: run.runId },
    );
    for (const event of response.history?.events ?? []) {
      if (toNumber(event.eventId) <= aboveEventId) return undefined;
      if (found(event)) return event;
    }
    const token = response.nextPageToken;
    nextPageToken = token && token.length > 0 ? new Uint8Array(token) : undefined;
    pageSize = Math.min(pageSize * 2, MAX_NEWEST_PAGE_SIZE);
  } while (nextPageToken);
  return undefined;
}

/** A feedback signal carrying a key record in `header` field `headerField` (requestKeys.ts reads the record). */
export function isFeedbackSignal(event: HistoryEvent, headerField: string): boolean {
  const signal = event.workflowExecutionSignaledEventAttributes;
  return signal?.signalName === FEEDBACK_SIGNAL && signal.header?.fields?.[headerField] !== undefined;
}

/** The mark a reset leaves in the run it makes (the newest one is this run's: older ones came from its base runs). */
export function isResetMark(event: HistoryEvent): boolean {
  return event.workflowTaskFailedEventAttributes?.cause === enums.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;
}
