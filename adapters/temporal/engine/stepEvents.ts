import type { ActivityKind } from '../../../core/domain/trace.js';
import { stepTimedOut } from '../../../core/definition/failures.js';
import { WEBHOOK_STEP_NAME } from '../protocol.js';
import { stepFailureOf } from './failures.js';
import { EventType, type HistoryEvent } from './proto.js';
import { decodeForDisplay, toMillis, toNumber } from './values.js';

/** A step still open in the history being read: its activity type and the attempt last started. */
export interface OpenStep {
  activityType: string;
  attempt: number;
  /** Its attempts' time limit (the step's timeoutMs), which a timed-out attempt's failure names. */
  timeoutMs?: number | undefined;
}

export interface MappedEvent {
  type: string;
  stepName?: string;
  attributes: Record<string, unknown>;
}

/** The step name of an activity type `workflow#step`. */
export function stepNameOf(activityType: string): string {
  const hash = activityType.indexOf('#');
  return hash === -1 ? activityType : activityType.slice(hash + 1);
}

/**
 * Step events. Temporal writes ActivityTaskStarted only together with the attempt's end, for the last attempt, so
 * retried attempts show as one started/ended pair carrying the final attempt number.
 */
export function mapStepEvent(raw: HistoryEvent, steps: Map<number, OpenStep>): MappedEvent | undefined {
  switch (raw.eventType) {
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
      const attributes = raw.activityTaskScheduledEventAttributes;
      const activityType = attributes?.activityType?.name ?? '';
      steps.set(toNumber(raw.eventId), { activityType, attempt: 0, timeoutMs: toMillis(attributes?.startToCloseTimeout) });
      const stepName = stepNameOf(activityType);
      const kind = kindOf(stepName);
      return { type: 'step_scheduled', stepName, attributes: { activityType, kind, input: decodeForDisplay(attributes?.input) } };
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
      const attributes = raw.activityTaskStartedEventAttributes;
      const step = steps.get(toNumber(attributes?.scheduledEventId));
      const attempt = attributes?.attempt ?? 1;
      if (step) step.attempt = attempt;
      return { type: 'step_started', ...named(step), attributes: { attempt } };
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
      const attributes = raw.activityTaskCompletedEventAttributes;
      const step = closeStep(steps, attributes?.scheduledEventId);
      return { type: 'step_completed', ...named(step), attributes: { attempt: attemptOf(step), output: decodeForDisplay(attributes?.result) } };
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED: {
      const attributes = raw.activityTaskFailedEventAttributes;
      const step = closeStep(steps, attributes?.scheduledEventId);
      return { type: 'step_failed', ...named(step), attributes: { attempt: attemptOf(step), error: stepFailureOf(attributes?.failure) } };
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: {
      const attributes = raw.activityTaskTimedOutEventAttributes;
      const step = closeStep(steps, attributes?.scheduledEventId);
      // Without `retryable`, as every attempt's step_failed (on the embedded engine too).
      const { retryable: _retryable, ...error } = stepTimedOut(step?.activityType ?? '', attemptOf(step), step?.timeoutMs);
      return { type: 'step_failed', ...named(step), attributes: { attempt: attemptOf(step), error } };
    }
    case EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED: {
      const attributes = raw.activityTaskCanceledEventAttributes;
      const step = closeStep(steps, attributes?.scheduledEventId);
      // As on the embedded engine, a step cancelled before an attempt started leaves no step_failed.
      if (toNumber(attributes?.startedEventId) <= 0) return undefined;
      const error = { name: 'CancelledError', message: `Step ${step?.activityType ?? ''} cancelled` };
      return { type: 'step_failed', ...named(step), attributes: { attempt: attemptOf(step), error } };
    }
    default:
      return undefined;
  }
}

/** A step's kind as its history can tell it: the webhook call is an internal step, everything else a step. */
function kindOf(stepName: string): ActivityKind {
  return stepName === WEBHOOK_STEP_NAME ? 'internal_step' : 'step';
}

function closeStep(steps: Map<number, OpenStep>, scheduledEventId: unknown): OpenStep | undefined {
  const id = toNumber(scheduledEventId);
  const step = steps.get(id);
  steps.delete(id);
  return step;
}

function named(step: OpenStep | undefined): { stepName?: string } {
  return step ? { stepName: stepNameOf(step.activityType) } : {};
}

function attemptOf(step: OpenStep | undefined): number {
  return step && step.attempt > 0 ? step.attempt : 1;
}
