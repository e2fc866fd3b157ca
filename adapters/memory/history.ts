import { PROGRESS_BUFFER_SIZE } from '../../core/definition/progress.js';
import type { HistoryEvent, HistoryEventType } from '../../core/domain/history.js';
import type { ProgressEvent } from '../../core/domain/progress.js';
import type { Clock } from '../../ports/clock.js';
import type { RunStreamItem } from '../../ports/engine.js';

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

/**
 * A progress event and where it happened: after history event `position`. `ordinal` orders the whole log (entries
 * leave it when their step has too many); `runningSteps` are the steps open at that moment.
 */
interface ProgressEntry {
  ordinal: number;
  position: number;
  progress: ProgressEvent;
  runningSteps: readonly number[];
}

/**
 * One run's event history: ids 1, 2, 3… and listeners woken on every append (followers never poll). Beside it,
 * outside the history, the latest progress of each step (PROGRESS_BUFFER_SIZE per step call).
 */
export class RunHistory {
  private readonly list: HistoryEvent[];
  private readonly listeners = new Set<() => void>();
  private closed = false;
  private readonly progressLog: ProgressEntry[] = [];
  private progressOrdinal = 0;
  /** stepEventId of every step call that has not ended. */
  private readonly openSteps = new Set<number>();

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

  get progress(): readonly ProgressEntry[] {
    return this.progressLog;
  }

  /** A step call began (its step_scheduled event is `stepEventId`) or ended: progress names the open ones. */
  stepOpened(stepEventId: number): void {
    this.openSteps.add(stepEventId);
  }

  stepEnded(stepEventId: number): void {
    this.openSteps.delete(stepEventId);
  }

  /** Records progress after the latest event, dropping the step's oldest beyond its buffer, and wakes followers. */
  publishProgress(progress: ProgressEvent): void {
    if (this.closed) return;
    this.progressOrdinal += 1;
    this.progressLog.push({ ordinal: this.progressOrdinal, position: this.lastEventId, progress, runningSteps: [...this.openSteps] });
    // seq counts the step's progress from 1, so the step's entry that falls out of its buffer is known by its seq.
    const dropped = progress.seq - PROGRESS_BUFFER_SIZE;
    if (dropped >= 1) {
      const index = this.progressLog.findIndex((entry) => entry.progress.stepEventId === progress.stepEventId && entry.progress.seq === dropped);
      if (index !== -1) this.progressLog.splice(index, 1);
    }
    this.wake();
  }

  /** The first progress entry after `ordinal` (entries are in ordinal order). */
  progressAfter(ordinal: number): ProgressEntry | undefined {
    let low = 0;
    let high = this.progressLog.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.progressLog[middle]!.ordinal <= ordinal) low = middle + 1;
      else high = middle;
    }
    return this.progressLog[low];
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
    return new HistoryEvents(new HistoryFollower(this, Math.max(0, Math.floor(afterEventId)), signal, stopped, false));
  }

  /** Like follow(), with each progress event at its place: after the history event it followed. */
  followWithProgress(afterEventId: number, signal: AbortSignal, stopped: () => boolean): AsyncIterableIterator<RunStreamItem> {
    return new HistoryFollower(this, Math.max(0, Math.floor(afterEventId)), signal, stopped, true);
  }
}

/**
 * Existing events, then live ones, ending after the closing event; with `withProgress`, each progress event at its
 * place (progress published after event n had not been sent when n was the last event sent; earlier progress had).
 * A hand-written iterator rather than an async generator, so return() and abort take effect at once even while it
 * waits for the next event.
 */
class HistoryFollower implements AsyncIterableIterator<RunStreamItem> {
  private finished = false;
  private stopWaiting: (() => void) | undefined;
  private lastOrdinal: number;

  constructor(
    private readonly history: RunHistory,
    private nextIndex: number,
    private readonly signal: AbortSignal,
    private readonly stopped: () => boolean,
    private readonly withProgress: boolean,
  ) {
    // Progress published before event `nextIndex` was sent before it.
    this.lastOrdinal = history.progress.findLast((entry) => entry.position < nextIndex)?.ordinal ?? 0;
  }

  async next(): Promise<IteratorResult<RunStreamItem>> {
    while (!this.finished) {
      const entry = this.withProgress ? this.history.progressAfter(this.lastOrdinal) : undefined;
      if (entry && entry.position <= this.nextIndex) {
        this.lastOrdinal = entry.ordinal;
        return { value: { kind: 'progress', progress: entry.progress, runningSteps: entry.runningSteps }, done: false };
      }
      const event = this.history.events[this.nextIndex];
      if (event) {
        this.nextIndex += 1;
        if (isClosingEvent(event)) this.finished = true;
        return { value: { kind: 'history', event }, done: false };
      }
      if (this.history.isClosed || this.signal.aborted || this.stopped()) break;
      await this.waitForChange();
    }
    this.finished = true;
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<RunStreamItem>> {
    this.finished = true;
    this.stopWaiting?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<RunStreamItem> {
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

/** The history events of a follower without progress. */
class HistoryEvents implements AsyncIterableIterator<HistoryEvent> {
  constructor(private readonly items: HistoryFollower) {}

  async next(): Promise<IteratorResult<HistoryEvent>> {
    const result = await this.items.next();
    return result.done || result.value.kind !== 'history' ? { value: undefined, done: true } : { value: result.value.event, done: false };
  }

  async return(): Promise<IteratorResult<HistoryEvent>> {
    await this.items.return();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<HistoryEvent> {
    return this;
  }
}
