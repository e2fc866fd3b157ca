import { addProgressSink } from '../../core/definition/progress.js';
import { addStepRouter } from '../../core/definition/stepRouting.js';
import type { CatalogDescription } from '../../core/domain/catalog.js';
import { EngineUnavailableError, FlowgateError, ValidationError, WorkflowClosedError, WorkflowNotCompletedError, WorkflowNotFoundError } from '../../core/domain/errors.js';
import type { HistoryPage } from '../../core/domain/history.js';
import { assertWorkflowId } from '../../core/domain/ids.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../../core/domain/run.js';
import type { AwaitOptions, ControlKeys, HistoryPageQuery, ListRunsQuery, RunList, RunStreamItem, WorkflowEngine } from '../../ports/engine.js';
import { awaitChainOutcome } from './awaitOutcome.js';
import { CatalogRegistry, type WorkerHandle, type WorkerRegistration } from './catalogs.js';
import { KeyRecords } from './keyRecords.js';
import { listRuns } from './listRuns.js';
import { checkOptions, type EmbeddedEngineOptions } from './options.js';
import { PageTokens } from './pageTokens.js';
import { resetRun } from './reset.js';
import { payloadOf, RunLifecycle } from './runLifecycle.js';
import type { RunRecord } from './runRecord.js';
import { RunStore, type StoreUsage } from './runStore.js';
import { executeStep } from './stepExecution.js';
import { TimerRegistry } from './timers.js';
import { waitClock } from '../system/systemClock.js';

/**
 * The embedded engine: runs registered workflow definitions in this process with a real event history, mirroring
 * Temporal's semantics closely enough to stand in for the Temporal adapter in tests.
 */
export class EmbeddedEngine implements WorkflowEngine {
  readonly kind = 'memory';
  /**
   * Feedback, terminate and reset take no Idempotency-Key: the engine lives and ends with the one API process, whose
   * own answers (core/idempotency/localAnswers.ts) are all a retry can reach.
   */
  readonly controlKeys: ControlKeys = 'kept-by-api-process';
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
  /** What keyed starts need once their runs are forgotten (keyRecords.ts). */
  private readonly keys: KeyRecords;
  private readonly tokens = new PageTokens();
  private readonly awaiterShutdowns = new Set<() => void>();
  private readonly removeStepRouter: () => void;
  private readonly removeProgressSink: () => void;
  private closed = false;

  constructor(options: EmbeddedEngineOptions) {
    const checked = checkOptions(options);
    this.catalogs = new CatalogRegistry(checked.logger);
    this.store = new RunStore(checked.maxClosedRuns, checked.maxClosedBytes);
    this.timers = new TimerRegistry(checked.clock);
    this.keys = new KeyRecords(checked.clock, checked.idempotencyRetentionMs, checked.maxIdempotencyBytes);
    this.lifecycle = new RunLifecycle(checked, this.store, this.catalogs, this.timers, this.keys);
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
    // A retried keyed start (Temporal: the same request id) gets the run it started, open, closed or forgotten.
    const latest = this.store.latest(command.workflowId);
    if (idempotency) {
      const started = latest ? latest.snapshot() : this.keys.keyedRun(command.workflowId);
      if (started?.idempotency?.requestId === idempotency.requestId) return started;
    }
    const definition = this.catalogs.definitionFor(command.catalog, command.workflowName);
    this.lifecycle.assertIdFree(command.workflowId);
    if (idempotency) this.keys.admit(command.workflowId);
    const input = payloadOf(command.input, 'input');
    const callback = command.callback ? { url: command.callback.url, retryForMs: command.callback.retryForMs } : undefined;
    return this.lifecycle
      .createRun({
        definition,
        workflowId: command.workflowId,
        catalog: command.catalog,
        input,
        ...(callback ? { callback } : {}),
        ...(idempotency ? { idempotency: { ...idempotency } } : {}),
        ...(command.rerunOf ? { rerunOf: { workflowId: command.rerunOf.workflowId, runId: command.rerunOf.runId } } : {}),
      })
      .snapshot();
  }

  async awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined> {
    const followChain = options.followChain ?? true;
    // A forgotten run: its chain's runs still kept, or what its key record answers with.
    const record = this.store.lookup(run) ?? (followChain ? this.keptRunOfChain(run) : undefined);
    if (!record) return this.keys.outcome(run, { chainEnd: followChain }) ?? this.store.notFound(run);
    if (this.closed) return record.closed ? record.outcome() : undefined;
    return awaitChainOutcome(record, this.waitTimers, options, this.awaiterShutdowns);
  }

  async describe(run: RunRef): Promise<RunDescription> {
    return this.store.lookup(run)?.snapshot() ?? this.keys.describe(run) ?? this.store.notFound(run);
  }

  async getOutcome(run: RunRef): Promise<RunOutcome> {
    const record = this.store.lookup(run);
    if (!record) return this.keys.outcome(run) ?? this.store.notFound(run);
    if (!record.closed) {
      const { workflowId, runId } = record.description;
      throw new WorkflowNotCompletedError(`Workflow ${workflowId} run ${runId} is still running`, { workflowId, runId });
    }
    return record.outcome();
  }

  async getInput(run: PinnedRunRef): Promise<unknown> {
    const record = this.store.lookup(run);
    if (record) return record.input.value();
    // A chain's first run may be forgotten while later runs of its chain are kept: they carry its input.
    const laterRun = this.store.runsOf(run.workflowId).find((kept) => kept.description.firstRunId === run.runId);
    if (laterRun) return laterRun.chainInput.value();
    return this.store.find(run).input.value();
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
    const events = record.history.page(offset, pageSize);
    const end = offset + events.length;
    const nextPageToken = end < record.history.lastEventId ? this.tokens.issue(scope, { o: end }) : null;
    return { run: record.snapshot(), page: { events, nextPageToken } };
  }

  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem> {
    return this.store.find(run).history.follow(afterEventId, signal, () => this.closed);
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
    if (!latest) {
      const kept = this.keys.describe({ workflowId });
      if (kept) throw closedError(kept);
      throw new WorkflowNotFoundError(`Workflow ${workflowId} not found`, { workflowId });
    }
    const record = this.openRun({ workflowId, runId: latest.description.runId });
    const value = record.execution.intern(payloadOf(payload, 'payload'));
    // Past MEMORY_MAX_HISTORY_BYTES this append closes the run (recorded, then terminated, as on Temporal).
    const event = record.history.append('signal_received', { signalName: 'feedback', payload: value });
    record.execution.inbox.deliver(value, event.eventId);
    return { workflowId, runId: record.description.runId };
  }

  /** What the engine holds now: runs open and closed, the bytes the closed ones keep, key records (docs/reliability.md). */
  usage(): EngineUsage {
    return { ...this.store.usage(), ...this.keys.usage };
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

  /** The run, which must still be open: WorkflowClosedError once its close is decided (or it is only a key record). */
  private openRun(run: RunRef): RunRecord {
    const record = this.store.lookup(run);
    if (!record) {
      const kept = this.keys.describe(run);
      if (kept) throw closedError(kept);
      this.store.notFound(run);
    }
    if (record.closing) throw closedError(record.description);
    return record;
  }

  /** The latest run kept of the chain that `run` began (when `run` itself is forgotten). */
  private keptRunOfChain(run: PinnedRunRef): RunRecord | undefined {
    return this.store.runsOf(run.workflowId).findLast((kept) => kept.description.firstRunId === run.runId);
  }
}

/** What EmbeddedEngine.usage() reports. */
export type EngineUsage = StoreUsage & { keyRecords: number; keyRecordBytes: number };

function closedError({ workflowId, runId, status }: RunDescription): FlowgateError {
  return new WorkflowClosedError(`Workflow ${workflowId} run ${runId} is already closed (${status})`, { workflowId, runId });
}
