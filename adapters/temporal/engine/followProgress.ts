import type { HistoryEvent as NeutralEvent } from '../../../core/domain/history.js';
import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { RunStreamItem } from '../../../ports/engine.js';
import { progressRecordsOf } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { followRunHistory } from './followHistory.js';
import { EventType, type HistoryEvent as RawEvent } from './proto.js';
import { decodeFirst, toNumber } from './values.js';

/** A step whose activity is scheduled and has not ended, in the history read so far. */
interface RunningStep {
  activityId: string;
  stepEventId: number;
  stepName: string;
}

/**
 * The run's history (followRunHistory's long polls) with the progress of running steps in between. Progress lives in
 * the heartbeat details of the step's pending activity (adapters/temporal/worker/heartbeatProgress.ts), which no
 * history event announces: while a step whose scheduling has been sent is running, the run is described every
 * `pollMs`, and never otherwise. Each description hands every buffered record again; the caller drops by `seq`
 * what it sent. A step's progress is only sent after its `step_scheduled` event and while it runs: what a step
 * reported in its last moments, or between two descriptions beyond its buffer, is not seen (docs/progress.md).
 */
export async function* followRunWithProgress(
  calls: TemporalCalls,
  run: PinnedRunRef,
  afterEventId: number,
  signal: AbortSignal,
  pollMs: number,
  /** How much the history's long polls read ahead (HISTORY_PAGE_MAX_BYTES). */
  readAheadBytes: number,
): AsyncGenerator<RunStreamItem> {
  const running = new Map<number, RunningStep>();
  // One wait at a time, woken by whichever comes first: the history's next event, the progress poll's time, or a step
  // added. Each source is watched once, and the wait is made anew each time and let go after it: racing the same
  // pending promise on every turn would hang one more reaction on it each time, each holding what that turn resolved
  // with (every event sent while no step ran; a promise per poll while one ran without events).
  let wakeUp: (() => void) | undefined;
  // Events up to afterEventId are read but not yielded: a step among them wakes the loop, which may be waiting for a
  // long poll, so that its progress is read.
  let stepAdded = false;
  const history = followRunHistory(calls, run, afterEventId, signal, readAheadBytes, (raw, event) => {
    if (!track(running, raw, event)) return;
    stepAdded = true;
    wakeUp?.();
  });
  let next: { result: IteratorResult<NeutralEvent> } | { error: unknown } | undefined;
  const readNext = (): void => {
    next = undefined;
    history.next().then(
      (result) => {
        next = { result };
        wakeUp?.();
      },
      (error: unknown) => {
        next = { error };
        wakeUp?.();
      },
    );
  };
  let sentEventId = afterEventId;
  let poll: ProgressPoll | undefined;
  readNext();
  try {
    for (;;) {
      if (!poll && stepsSent(running, sentEventId).length > 0) poll = progressPoll(pollMs, signal, () => wakeUp?.());
      if (!next && !poll?.due && !stepAdded) {
        await new Promise<void>((resolve) => (wakeUp = resolve));
        wakeUp = undefined;
      }
      // A step added: the loop's first line decides whether its progress is due.
      stepAdded = false;
      if (next) {
        if ('error' in next) throw next.error;
        const { result } = next;
        if (result.done) return;
        next = undefined;
        sentEventId = result.value.eventId;
        yield { kind: 'history', event: result.value };
        readNext();
        continue;
      }
      if (poll?.due) {
        poll = undefined;
        if (signal.aborted) return;
        yield* await progressOf(calls, run, stepsSent(running, sentEventId), signal);
      }
    }
  } finally {
    poll?.cancel();
    // The history generator may be inside a long poll, which `signal` cancels; nobody waits for it here.
    void history.return(undefined).catch(() => undefined);
  }
}

/** Keeps `running` up to date; true when a step was added. */
function track(running: Map<number, RunningStep>, raw: RawEvent, event: NeutralEvent | undefined): boolean {
  switch (raw.eventType) {
    case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
      if (!event) return false;
      running.set(toNumber(raw.eventId), {
        activityId: raw.activityTaskScheduledEventAttributes?.activityId ?? '',
        stepEventId: event.eventId,
        stepName: event.stepName ?? '',
      });
      return true;
    case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
      running.delete(toNumber(raw.activityTaskCompletedEventAttributes?.scheduledEventId));
      return false;
    case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
      running.delete(toNumber(raw.activityTaskFailedEventAttributes?.scheduledEventId));
      return false;
    case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
      running.delete(toNumber(raw.activityTaskTimedOutEventAttributes?.scheduledEventId));
      return false;
    case EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED:
      running.delete(toNumber(raw.activityTaskCanceledEventAttributes?.scheduledEventId));
      return false;
    default:
      return false;
  }
}

/** Running steps whose step_scheduled event has been sent: only their progress may follow. */
function stepsSent(running: Map<number, RunningStep>, sentEventId: number): RunningStep[] {
  return [...running.values()].filter((step) => step.stepEventId <= sentEventId);
}

async function progressOf(calls: TemporalCalls, run: PinnedRunRef, steps: RunningStep[], signal: AbortSignal): Promise<RunStreamItem[]> {
  if (steps.length === 0) return [];
  const { workflowId, runId } = run;
  let pending;
  try {
    const response = await calls.call(
      () => calls.service.describeWorkflowExecution({ namespace: calls.namespace, execution: { workflowId, runId } }),
      { workflowId, runId },
      { signal },
    );
    pending = response.pendingActivities ?? [];
  } catch {
    // Progress is best effort: a failed read skips this round and never ends the stream. The history long poll
    // beside it reports a Temporal outage on its own.
    return [];
  }
  const runningSteps = steps.map((step) => step.stepEventId);
  const items: RunStreamItem[] = [];
  for (const step of steps) {
    const activity = pending.find((candidate) => candidate.activityId === step.activityId);
    if (!activity) continue;
    // A claim-check threshold set below the progress buffer's size offloads heartbeats too; an unreadable store
    // skips them like the failed read above.
    const details = await calls.resolvePayloads(activity.heartbeatDetails).catch(() => undefined);
    for (const record of progressRecordsOf(decodeDetails(details))) {
      const { seq, attempt, time, fields } = record;
      items.push({ kind: 'progress', progress: { stepEventId: step.stepEventId, stepName: step.stepName, attempt, seq, time, fields }, runningSteps });
    }
  }
  return items;
}

function decodeDetails(details: Parameters<typeof decodeFirst>[0]): unknown {
  try {
    return decodeFirst(details);
  } catch {
    // Heartbeat details of another encoding are not flowgate's progress.
    return undefined;
  }
}

/** Due after `ms`, or at once when `signal` aborts. */
interface ProgressPoll {
  readonly due: boolean;
  /** Clears the timer. */
  cancel(): void;
}

function progressPoll(ms: number, signal: AbortSignal, onDue: () => void): ProgressPoll {
  let due = false;
  const cancel = (): void => {
    clearTimeout(timer);
    signal.removeEventListener('abort', fire);
  };
  const fire = (): void => {
    cancel();
    due = true;
    onDue();
  };
  const timer = setTimeout(fire, ms);
  signal.addEventListener('abort', fire, { once: true });
  return {
    get due() {
      return due;
    },
    cancel,
  };
}
