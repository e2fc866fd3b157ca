import type { HistoryEvent, HistoryEventType } from '../../core/domain/history.js';
import type { Clock } from '../../ports/clock.js';

const CLOSING_EVENT_TYPES: ReadonlySet<string> = new Set<HistoryEventType>([
  'workflow_completed',
  'workflow_failed',
  'workflow_cancelled',
  'workflow_terminated',
  'workflow_timed_out',
  'workflow_continued_as_new',
]);

export function isClosingEvent(event: HistoryEvent): boolean {
  return CLOSING_EVENT_TYPES.has(event.type);
}

/** One run's event history: ids 1, 2, 3… and listeners woken on every append (followers never poll). */
export class RunHistory {
  private readonly list: HistoryEvent[];
  private readonly listeners = new Set<() => void>();
  private closed = false;

  /** `prefix`: events copied from another run (reset); they keep their ids, times and attributes. */
  constructor(
    private readonly clock: Clock,
    prefix: readonly HistoryEvent[] = [],
  ) {
    this.list = prefix.map((event) => ({ ...event }));
  }

  get events(): readonly HistoryEvent[] {
    return this.list;
  }

  get lastEventId(): number {
    return this.list.length;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  append(type: HistoryEventType, attributes: Record<string, unknown>, stepName?: string): HistoryEvent {
    if (this.closed) throw new Error(`history is closed; cannot append ${type}`);
    const event: HistoryEvent = {
      eventId: this.list.length + 1,
      type,
      time: new Date(this.clock.now()).toISOString(),
      ...(stepName === undefined ? {} : { stepName }),
      attributes,
    };
    this.list.push(event);
    if (CLOSING_EVENT_TYPES.has(type)) this.closed = true;
    this.wake();
    return event;
  }

  /** Replaces the attributes of an existing event (the copied workflow_started of a reset run). */
  amend(eventId: number, attributes: Record<string, unknown>): void {
    const event = this.list[eventId - 1];
    if (event) this.list[eventId - 1] = { ...event, attributes };
  }

  /** Calls `listener` once, at the next append or wake(). Returns the function that unsubscribes it. */
  onChange(listener: () => void): () => void {
    const once = (): void => {
      this.listeners.delete(once);
      listener();
    };
    this.listeners.add(once);
    return () => this.listeners.delete(once);
  }

  /** Wakes every follower (after an append, or when the engine closes). */
  wake(): void {
    if (this.listeners.size === 0) return;
    for (const listener of [...this.listeners]) listener();
  }

  follow(afterEventId: number, signal: AbortSignal, stopped: () => boolean): AsyncIterableIterator<HistoryEvent> {
    return new HistoryFollower(this, Math.max(0, Math.floor(afterEventId)), signal, stopped);
  }
}

/**
 * Existing events, then live ones, ending after the closing event. A hand-written iterator rather than an async
 * generator, so return() and abort take effect at once even while it waits for the next event.
 */
class HistoryFollower implements AsyncIterableIterator<HistoryEvent> {
  private finished = false;
  private stopWaiting: (() => void) | undefined;

  constructor(
    private readonly history: RunHistory,
    private nextIndex: number,
    private readonly signal: AbortSignal,
    private readonly stopped: () => boolean,
  ) {}

  async next(): Promise<IteratorResult<HistoryEvent>> {
    while (!this.finished) {
      const event = this.history.events[this.nextIndex];
      if (event) {
        this.nextIndex += 1;
        if (isClosingEvent(event)) this.finished = true;
        return { value: event, done: false };
      }
      if (this.history.isClosed || this.signal.aborted || this.stopped()) break;
      await this.waitForChange();
    }
    this.finished = true;
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<HistoryEvent>> {
    this.finished = true;
    this.stopWaiting?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<HistoryEvent> {
    return this;
  }

  private waitForChange(): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.stopWaiting = undefined;
        unsubscribe();
        this.signal.removeEventListener('abort', wake);
        resolve();
      };
      const unsubscribe = this.history.onChange(wake);
      this.signal.addEventListener('abort', wake, { once: true });
      this.stopWaiting = wake;
    });
  }
}
