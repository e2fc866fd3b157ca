import { isClosingEventType } from '../../core/domain/history.js';
import type { RunStreamItem } from '../../ports/engine.js';
import type { RunHistory } from './runHistory.js';
import { materialize } from './historySize.js';

/**
 * Existing events, then live ones, ending after the closing event, and each progress event at its
 * place (progress published after event n had not been sent when n was the last event sent; earlier progress had).
 * A hand-written iterator rather than an async generator, so return() and abort take effect at once even while it
 * waits for the next event.
 */
export class HistoryFollower implements AsyncIterableIterator<RunStreamItem> {
  private finished = false;
  private stopWaiting: (() => void) | undefined;
  private lastOrdinal: number;

  constructor(
    private readonly history: RunHistory,
    private nextIndex: number,
    private readonly signal: AbortSignal,
    private readonly stopped: () => boolean,
  ) {
    // Progress published before event `nextIndex` was sent before it.
    this.lastOrdinal = history.progress.findLast((entry) => entry.position < nextIndex)?.ordinal ?? 0;
  }

  async next(): Promise<IteratorResult<RunStreamItem>> {
    while (!this.finished) {
      const entry = this.history.progressAfter(this.lastOrdinal);
      if (entry && entry.position <= this.nextIndex) {
        this.lastOrdinal = entry.ordinal;
        return { value: { kind: 'progress', progress: entry.progress, runningSteps: entry.runningSteps }, done: false };
      }
      const event = this.nextIndex < this.history.visibleCount ? this.history.events[this.nextIndex] : undefined;
      if (event) {
        this.nextIndex += 1;
        if (isClosingEventType(event.type)) this.finished = true;
        return { value: { kind: 'history', event: materialize(event) }, done: false };
      }
      if (this.history.closedVisibly || this.signal.aborted || this.stopped()) break;
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
