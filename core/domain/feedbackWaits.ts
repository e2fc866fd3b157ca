import { isClosingEventType, type HistoryEvent } from './history.js';

/*
 * A run's waits for feedback (ctx.waitForWebhook), as its history tells them: both engines record
 * `feedback_wait_started` when a wait begins for real (no reply was buffered for it), and nothing when it ends. What
 * ends it is read from what follows: replies serve waits oldest first, as both engines do, so each `signal_received`
 * serves the oldest wait still open; a wait with a time limit gives up when it passes; a stop, a reset and the run's
 * close end the waits still open. Pure, shared by the viewer's timeline and `flowgate follow`.
 */

/**
 * How a wait ended: a reply served it, its time limit passed, a stop reached it (a wait inside ctx.nonCancellable
 * goes on, which the history does not show), a reset started the run again from before its end (the wait was in the
 * history the reset copied), or the run closed while it waited.
 */
export type FeedbackWaitEnd = 'feedback' | 'timed_out' | 'cancel_requested' | 'reset' | 'run_closed';

export interface FeedbackWait {
  /** Its `feedback_wait_started` event. */
  readonly eventId: number;
  /** ISO 8601 UTC: when the wait began. */
  readonly startedAt: string;
  /** The wait's time limit, when it has one. */
  readonly timeoutMs?: number;
  /** When it ended; absent while it waits. */
  readonly endedAt?: string;
  readonly end?: FeedbackWaitEnd;
  /** The `signal_received` event whose reply served it. */
  readonly replyEventId?: number;
}

/** The waits after one more event of the run's history (events in order). Returns `waits` itself when nothing changed. */
export function trackFeedbackWaits(waits: readonly FeedbackWait[], event: HistoryEvent): readonly FeedbackWait[] {
  const at = Date.parse(event.time);
  const next = endWhere(waits, (wait) => (dueAt(wait) ?? Infinity) <= at, (wait) => ({ end: 'timed_out', endedAt: new Date(dueAt(wait)!).toISOString() }));
  switch (event.type) {
    case 'feedback_wait_started': {
      const timeoutMs = event.attributes.timeoutMs;
      const wait: FeedbackWait = { eventId: event.eventId, startedAt: event.time, ...(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) ? { timeoutMs } : {}) };
      return [...next, wait];
    }
    case 'signal_received': {
      const served = next.findIndex(isOpen);
      if (served === -1) return next;
      return next.map((wait, index) => (index === served ? { ...wait, end: 'feedback', endedAt: event.time, replyEventId: event.eventId } : wait));
    }
    case 'workflow_cancel_requested':
      return endWhere(next, () => true, () => ({ end: 'cancel_requested', endedAt: event.time }));
    case 'workflow_reset':
      return endWhere(next, () => true, () => ({ end: 'reset', endedAt: event.time }));
    default:
      return isClosingEventType(event.type) ? endWhere(next, () => true, () => ({ end: 'run_closed', endedAt: event.time })) : next;
  }
}

/** The waits of a whole history. */
export function feedbackWaitsOf(events: readonly HistoryEvent[]): readonly FeedbackWait[] {
  let waits: readonly FeedbackWait[] = [];
  for (const event of events) waits = trackFeedbackWaits(waits, event);
  return waits;
}

/**
 * The wait the run is in at `now` (epoch ms), the oldest when several are: open, and its time limit not passed. The
 * history of an open run says nothing of a limit that passed a moment ago until its next event.
 */
export function currentFeedbackWait(waits: readonly FeedbackWait[], now: number): FeedbackWait | undefined {
  return waits.find((wait) => isOpen(wait) && (dueAt(wait) ?? Infinity) > now);
}

function isOpen(wait: FeedbackWait): boolean {
  return wait.end === undefined;
}

/** When a wait with a time limit gives up (epoch ms). */
function dueAt(wait: FeedbackWait): number | undefined {
  return wait.timeoutMs === undefined ? undefined : Date.parse(wait.startedAt) + wait.timeoutMs;
}

function endWhere(
  waits: readonly FeedbackWait[],
  ends: (wait: FeedbackWait) => boolean,
  how: (wait: FeedbackWait) => { end: FeedbackWaitEnd; endedAt: string },
): readonly FeedbackWait[] {
  if (!waits.some((wait) => isOpen(wait) && ends(wait))) return waits;
  return waits.map((wait) => (isOpen(wait) && ends(wait) ? { ...wait, ...how(wait) } : wait));
}
