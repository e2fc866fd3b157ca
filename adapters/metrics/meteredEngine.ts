import type { ScheduleEngine } from '../../ports/schedules.js';
import type { ControlKeys, HistoryPageQuery, ListRunsQuery, AwaitOptions, RunStreamItem, WorkflowEngine } from '../../ports/engine.js';
import type { Metrics } from '../../ports/metrics.js';
import { startedByThisCall, type RequestIdempotency } from '../../core/domain/idempotency.js';
import type { PinnedRunRef, RunRef, StartCommand } from '../../core/domain/run.js';

/**
 * The WorkflowEngine port with every call timed and its failures counted by operation, and the runs it starts
 * counted by workflow (a run only by the call that made it): one decorator instead of a metric in every use case. `followRun` is a stream whose length is
 * the run's, so it is not timed (open streams are an HTTP gauge).
 */
export class MeteredEngine implements WorkflowEngine {
  constructor(
    private readonly engine: WorkflowEngine,
    private readonly metrics: Metrics,
  ) {}

  get kind(): string {
    return this.engine.kind;
  }

  get controlKeys(): ControlKeys {
    return this.engine.controlKeys;
  }

  /** Schedule calls are few and rare: their request metrics say enough. */
  get schedules(): ScheduleEngine {
    return this.engine.schedules;
  }

  async start(command: StartCommand) {
    const run = await this.timed('start', () => this.engine.start(command));
    // A keyed start the engine answered with a run another request made (a concurrent duplicate) started nothing;
    // the core counts it as an idempotency hit.
    if (startedByThisCall(run, command.idempotency)) this.metrics.runStarted(run.workflowName);
    return run;
  }

  awaitOutcome(run: PinnedRunRef, options: AwaitOptions) {
    return this.timed('awaitOutcome', () => this.engine.awaitOutcome(run, options));
  }

  describe(run: RunRef) {
    return this.timed('describe', () => this.engine.describe(run));
  }

  getOutcome(run: RunRef) {
    return this.timed('getOutcome', () => this.engine.getOutcome(run));
  }

  getInput(run: PinnedRunRef) {
    return this.timed('getInput', () => this.engine.getInput(run));
  }

  historyPage(run: RunRef, query: HistoryPageQuery) {
    return this.timed('historyPage', () => this.engine.historyPage(run, query));
  }

  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem> {
    return this.engine.followRun(run, afterEventId, signal);
  }

  listRuns(query: ListRunsQuery) {
    return this.timed('listRuns', () => this.engine.listRuns(query));
  }

  cancel(run: RunRef, identity?: string) {
    return this.timed('cancel', () => this.engine.cancel(run, identity));
  }

  terminate(run: RunRef, reason: string, idempotency?: RequestIdempotency, identity?: string) {
    return this.timed('terminate', () => this.engine.terminate(run, reason, idempotency, identity));
  }

  async reset(run: RunRef, stepName: string, reason: string, idempotency?: RequestIdempotency, identity?: string) {
    return this.timed('reset', () => this.engine.reset(run, stepName, reason, idempotency, identity));
  }

  deliverFeedback(workflowId: string, payload: unknown, idempotency?: RequestIdempotency, identity?: string) {
    return this.timed('deliverFeedback', () => this.engine.deliverFeedback(workflowId, payload, idempotency, identity));
  }

  describeCatalog(catalog: string) {
    return this.timed('describeCatalog', () => this.engine.describeCatalog(catalog));
  }

  catalogsWithWorkflow(workflowName: string) {
    return this.timed('catalogsWithWorkflow', () => this.engine.catalogsWithWorkflow(workflowName));
  }

  health(signal: AbortSignal) {
    return this.timed('health', () => this.engine.health(signal));
  }

  private async timed<T>(operation: string, call: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    try {
      const result = await call();
      this.metrics.engineCall(operation, (performance.now() - startedAt) / 1000, false);
      return result;
    } catch (error) {
      this.metrics.engineCall(operation, (performance.now() - startedAt) / 1000, true);
      throw error;
    }
  }
}
