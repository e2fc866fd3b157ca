import { cancelledRunFailure, HISTORY_SIZE_LIMIT_EXCEEDED, runTimedOutFailure, type RunDescription, type RunOutcome, type SerializedFailure } from '../../../core/domain/run.js';
import { failureOf } from './failures.js';
import { EventType, type HistoryEvent } from './proto.js';
import { withoutKeyRecord } from './resetReason.js';
import { decodeFirst, toMillis } from './values.js';

/**
 * A closed run's outcome from its closing event. `runTimeoutMs`: the limit a timed-out run was started with
 * (timeOutLimitOf), which its failure names as the embedded engine's does.
 */
export function outcomeOf(run: RunDescription, close: HistoryEvent | undefined, runTimeoutMs?: number): RunOutcome {
  return { run, output: outputOf(close), failure: closingFailureOf(close, runTimeoutMs) };
}

/**
 * For a close that is a timeout, the run's time limit from its started event (one more read, for these runs only);
 * undefined for any other close, or when the server does not say.
 */
export async function timeOutLimitOf(close: HistoryEvent | undefined, startedEvent: () => Promise<HistoryEvent | undefined>): Promise<number | undefined> {
  if (close?.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT) return undefined;
  return toMillis((await startedEvent())?.workflowExecutionStartedEventAttributes?.workflowRunTimeout ?? null);
}

function outputOf(close: HistoryEvent | undefined): unknown {
  if (close?.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) return undefined;
  return decodeFirst(close.workflowExecutionCompletedEventAttributes?.result);
}

/**
 * How the run ended when it did not complete. Temporal records no error for cancelled, terminated and timed-out
 * runs; they get a failure naming how they ended (a termination's message is its reason).
 */
export function closingFailureOf(close: HistoryEvent | undefined, runTimeoutMs?: number): SerializedFailure | null {
  switch (close?.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
      return failureOf(close.workflowExecutionFailedEventAttributes?.failure);
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      return cancelledRunFailure();
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      return terminationOf(close.workflowExecutionTerminatedEventAttributes?.reason);
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
      return runTimeoutMs === undefined ? { name: 'WorkflowTimedOutError', message: 'The workflow run exceeded its time limit' } : runTimedOutFailure(runTimeoutMs);
    default:
      return null;
  }
}

/** The reason Temporal's history service gives when it terminates a run over limit.historySize.error. */
const HISTORY_SIZE_EXCEEDED_REASON = 'Workflow history size exceeds limit.';

/** A termination: by a client (its reason is the message), or by the server for a history over its size limit. */
function terminationOf(reason: string | null | undefined): SerializedFailure {
  if (reason === HISTORY_SIZE_EXCEEDED_REASON) return { name: HISTORY_SIZE_LIMIT_EXCEEDED, message: reason };
  // A keyed reset closes the run it replaces with its own reason, which carries the key's record: shown without it,
  // as the run's history shows it (workflowEvents.ts).
  return { name: 'WorkflowTerminatedError', message: (reason && withoutKeyRecord(reason)) || 'The workflow run was terminated' };
}

/** The run a continue-as-new closing event hands over to; undefined for every other closing. */
export function continuedRunIdOf(close: HistoryEvent | undefined): string | undefined {
  if (close?.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) return undefined;
  return close.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId || undefined;
}
