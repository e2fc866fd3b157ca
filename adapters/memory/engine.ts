import { addProgressSink } from '../../core/definition/progress.js';
import { addStepRouter } from '../../core/definition/stepRouting.js';
import type { CatalogDescription } from '../../core/domain/catalog.js';
import { EngineUnavailableError, ValidationError, WorkflowClosedError, WorkflowNotCompletedError, WorkflowNotFoundError } from '../../core/domain/errors.js';
import type { HistoryEvent, HistoryPage } from '../../core/domain/history.js';
import { assertWorkflowId } from '../../core/domain/ids.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../../core/domain/run.js';
import type { AwaitOptions, HistoryPageQuery, ListRunsQuery, RunList, RunStreamItem, WorkflowEngine } from '../../ports/engine.js';
import { awaitChainOutcome } from './awaitOutcome.js';
import { CatalogRegistry, type WorkerHandle, type WorkerRegistration } from './catalogs.js';
import { jsonCopy } from './json.js';
import { listRuns } from './listRuns.js';
import { checkOptions, type MemoryEngineOptions } from './options.js';
import { PageTokens } from './pageTokens.js';
import { resetRun } from './reset.js';
import { jsonValue, RunLifecycle } from './runLifecycle.js';
import type { RunRecord } from './runRecord.js';
import { RunStore } from './runStore.js';
import { executeStep } from './stepExecution.js';
import { TimerRegistry } from './timers.js';
import { waitClock } from '../system/systemClock.js';

/**
 * The embedded engine: runs registered workflow definitions in this process with a real event history, mirroring
 * Temporal's semantics closely enough to stand in for the Temporal adapter in tests.
 */
export class MemoryEngine implements WorkflowEngine {
  readonly kind = 'memory';
  private readonly catalogs: CatalogRegistry;
  private readonly store: RunStore;
  private readonly timers: TimerRegistry;
  /**
   * The time limits of callers' waits (awaitOutcome's timeoutMs) run on real time, not on the engine's clock: a test
   * clock that skips ahead to a run's next timer must not end a wait for that very run first. Real time is what the
   * caller's own limit means (POST /workflow/run's `timeout`, a long-poll's `wait`).
   */
  private readonly waitTimers = new TimerRegistry(waitClock);
  private readonly lifecycle: RunLifecycle;
  private readonly tokens = new PageTokens();
  private readonly awaiterShutdowns = new Set<() => void>();
  private readonly removeStepRouter: () => void;
  private readonly removeProgressSink: () => void;
  private closed = false;

  constructor(options: MemoryEngineOptions) {
    const checked = checkOptions(options);
    this.catalogs = new CatalogRegistry(checked.logger);
    this.store = new RunStore(checked.maxClosedRuns);
    this.timers = new TimerRegistry(checked.clock);
    this.lifecycle = new RunLifecycle(checked, this.store, this.catalogs, this.timers);
    const scopes = this.lifecycle.scopes;
    // Only calls made inside one of this engine's runs are ours; anything else is left to other routers.
    this.removeStepRouter = addStepRouter({
      route: (activity, input) => {
        const scope = scopes.getStore();
        if (!scope) return undefined;
        return executeStep(scope, this.catalogs.stepFor(scope.execution.record.description.catalog, activity), input);
      },
    });
    const attempts = this.lifecycle.stepAttempts;
    this.removeProgressSink = addProgressSink({
      publish: (fields) => {
        const attempt = attempts.getStore();
        attempt?.publish(fields);
        return attempt !== undefined;
      },
    });
  }

  /** A worker serving a catalog (Temporal: polling a task queue) with these workflows. */
  registerWorker(registration: WorkerRegistration): WorkerHandle {
    return this.catalogs.register(registration);
  }

  async start(command: StartCommand): Promise<RunDescription> {
    this.assertOpen();
    assertWorkflowId(command.workflowId);
    const { idempotency } = command;
    // A retried keyed start (Temporal: the same request id) gets the run it started, open or closed.
    const latest = this.store.latest(command.workflowId);
    if (idempotency && latest?.description.idempotency?.requestId === idempotency.requestId) return latest.snapshot();
    const definition = this.catalogs.definitionFor(command.catalog, command.workflowName);
    this.lifecycle.assertIdFree(command.workflowId);
    const input = jsonValue(command.input, 'input');
    const callback = command.callback ? { url: command.callback.url, retryForMs: command.callback.retryForMs } : undefined;
    return this.lifecycle
      .createRun({
        definition,
        workflowId: command.workflowId,
        catalog: command.catalog,
        input,
        ...(callback ? { callback } : {}),
        ...(idempotency ? { idempotency: { ...idempotency } } : {}),
      })
      .snapshot();
  }

  async awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined> {
    const record = this.store.find(run);
    if (this.closed) return record.closed ? record.outcome() : undefined;
    return awaitChainOutcome(record, this.waitTimers, options, this.awaiterShutdowns);
  }

  async describe(run: RunRef): Promise<RunDescription> {
    return this.store.find(run).snapshot();
  }

  async getOutcome(run: RunRef): Promise<RunOutcome> {
    const record = this.store.find(run);
    if (!record.closed) {
      const { workflowId, runId } = record.description;
      throw new WorkflowNotCompletedError(`Workflow ${workflowId} run ${runId} is still running`, { workflowId, runId });
    }
    return record.outcome();
  }

  async getInput(run: PinnedRunRef): Promise<unknown> {
    return jsonCopy(this.store.find(run).input);
  }

  async historyPage(run: RunRef, query: HistoryPageQuery): Promise<{ run: RunDescription; page: HistoryPage }> {
    const { pageSize, pageToken } = query;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 200) {
      const message = 'pageSize must be an integer from 1 to 200';
      throw new ValidationError(message, { issues: [{ code: 'invalid_page_size', path: ['pageSize'], message }] });
    }
    const record = this.store.find(run);
    const { workflowId, runId } = record.description;
    const scope = JSON.stringify(['history', workflowId, runId]);
    const offset = pageToken === undefined ? 0 : (this.tokens.read(scope, pageToken).o ?? 0);
    const all = record.history.events;
    const events = all.slice(offset, offset + pageSize);
    const end = offset + events.length;
    const nextPageToken = end < all.length ? this.tokens.issue(scope, { o: end }) : null;
    return { run: record.snapshot(), page: { events, nextPageToken } };
  }

  followHistory(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<HistoryEvent> {
    return this.store.find(run).history.follow(afterEventId, signal, () => this.closed);
  }

  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem> {
    return this.store.find(run).history.followWithProgress(afterEventId, signal, () => this.closed);
  }

  async listRuns(query: ListRunsQuery): Promise<RunList> {
    return listRuns(this.store.all(), this.tokens, query);
  }

  async cancel(run: RunRef): Promise<RunDescription> {
    const record = this.openRun(run);
    this.lifecycle.requestCancel(record);
    return record.snapshot();
  }

  async terminate(run: RunRef, reason: string): Promise<RunDescription> {
    const record = this.openRun(run);
    await this.lifecycle.terminate(record, reason);
    return record.snapshot();
  }

  async reset(run: RunRef, stepName: string, reason: string): Promise<PinnedRunRef> {
    this.assertOpen();
    return resetRun({ store: this.store, lifecycle: this.lifecycle, catalogs: this.catalogs }, run, stepName, reason);
  }

  async deliverFeedback(workflowId: string, payload: unknown): Promise<PinnedRunRef> {
    const latest = this.store.latest(workflowId);
    if (!latest) throw new WorkflowNotFoundError(`Workflow ${workflowId} not found`, { workflowId });
    const record = this.openRun({ workflowId, runId: latest.description.runId });
    const value = jsonValue(payload, 'payload');
    const event = record.history.append('signal_received', { signalName: 'feedback', payload: value });
    record.execution.inbox.deliver(value, event.eventId);
    return { workflowId, runId: record.description.runId };
  }

  async describeCatalog(catalog: string): Promise<CatalogDescription | undefined> {
    return this.catalogs.describe(catalog);
  }

  async catalogsWithWorkflow(workflowName: string): Promise<string[]> {
    return this.catalogs.catalogsWith(workflowName);
  }

  async health(signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    this.assertOpen();
  }

  /**
   * Stops the engine: timers cleared, step router removed, waiting callers released (awaitOutcome resolves
   * undefined, history followers end). Open runs stay open and make no more progress. Safe to call twice.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.removeStepRouter();
    this.removeProgressSink();
    this.timers.closeAll();
    this.waitTimers.closeAll();
    for (const giveUp of [...this.awaiterShutdowns]) giveUp();
    for (const record of this.store.open()) {
      // Steps still in flight finish into the void instead of resuming workflow code on a stopped engine.
      record.execution.abandon();
      record.history.wake();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new EngineUnavailableError('The memory engine is closed');
  }

  /** The run, which must still be open: WorkflowClosedError once its close is decided. */
  private openRun(run: RunRef): RunRecord {
    const record = this.store.find(run);
    if (record.closing) {
      const { workflowId, runId } = record.description;
      throw new WorkflowClosedError(`Workflow ${workflowId} run ${runId} is already closed (${record.description.status})`, {
        workflowId,
        runId,
      });
    }
    return record;
  }
}
