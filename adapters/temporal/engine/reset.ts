import { randomUUID } from 'node:crypto';
import type { RequestIdempotency } from '../../../core/domain/idempotency.js';
import { StepNotCompletedError, stepNeverCompleted, stepNeverRan } from '../../../core/domain/errors.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { TemporalCalls } from './calls.js';
import { allHistoryEvents } from './historyReader.js';
import { EventType, type HistoryEvent } from './proto.js';
import { resetReasonWithStep } from './resetReason.js';
import { keyedRequestId } from './keyedRecords.js';
import { recordOf } from './requestKeys.js';
import { stepNameOf } from './stepEvents.js';
import { toNumber } from './values.js';

export type ResetPoint =
  | { kind: 'not_found' }
  | { kind: 'not_completed' }
  /** The step completed, but the workflow task that sees its result has not ended yet (a reset point needs one). */
  | { kind: 'completion_not_seen_yet' }
  /** The step completed, but the run closed before a workflow task saw its result: there is no point after it. */
  | { kind: 'completion_never_seen' }
  /** `workflowTaskFinishEventId`: the raw event id (a Long), passed back to Temporal as it came. */
  | { kind: 'found'; workflowTaskFinishEventId: HistoryEvent['eventId']; completedEventId: number };

// Temporal resets to the end of a workflow task; these are the events that end one.
const WORKFLOW_TASK_ENDS: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
]);

// The events that close a run: after one, no workflow task will end any more.
const RUN_CLOSES: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

/**
 * Where to reset to "just after step X last completed" (docs/api.md, Reset): the last
 * ActivityTaskCompleted of an activity `<workflow>#X` (id N), then the first workflow task that ended after it,
 * the one in which the workflow saw that result. The new run keeps X's result and runs everything after it again.
 */
export function findResetPoint(events: readonly HistoryEvent[], stepName: string): ResetPoint {
  const scheduled = new Set<number>();
  let completedEventId: number | undefined;
  let finish: HistoryEvent | undefined;
  for (const event of events) {
    const id = toNumber(event.eventId);
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      if (stepNameOf(event.activityTaskScheduledEventAttributes?.activityType?.name ?? '') === stepName) scheduled.add(id);
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
      if (scheduled.has(toNumber(event.activityTaskCompletedEventAttributes?.scheduledEventId))) {
        completedEventId = id;
        finish = undefined;
      }
    } else if (completedEventId !== undefined && !finish && WORKFLOW_TASK_ENDS.has(event.eventType ?? 0)) {
      finish = event;
    }
  }
  if (scheduled.size === 0) return { kind: 'not_found' };
  if (completedEventId === undefined) return { kind: 'not_completed' };
  if (!finish) return RUN_CLOSES.has(events.at(-1)?.eventType ?? 0) ? { kind: 'completion_never_seen' } : { kind: 'completion_not_seen_yet' };
  return { kind: 'found', workflowTaskFinishEventId: finish.eventId, completedEventId };
}

/**
 * Resets the run; Temporal terminates the open run of the id, if any, and replays signals received after the
 * point (its default reapply type), as the embedded engine does. Returns the new run.
 */
export async function resetToStep(
  calls: TemporalCalls,
  run: PinnedRunRef,
  stepName: string,
  reason: string,
  /**
   * Set for an Idempotency-Key: its record goes into the reason (requestKeys.ts resetMark reads it back), and the
   * request id is derived from the key (keyedRecords.ts), with which Temporal answers a retried reset with the run
   * the first one made while that run is the latest of its id.
   */
  idempotency?: RequestIdempotency,
  /** The API key resetting (identity.ts): Temporal records it on the new run's reset mark and the old run's terminate. */
  identity?: string,
): Promise<PinnedRunRef> {
  const { workflowId, runId } = run;
  const point = await settledResetPoint(calls, run, stepName);
  if (point.kind === 'not_found') {
    throw stepNeverRan(stepName, workflowId, runId);
  }
  if (point.kind === 'not_completed' || point.kind === 'completion_not_seen_yet') {
    throw stepNeverCompleted(stepName, workflowId, runId);
  }
  if (point.kind === 'completion_never_seen') {
    throw new StepNotCompletedError(
      `Step "${stepName}" completed in run ${runId} of workflow ${workflowId}, but the run closed before the workflow saw its result: ` +
        'there is no point after the step to reset to (reset to an earlier step instead)',
      { workflowId, runId },
    );
  }
  const response = await calls.call(
    () =>
      calls.service.resetWorkflowExecution({
        namespace: calls.namespace,
        workflowExecution: { workflowId, runId },
        workflowTaskFinishEventId: point.workflowTaskFinishEventId ?? null,
        reason: resetReasonWithStep(reason, stepName, idempotency && recordOf(idempotency), identity),
        requestId: idempotency ? keyedRequestId('reset', idempotency.key) : randomUUID(),
        identity: calls.identityFor(identity),
      }),
    { workflowId, runId },
  );
  return { workflowId, runId: response.runId ?? '' };
}

/** How long a reset waits for the workflow task that follows a just-completed step (normally milliseconds). */
const COMPLETION_TASK_WAIT_MS = 10_000;
const COMPLETION_TASK_RECHECK_MS = 100;

/**
 * The reset point, waiting briefly when the step has completed but its workflow task has not ended yet: to the
 * caller the step is complete (its step_completed event is visible), so a reset must not answer 409 in that gap.
 */
async function settledResetPoint(calls: TemporalCalls, run: PinnedRunRef, stepName: string): Promise<ResetPoint> {
  const deadline = Date.now() + COMPLETION_TASK_WAIT_MS;
  for (;;) {
    const events: HistoryEvent[] = [];
    // Only ids and types matter here: large payloads stay in S3.
    for await (const event of allHistoryEvents(calls, run, { skipPayloads: true })) events.push(event);
    const point = findResetPoint(events, stepName);
    if (point.kind !== 'completion_not_seen_yet' || Date.now() > deadline) return point;
    await new Promise((resolve) => setTimeout(resolve, COMPLETION_TASK_RECHECK_MS));
  }
}
