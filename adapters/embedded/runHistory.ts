import { PROGRESS_BUFFER_SIZE } from '../../core/definition/progress.js';
import { HISTORY_PAGE_MAX_BYTES, isClosingEventType, PageFill, type HistoryEvent, type HistoryEventType } from '../../core/domain/history.js';
import type { ProgressEvent } from '../../core/domain/progress.js';
import type { Clock } from '../../ports/clock.js';
import type { RunStreamItem } from '../../ports/engine.js';
import { HistoryFollower } from './historyFollower.js';
import { attributesBytes, eventSize, materialize } from './historySize.js';
import type { Payload } from './payload.js';

/**
 * A progress event and where it happened: after history event `position`. `ordinal` orders the whole log (entries
 * leave it when their step has too many); `runningSteps` are the steps open at that moment.
 */
export interface ProgressEntry {
  ordinal: number;
  position: number;
  progress: ProgressEvent;
  runningSteps: readonly number[];
  /** What keeping the entry costs, about. */
  bytes: number;
}

/** A progress entry without its fields: ids, names, times. */
const EVENT_PROGRESS_BYTES = 160;

/**
 * The byte cap of a history (Temporal: limit.historySize.warn and .error). Crossing `warnBytes` calls `onWarn`
 * once; crossing `maxBytes` calls `onExceeded` once, right after the event that crossed it (as Temporal checks a
 * history after it grew). Closing events are always recorded.
 */
export interface HistoryLimits {
  maxBytes: number;
  warnBytes: number;
  onWarn(bytes: number): void;
  onExceeded(bytes: number): void;
}

/** How a history meets its run's store. */
export interface HistoryJournal {
  /** Called after every append: the store writes the new events at its next commit. */
  onAppend(): void;
  /**
   * Readers see only the events the store has committed (the durable store), or every event at once (the memory
   * store: nothing to wait for). @default false
   */
  gated: boolean;
  /** Events already stored when the history is made (a run restored after a restart). @default 0 */
  committed: number;
}

const UNGATED: HistoryJournal = { onAppend: () => {}, gated: false, committed: 0 };

/**
 * One run's event history: ids 1, 2, 3… and listeners woken on every append (followers never poll). Beside it,
 * outside the history, the latest progress of each step (PROGRESS_BUFFER_SIZE per step call).
 *
 * Attributes hold payloads (payload.ts) as the engine keeps them; readers get events with the payloads decoded
 * (`page`, the followers). The history counts its bytes as it grows (historySize.ts).
 *
 * On the durable store readers see an event only once it is committed (`visibleCount`): nothing a reader was shown
 * can be lost in a crash. The engine itself works with every event (`events`, `lastEventId`).
 */
export class RunHistory {
  private readonly list: HistoryEvent[];
  /** Each event's bytes as JSON (historySize.ts), by index: what a page's byte budget is counted in. */
  private readonly sizes: number[] = [];
  private readonly listeners = new Set<() => void>();
  private closed = false;
  private readonly progressLog: ProgressEntry[] = [];
  private progressOrdinal = 0;
  /** stepEventId of every step call that has not ended. */
  private readonly openSteps = new Set<number>();
  private logicalBytes = 0;
  private retainedEventBytes = 0;
  private progressBytes = 0;
  /** The payloads counted in `retainedEventBytes`; dropped once the history is closed. */
  private seen: Set<Payload> | undefined = new Set();
  private warned = false;
  private exceeded = false;

  private committed: number;

  /**
   * `prefix`: events copied from another run (reset), or the run's own stored events (restart); they keep their ids,
   * times and attributes.
   */
  constructor(
    private readonly clock: Clock,
    prefix: readonly HistoryEvent[] = [],
    private readonly limits?: HistoryLimits,
    private readonly journal: HistoryJournal = UNGATED,
  ) {
    this.list = prefix.map((event) => ({ ...event }));
    for (const event of this.list) this.count(event);
    this.committed = journal.committed;
    this.closed = this.list.some((event) => isClosingEventType(event.type));
  }

  /** How many events readers may see: the committed ones. */
  get visibleCount(): number {
    return this.journal.gated ? this.committed : this.list.length;
  }

  /** The store committed the first `count` events: readers see them now. */
  markCommitted(count: number): void {
    if (count <= this.committed) return;
    this.committed = count;
    this.wake();
  }

  /** Whether readers have seen the end: the closing event is appended and visible. */
  get closedVisibly(): boolean {
    return this.closed && this.visibleCount === this.list.length;
  }

  /** The events as the engine keeps them (payloads not decoded): for the engine itself, never for a reader. */
  get events(): readonly HistoryEvent[] {
    return this.list;
  }

  /** Visible events from `offset`, at most `size` and about `maxBytes` of them (HISTORY_PAGE_MAX_BYTES), payloads decoded. */
  page(offset: number, size: number, maxBytes: number = HISTORY_PAGE_MAX_BYTES): HistoryEvent[] {
    const visible = this.visibleCount;
    const fill = new PageFill(size, maxBytes);
    let end = offset;
    while (end < visible && fill.takes(this.sizes[end]!)) end += 1;
    return this.list.slice(offset, end).map(materialize);
  }

  /** The history as JSON, each event in full: what the cap is checked against. */
  get sizeBytes(): number {
    return this.logicalBytes;
  }

  /** What keeping this history costs: each payload once, plus its progress events. */
  get retainedBytes(): number {
    return this.retainedEventBytes + this.progressBytes;
  }

  get lastEventId(): number {
    return this.list.length;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** `at`: the event's time when it was decided earlier than now (a closing event: the run's closedAt). */
  append(type: HistoryEventType, attributes: Record<string, unknown>, stepName?: string, at?: Date): HistoryEvent {
    if (this.closed) throw new Error(`history is closed; cannot append ${type}`);
    const event: HistoryEvent = {
      eventId: this.list.length + 1,
      type,
      time: (at ?? new Date(this.clock.now())).toISOString(),
      ...(stepName === undefined ? {} : { stepName }),
      attributes,
    };
    this.list.push(event);
    this.count(event);
    if (isClosingEventType(type)) {
      this.closed = true;
      this.seen = undefined;
    } else {
      this.checkLimits();
    }
    this.journal.onAppend();
    if (!this.journal.gated) this.wake();
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
    // Fields are at most MAX_PROGRESS_FIELDS_BYTES (4 KiB) as JSON: measuring them again is cheap.
    const bytes = EVENT_PROGRESS_BYTES + (JSON.stringify(progress.fields)?.length ?? 0) + 4 * this.openSteps.size;
    this.progressLog.push({ ordinal: this.progressOrdinal, position: this.lastEventId, progress, runningSteps: [...this.openSteps], bytes });
    this.progressBytes += bytes;
    // seq counts the step's progress from 1, so the step's entry that falls out of its buffer is known by its seq.
    const dropped = progress.seq - PROGRESS_BUFFER_SIZE;
    if (dropped >= 1) {
      const index = this.progressLog.findIndex((entry) => entry.progress.stepEventId === progress.stepEventId && entry.progress.seq === dropped);
      if (index !== -1) this.progressBytes -= this.progressLog.splice(index, 1)[0]!.bytes;
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

  /** Adds small attributes to an existing event (the copied workflow_started of a reset run). */
  addAttributes(eventId: number, added: Record<string, string>): void {
    const event = this.list[eventId - 1];
    if (!event) return;
    this.list[eventId - 1] = { ...event, attributes: { ...event.attributes, ...added } };
    const bytes = attributesBytes(added);
    this.sizes[eventId - 1]! += bytes;
    this.logicalBytes += bytes;
    this.retainedEventBytes += bytes;
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

  private count(event: HistoryEvent): void {
    const size = eventSize(event, this.seen ?? new Set());
    this.sizes.push(size.logical);
    this.logicalBytes += size.logical;
    this.retainedEventBytes += size.retained;
  }

  private checkLimits(): void {
    const { limits } = this;
    if (!limits) return;
    if (!this.warned && this.logicalBytes > limits.warnBytes) {
      this.warned = true;
      limits.onWarn(this.logicalBytes);
    }
    if (!this.exceeded && this.logicalBytes > limits.maxBytes) {
      this.exceeded = true;
      limits.onExceeded(this.logicalBytes);
    }
  }

  /** Events after `afterEventId`, then live ones, with each progress event at its place (HistoryFollower). */
  follow(afterEventId: number, signal: AbortSignal, stopped: () => boolean): AsyncIterableIterator<RunStreamItem> {
    return new HistoryFollower(this, Math.max(0, Math.floor(afterEventId)), signal, stopped);
  }
}
