import { cancelledRunFailure, type SerializedFailure } from '../../../core/domain/run.js';
import { childIdTaken } from '../../../core/definition/failures.js';
import { feedbackWaitStartedAttributes, identityAttribute } from '../../../core/domain/history.js';
import { CALLBACK_WORKFLOW_TYPE, FEEDBACK_SIGNAL, FEEDBACK_WAIT_MEMO_KEY, type FeedbackWaitMemo } from '../protocol.js';
import { failureOf } from './failures.js';
import { keyIdOfIdentity } from './identity.js';
import { startedByOf } from './startedByMemo.js';
import { EventType, enums, type HistoryEvent } from './proto.js';
import { parseResetReason, withoutKeyRecord } from './resetReason.js';
import type { MappedEvent } from './stepEvents.js';
import { decodeForDisplay, decodeIfPossible, toMillis } from './values.js';

type ChildEnd = { status: 'cancelled' | 'terminated' | 'timed_out'; error: SerializedFailure };
// What a child's end looks like from the parent, as the worker runtime reports it to workflow code.
const CHILD_ENDS: Readonly<Record<string, ChildEnd>> = {
  [EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED]: { status: 'cancelled', error: cancelledRunFailure() },
  [EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED]: {
    status: 'terminated',
    error: { name: 'WorkflowTerminatedError', message: 'The workflow run was terminated' },
  },
  [EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT]: {
    status: 'timed_out',
    error: { name: 'WorkflowTimedOutError', message: 'The run exceeded its run timeout' },
  },
};

/** Workflow lifecycle, timer, wait, signal and child events; undefined for events the neutral history leaves out. */
export function mapWorkflowEvent(raw: HistoryEvent): MappedEvent | undefined {
  switch (raw.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
      const attributes = raw.workflowExecutionStartedEventAttributes;
      const continuedFromRunId = attributes?.continuedExecutionRunId;
      const parentWorkflowId = attributes?.parentWorkflowExecution?.workflowId;
      return {
        type: 'workflow_started',
        attributes: {
          workflowName: attributes?.workflowType?.name ?? '',
          catalog: attributes?.taskQueue?.name ?? '',
          input: decodeForDisplay(attributes?.input),
          ...(continuedFromRunId ? { continuedFromRunId } : {}),
          ...(parentWorkflowId ? { parentWorkflowId } : {}),
          // Who started the chain (its memo); its continuations were started by the workflow itself.
          ...identityAttribute(continuedFromRunId ? undefined : startedByOf(attributes?.memo?.fields)),
        },
      };
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
      return { type: 'workflow_completed', attributes: { output: decodeForDisplay(raw.workflowExecutionCompletedEventAttributes?.result) } };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
      return { type: 'workflow_failed', attributes: { error: failureOf(raw.workflowExecutionFailedEventAttributes?.failure) } };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      return { type: 'workflow_cancelled', attributes: {} };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      // A run a reset terminated carries the reset's reason: its key record is flowgate's, not the client's.
      return terminatedEvent(raw);
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
      return { type: 'workflow_timed_out', attributes: {} };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: {
      const attributes = raw.workflowExecutionContinuedAsNewEventAttributes;
      return {
        type: 'workflow_continued_as_new',
        attributes: { newRunId: attributes?.newExecutionRunId ?? '', input: decodeForDisplay(attributes?.input) },
      };
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED:
      return { type: 'workflow_cancel_requested', attributes: identityAttribute(keyIdOfIdentity(raw.workflowExecutionCancelRequestedEventAttributes?.identity)) };
    case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
      return resetEvent(raw);
    case EventType.EVENT_TYPE_TIMER_STARTED: {
      const attributes = raw.timerStartedEventAttributes;
      return { type: 'timer_started', attributes: { timerId: attributes?.timerId ?? '', durationMs: toMillis(attributes?.startToFireTimeout) ?? 0 } };
    }
    case EventType.EVENT_TYPE_TIMER_FIRED:
      return { type: 'timer_fired', attributes: { timerId: raw.timerFiredEventAttributes?.timerId ?? '' } };
    case EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED:
      return feedbackWaitStarted(raw);
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED: {
      const attributes = raw.workflowExecutionSignaledEventAttributes;
      // Other signals (anything sent from outside flowgate) are not part of the neutral history.
      if (attributes?.signalName !== FEEDBACK_SIGNAL) return undefined;
      return {
        type: 'signal_received',
        attributes: { signalName: 'feedback', payload: decodeForDisplay(attributes.input), ...identityAttribute(keyIdOfIdentity(attributes.identity)) },
      };
    }
    default:
      return mapChildEvent(raw);
  }
}

function mapChildEvent(raw: HistoryEvent): MappedEvent | undefined {
  switch (raw.eventType) {
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED: {
      const attributes = raw.childWorkflowExecutionStartedEventAttributes;
      // The run's callback delivery (sandbox/runCallback.ts) is flowgate's, not a child the workflow asked for.
      if (attributes?.workflowType?.name === CALLBACK_WORKFLOW_TYPE) return undefined;
      return { type: 'child_started', attributes: { workflowName: attributes?.workflowType?.name ?? '', ...childIds(attributes?.workflowExecution) } };
    }
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED: {
      const attributes = raw.childWorkflowExecutionCompletedEventAttributes;
      return { type: 'child_completed', attributes: { ...childIds(attributes?.workflowExecution), output: decodeForDisplay(attributes?.result) } };
    }
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED: {
      const attributes = raw.childWorkflowExecutionFailedEventAttributes;
      return {
        type: 'child_failed',
        attributes: { ...childIds(attributes?.workflowExecution), status: 'failed', error: failureOf(attributes?.failure) },
      };
    }
    case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED: {
      // Refused because the id has an open run: the parent's code got ChildWorkflowFailedError, and the embedded
      // engine records the refusal as this child_failed (no child run, so no childRunId).
      const attributes = raw.startChildWorkflowExecutionFailedEventAttributes;
      if (attributes?.workflowType?.name === CALLBACK_WORKFLOW_TYPE) return undefined;
      if (attributes?.cause !== enums.StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS) return undefined;
      const workflowId = attributes?.workflowId ?? '';
      return { type: 'child_failed', attributes: { childWorkflowId: workflowId, status: 'failed', error: childIdTaken(workflowId) } };
    }
    default: {
      const end = raw.eventType === null || raw.eventType === undefined ? undefined : CHILD_ENDS[raw.eventType];
      if (!end) return undefined;
      const execution =
        raw.childWorkflowExecutionCanceledEventAttributes?.workflowExecution ??
        raw.childWorkflowExecutionTerminatedEventAttributes?.workflowExecution ??
        raw.childWorkflowExecutionTimedOutEventAttributes?.workflowExecution;
      return { type: 'child_failed', attributes: { ...childIds(execution), status: end.status, error: { ...end.error } } };
    }
  }
}

/**
 * The memo upsert a webhook wait makes as it begins (sandbox/feedbackWaitStarted.ts); other upserts (the trace
 * location a closing run records) are not part of the neutral history.
 */
function feedbackWaitStarted(raw: HistoryEvent): MappedEvent | undefined {
  const field = raw.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[FEEDBACK_WAIT_MEMO_KEY];
  if (!field) return undefined;
  const memo = decodeIfPossible(field) as FeedbackWaitMemo | undefined;
  const timeoutMs = typeof memo?.timeoutMs === 'number' ? memo.timeoutMs : undefined;
  return { type: 'feedback_wait_started', attributes: feedbackWaitStartedAttributes(timeoutMs) };
}

/** The reset's mark in the new run: the workflow task it replaced fails with cause RESET_WORKFLOW. */
function resetEvent(raw: HistoryEvent): MappedEvent | undefined {
  const attributes = raw.workflowTaskFailedEventAttributes;
  if (attributes?.cause !== enums.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW) return undefined;
  const { reason, stepName, keyId } = parseResetReason(attributes.failure?.message ?? '');
  return {
    type: 'workflow_reset',
    attributes: { reason, ...(stepName ? { stepName } : {}), resetFromRunId: attributes.baseRunId ?? '', ...identityAttribute(keyId) },
  };
}

/** A terminate names its key in its identity; the run a reset terminated, in the reset's reason it carries. */
function terminatedEvent(raw: HistoryEvent): MappedEvent {
  const attributes = raw.workflowExecutionTerminatedEventAttributes;
  const reason = attributes?.reason ?? '';
  const keyId = keyIdOfIdentity(attributes?.identity) ?? parseResetReason(reason).keyId;
  return { type: 'workflow_terminated', attributes: { reason: withoutKeyRecord(reason), ...identityAttribute(keyId) } };
}

function childIds(execution: { workflowId?: string | null; runId?: string | null } | null | undefined): Record<string, string> {
  return { childWorkflowId: execution?.workflowId ?? '', childRunId: execution?.runId ?? '' };
}
