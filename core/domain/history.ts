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

/**
 * `attributes.identity` of the event of a change (a start, feedback, stop, terminate, reset or rerun): the id of the
 * API key that made it (docs/security.md, Who did what). Left out when no key acted.
 */
export function identityAttribute(identity: string | undefined): { identity?: string } {
  return identity === undefined ? {} : { identity };
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

/**
 * About how many bytes of events, as JSON, one history page holds (docs/api.md, History): a page ends before the
 * event that would take it past this, however many `pageSize` allows, and its `nextPageToken` continues there. A page
 * holds at least one event, however large. What a client that does not read its page holds of the server is so
 * bounded by this, not by `pageSize` times the largest event.
 */
export const HISTORY_PAGE_MAX_BYTES = 1024 * 1024;

/**
 * The events of one page as it fills: up to `pageSize` of them, ending before the event that would take the page past
 * `maxBytes`, and at least one. Engines measure an event as they can without encoding it again (about its JSON).
 */
export class PageFill {
  private count = 0;
  private bytes = 0;

  constructor(
    private readonly pageSize: number,
    private readonly maxBytes: number = HISTORY_PAGE_MAX_BYTES,
  ) {}

  /** Whether an event of `size` bytes would join the page. */
  fits(size: number): boolean {
    return this.count < this.pageSize && (this.count === 0 || this.bytes + size <= this.maxBytes);
  }

  add(size: number): void {
    this.count += 1;
    this.bytes += size;
  }

  /** Whether an event of `size` bytes joins the page; if it does, it is counted. */
  takes(size: number): boolean {
    if (!this.fits(size)) return false;
    this.add(size);
    return true;
  }
}
