/** Engine-neutral history event types (docs/api.md, History). Engines may add others; they are documented there. */
export const HISTORY_EVENT_TYPES = [
  'workflow_started',
  'step_scheduled',
  'step_started',
  'step_completed',
  'step_failed',
  'timer_started',
  'timer_fired',
  'feedback_wait_started',
  'signal_received',
  'child_started',
  'child_completed',
  'child_failed',
  'workflow_completed',
  'workflow_failed',
  'workflow_cancel_requested',
  'workflow_cancelled',
  'workflow_terminated',
  'workflow_timed_out',
  'workflow_continued_as_new',
  'workflow_reset',
] as const;

export type HistoryEventType = (typeof HISTORY_EVENT_TYPES)[number];

/** The event types that end a run's history, on every engine: a follower stops after one, and nothing comes after. */
export const CLOSING_EVENT_TYPES: ReadonlySet<string> = new Set<HistoryEventType>([
  'workflow_completed',
  'workflow_failed',
  'workflow_cancelled',
  'workflow_terminated',
  'workflow_timed_out',
  'workflow_continued_as_new',
]);

/** Whether an event of this type ends a run's history. */
export function isClosingEventType(type: string): boolean {
  return CLOSING_EVENT_TYPES.has(type);
}

/**
 * The attributes of `feedback_wait_started`, which both engines record when a webhook wait begins for real (no reply
 * was buffered for it): its time limit, when it has one.
 */
export function feedbackWaitStartedAttributes(timeoutMs: number | undefined): { timeoutMs?: number } {
  return timeoutMs === undefined ? {} : { timeoutMs };
}

export interface HistoryEvent {
  /** Positive, increasing within a run; the SSE `id:` of the event. */
  eventId: number;
  type: HistoryEventType | (string & {});
  /** ISO 8601 UTC. */
  time: string;
  stepName?: string;
  attributes: Record<string, unknown>;
}

export interface HistoryPage {
  events: HistoryEvent[];
  nextPageToken: string | null;
}
