import type { ScheduleEngine } from '../../ports/schedules.js';
import type { CatalogDescription } from '../../core/domain/catalog.js';
import type { HistoryPage } from '../../core/domain/history.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../../core/domain/run.js';
import type { RequestIdempotency } from '../../core/domain/idempotency.js';
import type { AwaitOptions, ControlKeys, HistoryPageQuery, ListRunsQuery, RunList, RunStreamItem, WorkflowEngine } from '../../ports/engine.js';
import { silentRunObserver, type RunObserver } from '../../ports/runObserver.js';
import { settle, type VirtualClock } from './virtualClock.js';

/**
 * Skips a VirtualClock ahead while someone waits on a run, as Temporal's time-skipping test server does: whenever no
 * step attempt is running and the work the last timer released has settled, the next timer fires at once. So a
 * workflow that sleeps a day finishes in milliseconds, its timers in order. Waits' own time limits are real time
 * (the embedded engine's awaitOutcome), so a wait never times out before the run it waits for.
 */
export class TimeSkipper {
  private waiting = 0;
  private attempts = 0;
  private looping = false;
  private wake: (() => void) | undefined;
  private readonly stopListening: () => void;

  constructor(private readonly clock: VirtualClock) {
    this.stopListening = clock.onTimerSet(() => this.changed());
  }

  /** The worker's observer, counting step attempts in flight (time never skips under a running step). */
  observe(inner: RunObserver = silentRunObserver): RunObserver {
    return {
      runStarted: (details) => inner.runStarted(details),
      runEnded: (details, end) => inner.runEnded(details, end),
      activityAttempt: async (attempt, run, aggregated, failedEarly) => {
        this.attempts += 1;
        try {
          return await inner.activityAttempt(attempt, run, aggregated, failedEarly);
        } finally {
          this.attempts -= 1;
          this.changed();
        }
      },
    };
  }

  /** Skips time until `work` settles. */
  async whileWaiting<T>(work: Promise<T>): Promise<T> {
    this.waiting += 1;
    void this.loop();
    try {
      return await work;
    } finally {
      this.waiting -= 1;
      this.changed();
    }
  }

  /** The same for every item of a stream (a history stream follows a run to its end). */
  async *whileStreaming<T>(items: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
    const iterator = items[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await this.whileWaiting(iterator.next());
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }

  close(): void {
    this.stopListening();
    this.waiting = 0;
    this.changed();
  }

  private async loop(): Promise<void> {
    if (this.looping) return;
    this.looping = true;
    try {
      while (this.waiting > 0) {
        await settle();
        if (this.waiting === 0) break;
        if (this.attempts === 0 && this.clock.pendingTimers > 0) {
          await this.clock.fireNext();
          continue;
        }
        // Nothing to skip to now: a step is running, or the run waits on what only the test can give (feedback).
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.looping = false;
    }
  }

  private changed(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** An engine whose waits (a result, a history stream) skip the test clock ahead while they wait. */
export class TimeSkippingEngine implements WorkflowEngine {
  readonly kind: string;
  readonly controlKeys: ControlKeys;

  constructor(
    private readonly engine: WorkflowEngine,
    private readonly skipper: TimeSkipper,
  ) {
    this.kind = engine.kind;
    this.controlKeys = engine.controlKeys;
  }

  get schedules(): ScheduleEngine {
    return this.engine.schedules;
  }

  start(command: StartCommand): Promise<RunDescription> {
    return this.engine.start(command);
  }
  awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined> {
    return this.skipper.whileWaiting(this.engine.awaitOutcome(run, options));
  }
  describe(run: RunRef): Promise<RunDescription> {
    return this.engine.describe(run);
  }
  getOutcome(run: RunRef): Promise<RunOutcome> {
    return this.engine.getOutcome(run);
  }
  getInput(run: PinnedRunRef): Promise<unknown> {
    return this.engine.getInput(run);
  }
  historyPage(run: RunRef, query: HistoryPageQuery): Promise<{ run: RunDescription; page: HistoryPage }> {
    return this.engine.historyPage(run, query);
  }
  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem> {
    return this.skipper.whileStreaming(this.engine.followRun(run, afterEventId, signal));
  }
  listRuns(query: ListRunsQuery): Promise<RunList> {
    return this.engine.listRuns(query);
  }
  cancel(run: RunRef, identity?: string): Promise<RunDescription> {
    return this.engine.cancel(run, identity);
  }
  terminate(run: RunRef, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<RunDescription> {
    return this.engine.terminate(run, reason, idempotency, identity);
  }
  reset(run: RunRef, stepName: string, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    return this.engine.reset(run, stepName, reason, idempotency, identity);
  }
  deliverFeedback(workflowId: string, payload: unknown, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    return this.engine.deliverFeedback(workflowId, payload, idempotency, identity);
  }
  describeCatalog(catalog: string): Promise<CatalogDescription | undefined> {
    return this.engine.describeCatalog(catalog);
  }
  catalogsWithWorkflow(workflowName: string): Promise<string[]> {
    return this.engine.catalogsWithWorkflow(workflowName);
  }
  health(signal: AbortSignal): Promise<void> {
    return this.engine.health(signal);
  }
}
