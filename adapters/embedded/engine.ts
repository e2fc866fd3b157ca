import { addProgressSink } from '../../core/definition/progress.js';
import { addStepRouter } from '../../core/definition/stepRouting.js';
import type { CatalogDescription } from '../../core/domain/catalog.js';
import { EngineUnavailableError, FlowgateError, IdempotencyKeyReusedError, runStillRunning, WorkflowNotFoundError } from '../../core/domain/errors.js';
import { checkHistoryPageSize } from '../../core/domain/requestBounds.js';
import { closedError, closingError, notFound } from './runErrors.js';
import { identityAttribute, type HistoryPage } from '../../core/domain/history.js';
import { assertWorkflowId } from '../../core/domain/ids.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../../core/domain/run.js';
import type { RequestIdempotency } from '../../core/domain/idempotency.js';
import type { AwaitOptions, ControlKeys, HistoryPageQuery, ListRunsQuery, RunList, RunStreamItem, WorkflowEngine } from '../../ports/engine.js';
import { awaitChainOutcome } from './awaitOutcome.js';
import { CatalogRegistry, type WorkerHandle, type WorkerRegistration } from './catalogs.js';
import { LiveRuns } from './liveRuns.js';
import { checkOptions, type CheckedOptions, type EmbeddedEngineOptions } from './options.js';
import { PageTokens } from '../pageTokens.js';
import { isStorePosition } from './pageTokens.js';
import { listStoredRuns } from './listRuns.js';
import { resetRun } from './reset.js';
import { payloadOf, RunLifecycle } from './runLifecycle.js';
import { RunRecord } from './runRecord.js';
import { executeStep } from './stepExecution.js';
import { TimerRegistry } from './timers.js';
import { waitClock } from '../system/systemClock.js';
import type { EngineStore, RunState, StoredRun } from './store/engineStore.js';
import { StoreWriteError, unwrittenAnswer } from './store/engineStore.js';
import { MemoryStore } from './store/memoryStore.js';
import { EmbeddedSchedules } from './schedules/embeddedSchedules.js';

/**
 * How often the store is probed with a tiny write while runs a failed write left behind wait to be restored: they are
 * restored as soon as it takes writes again, and a store that keeps failing costs one probe (and at most one failed
 * restore) a second, never a busy loop.
 */
const STORE_PROBE_MS = 1_000;
/** How often a caller waiting on a run that is open in the store but not live (a failed write) looks again. */
const STORED_RUN_POLL_MS = 500;

/**
 * The embedded engine: runs registered workflow definitions in this process with a real event history, mirroring
 * Temporal's semantics closely enough to stand in for the Temporal adapter in tests. Its runs are kept in a store
 * (store/engineStore.ts): in memory, or durable in SQLite, where a restart resumes the runs that were open
 * (docs/architecture.md, The embedded engine's store).
 */
export class EmbeddedEngine implements WorkflowEngine {
  /** `embedded` on the durable store, `memory` on the in-memory one: reported by /ready. */
  readonly kind: string;
  /**
   * On the durable store the Idempotency-Keys of feedback, terminate and reset are kept with what they did, so a retry
   * after a restart is recognised. In memory the engine lives with the one API process, whose own answers
   * (core/idempotency/localAnswers.ts) are all a retry can reach.
   */
  readonly controlKeys: ControlKeys;
  private readonly options: CheckedOptions;
  private readonly catalogs: CatalogRegistry;
  private readonly store: EngineStore;
  private readonly live = new LiveRuns();
  private readonly timers: TimerRegistry;
  /**
   * The time limits of callers' waits (awaitOutcome's timeoutMs) run on real time, not on the engine's clock: a test
   * clock that skips ahead to a run's next timer must not end a wait for that very run first. Real time is what the
   * caller's own limit means (POST /workflow/run's `timeout`, a long-poll's `wait`).
   */
  private readonly waitTimers = new TimerRegistry(waitClock);
  private readonly lifecycle: RunLifecycle;
  private readonly tokens: PageTokens;
  /** The schedules this engine keeps and fires (docs/schedules.md). */
  readonly schedules: EmbeddedSchedules;
  private readonly awaiterShutdowns = new Set<() => void>();
  private readonly removeStepRouter: () => void;
  private readonly removeProgressSink: () => void;
  /** Runs a failed write left behind, restored from the store when the next retry comes. */
  private readonly toRestore = new Map<string, PinnedRunRef>();
  /** The records a failed write took out of the live set, so their waiters move to the restored copies. */
  private readonly replaced = new Map<string, RunRecord>();
  private lastWriteFailureAt = Number.NEGATIVE_INFINITY;
  private restoreTimer: (() => void) | undefined;
  private closed = false;

  constructor(options: EmbeddedEngineOptions) {
    const checked = checkOptions(options);
    this.options = checked;
    this.store =
      checked.store ??
      new MemoryStore({
        clock: checked.clock,
        maxClosedRuns: checked.maxClosedRuns,
        maxClosedBytes: checked.maxClosedBytes,
        idempotencyRetentionMs: checked.idempotencyRetentionMs,
        maxIdempotencyBytes: checked.maxIdempotencyBytes,
      });
    this.kind = this.store.durable ? 'embedded' : 'memory';
    this.controlKeys = this.store.keepsControlKeys ? 'kept-by-engine' : 'kept-by-api-process';
    this.tokens = new PageTokens(this.store.pageTokenKey);
    this.catalogs = new CatalogRegistry(checked.logger);
    this.timers = new TimerRegistry(checked.clock);
    this.lifecycle = new RunLifecycle(checked, this.store, this.live, this.catalogs, this.timers);
    this.store.onWriteFailed((records, error) => this.writeFailed(records, error));
    const scopes = this.lifecycle.scopes;
    // Only calls made inside one of this engine's runs are ours; anything else is left to other routers.
    this.removeStepRouter = addStepRouter({
      route: (activity, input) => {
        const scope = scopes.getStore();
        if (!scope) return undefined;
        return executeStep(scope, this.catalogs.stepFor(scope.commands.run.catalog, activity), input);
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
    // Runs open when the store was last closed are live again at once (readable, stoppable, taking feedback); their
    // code runs again when a worker serves their workflow (registerWorker).
    for (const state of this.store.openRuns()) this.lifecycle.restore(state);
    // Callbacks whose delivery had not ended are sent again, once whoever delivers them can read this engine.
    this.schedules = new EmbeddedSchedules(this, this.store, checked.clock, checked.logger, checked.metrics, checked.tracing);
    // Missed fires are acted on once the engine is whole; a fire whose catalog has no worker yet waits for one.
    queueMicrotask(() => {
      if (!this.closed) this.schedules.resume();
    });
    const pending = this.store.pendingCallbacks();
    if (pending.length > 0) queueMicrotask(() => {
      for (const { run, target } of pending) if (!this.closed) this.lifecycle.callbackDue({ description: { ...run } as RunDescription }, target);
    });
  }

  /** The store's kind and, for the durable one, what it holds. */
  get storeKind(): EngineStore['kind'] {
    return this.store.kind;
  }

  /** Runs open now (running, waiting for a worker that serves their workflow, or to be restored after a failed write). */
  get openRunCount(): number {
    let open = this.toRestore.size;
    for (const record of this.live.all()) if (!record.closed) open += 1;
    return open;
  }

  /** A worker serving a catalog (Temporal: polling a task queue) with these workflows; restored runs it serves resume. */
  registerWorker(registration: WorkerRegistration): WorkerHandle {
    const handle = this.catalogs.register(registration);
    const unserved = new Map<string, number>();
    for (const record of this.closed ? [] : [...this.live.all()]) {
      if (record.description.catalog !== registration.catalog || this.lifecycle.resume(record)) continue;
      unserved.set(record.description.workflowName, (unserved.get(record.description.workflowName) ?? 0) + 1);
    }
    // Runs another program left in this data directory (or of a workflow since removed): said once, not left silent.
    if (unserved.size > 0) {
      this.options.logger.warn(`open runs of workflows catalog "${registration.catalog}" does not serve here wait until a process serving them opens this data directory`, {
        catalog: registration.catalog,
        openRuns: Object.fromEntries(unserved),
      });
    }
    if (!this.closed) this.schedules.catalogServed(registration.catalog);
    return handle;
  }

  async start(command: StartCommand): Promise<RunDescription> {
    this.assertOpen();
    assertWorkflowId(command.workflowId);
    const { idempotency } = command;
    // A retried keyed start (Temporal: the same request id) gets the run it started, open, closed or forgotten.
    if (idempotency) {
      const live = this.live.latest(command.workflowId);
      if (live) {
        if (live.description.idempotency?.requestId === idempotency.requestId) {
          // The first start's answer may still wait for its commit: the retry answers no sooner.
          if (!live.committed) await this.stored(this.store.commit(live));
          return live.snapshot();
        }
      } else {
        const started = this.store.keyedStart(command.workflowId, idempotency.requestId);
        if (started) return started;
      }
    }
    const definition = this.catalogs.definitionFor(command.catalog, command.workflowName);
    this.lifecycle.assertIdFree(command.workflowId);
    if (idempotency) this.store.admitKey(command.workflowId);
    const input = payloadOf(command.input, 'input');
    const callback = command.callback ? { url: command.callback.url, retryForMs: command.callback.retryForMs } : undefined;
    const record = this.lifecycle.createRun({
      definition,
      workflowId: command.workflowId,
      workflowName: command.workflowName,
      catalog: command.catalog,
      input,
      ...(callback ? { callback } : {}),
      ...(idempotency ? { idempotency: { ...idempotency } } : {}),
      ...(command.rerunOf ? { rerunOf: { workflowId: command.rerunOf.workflowId, runId: command.rerunOf.runId } } : {}),
      ...(command.startedBy === undefined ? {} : { startedBy: command.startedBy }),
      ...(command.scheduleId === undefined ? {} : { scheduleId: command.scheduleId }),
    });
    await this.stored(this.lifecycle.launch(record));
    return record.snapshot();
  }

  async awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined> {
    const followChain = options.followChain ?? true;
    let found = this.find(run);
    // A forgotten first run (or one known only by its key record): its chain's runs still kept answer for it.
    if (followChain && (!found || (found.description.status === 'continued_as_new' && !found.continuedToRunId))) {
      found = this.store.latestOfChain(run.workflowId, run.runId) ?? found;
    }
    if (!found) return notFound(run);
    while (followChain && found.closed && found.continuedToRunId) {
      const next = this.find({ workflowId: run.workflowId, runId: found.continuedToRunId });
      if (!next) break;
      found = next;
    }
    if (found.closed) return found.outcome();
    if (this.closed) return undefined;
    if (found instanceof RunRecord) return awaitChainOutcome(found, this.waitTimers, options, this.awaiterShutdowns);
    return this.pollStoredRun(found.description, options);
  }

  async describe(run: RunRef): Promise<RunDescription> {
    return (this.find(run) ?? notFound(run)).snapshot();
  }

  async getOutcome(run: RunRef): Promise<RunOutcome> {
    const found = this.find(run) ?? notFound(run);
    if (!found.closed) {
      const { workflowId, runId } = found.description;
      throw runStillRunning(workflowId, runId);
    }
    return found.outcome();
  }

  async getInput(run: PinnedRunRef): Promise<unknown> {
    try {
      return (this.find(run) ?? notFound(run)).inputValue();
    } catch (error) {
      // A chain's first run may be forgotten while later runs of its chain are kept: they carry its input.
      const laterRun = this.store.latestOfChain(run.workflowId, run.runId);
      if (laterRun && error instanceof WorkflowNotFoundError) return laterRun.chainInputValue();
      throw error;
    }
  }

  async historyPage(run: RunRef, query: HistoryPageQuery): Promise<{ run: RunDescription; page: HistoryPage }> {
    const { pageSize, pageToken } = query;
    // The history use case checked it; asserted again because the offset arithmetic below relies on it.
    checkHistoryPageSize(pageSize);
    const found = this.find(run) ?? notFound(run);
    const { workflowId, runId } = found.description;
    const scope = JSON.stringify(['history', workflowId, runId]);
    const offset = pageToken === undefined ? 0 : (this.tokens.read(scope, pageToken, isStorePosition).o ?? 0);
    const { events, visibleCount } = found.historyPage(offset, pageSize, this.options.historyPageMaxBytes);
    const end = offset + events.length;
    const nextPageToken = end < visibleCount ? this.tokens.issue(scope, { o: end }) : null;
    return { run: found.snapshot(), page: { events, nextPageToken } };
  }

  followRun(run: PinnedRunRef, afterEventId: number, signal: AbortSignal): AsyncIterable<RunStreamItem> {
    return (this.find(run) ?? notFound(run)).follow(afterEventId, signal, () => this.closed, this.options.historyPageMaxBytes);
  }

  async listRuns(query: ListRunsQuery): Promise<RunList> {
    return listStoredRuns(this.store, this.tokens, query);
  }

  async cancel(run: RunRef, identity?: string): Promise<RunDescription> {
    const record = this.openRun(run);
    this.lifecycle.requestCancel(record, identity);
    await this.stored(this.store.commit(record));
    return record.snapshot();
  }

  async terminate(run: RunRef, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<RunDescription> {
    const done = this.doneBefore(idempotency);
    if (done) return (this.find(done) ?? notFound(done)).snapshot();
    const record = this.openRun(run);
    await this.stored(this.lifecycle.terminate(record, reason, { decided: () => this.keepKey(idempotency, record.description) }, identity));
    return record.snapshot();
  }

  async reset(run: RunRef, stepName: string, reason: string, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    this.assertOpen();
    const done = this.doneBefore(idempotency);
    if (done) return done;
    const deps = {
      live: this.live,
      lifecycle: this.lifecycle,
      catalogs: this.catalogs,
      stateOf: (ref: RunRef): RunState => this.stateOf(ref),
    };
    return this.stored(resetRun(deps, run, stepName, reason, (next) => this.keepKey(idempotency, next), identity));
  }

  async deliverFeedback(workflowId: string, payload: unknown, idempotency?: RequestIdempotency, identity?: string): Promise<PinnedRunRef> {
    const done = this.doneBefore(idempotency);
    if (done) return done;
    const record = this.openRun({ workflowId });
    const value = record.execution.intern(payloadOf(payload, 'payload'));
    // Past MEMORY_MAX_HISTORY_BYTES this append closes the run (recorded, then terminated, as on Temporal).
    const event = record.history.append('signal_received', { signalName: 'feedback', payload: value, ...identityAttribute(identity) });
    record.execution.inbox.deliver(value, event.eventId);
    const answer = { workflowId, runId: record.description.runId };
    this.keepKey(idempotency, answer);
    await this.stored(this.store.commit(record));
    return answer;
  }

  /** What the engine holds now: runs open and closed, what the store keeps (docs/reliability.md). */
  usage(): EngineUsage {
    return this.store.usage() as EngineUsage;
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
   * undefined, history followers end), the store written and closed. Open runs stay open and make no more progress;
   * on the durable store the next engine on it resumes them. Safe to call twice.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.schedules.close();
    this.removeStepRouter();
    this.removeProgressSink();
    this.timers.closeAll();
    this.waitTimers.closeAll();
    this.restoreTimer?.();
    for (const giveUp of [...this.awaiterShutdowns]) giveUp();
    // What the last turn changed is committed before the runs stop: less to replay at the next start.
    this.store.close();
    for (const record of this.live.all()) {
      // Steps still in flight finish into the void instead of resuming workflow code on a stopped engine.
      record.execution.abandon();
      record.history.wake();
    }
  }

  /**
   * The store could not commit a write (disk full, I/O error): what it held is not done. Runs it started never
   * existed; the others are behind the store, so they are restored from it (as after a restart) and go on from what
   * it has: nothing acknowledged is lost, a step under way runs again.
   */
  writeFailed(records: readonly RunRecord[], error: unknown): void {
    this.options.logger.error('embedded engine: the store could not commit a write; the runs it touched are restored from the store', {
      runs: records.length,
      error: error instanceof Error ? error.message : String(error),
    });
    const now = Date.now();
    // A first failure is probed at once (most are passing); one right after another waits for the next probe.
    const probeInMs = now - this.lastWriteFailureAt < STORE_PROBE_MS ? STORE_PROBE_MS : 0;
    this.lastWriteFailureAt = now;
    for (const record of records) {
      record.execution.abandon();
      this.live.remove(record);
      if (record.committed) this.toRestore.set(record.description.runId, { workflowId: record.description.workflowId, runId: record.description.runId });
      else record.history.wake();
      this.replaced.set(record.description.runId, record);
    }
    this.scheduleRestore(probeInMs);
  }

  private scheduleRestore(delayMs: number): void {
    if (this.restoreTimer || this.closed) return;
    this.restoreTimer = this.waitTimers.set(delayMs, () => {
      this.restoreTimer = undefined;
      if (this.toRestore.size > 0 && !this.store.probe()) {
        this.scheduleRestore(STORE_PROBE_MS);
        return;
      }
      this.restoreLeftBehind();
    });
  }

  private restoreLeftBehind(): void {
    for (const [runId, ref] of this.toRestore) {
      let state: RunState | undefined;
      try {
        state = this.store.loadState(ref);
      } catch {
        // The store cannot even be read now: try again at the next probe.
        this.scheduleRestore(STORE_PROBE_MS);
        return;
      }
      this.toRestore.delete(runId);
      const old = this.replaced.get(runId);
      this.replaced.delete(runId);
      if (!state || this.live.get(runId)) continue;
      const restored = this.lifecycle.restore(state);
      if (old) {
        old.moveListenersTo(restored);
        old.history.wake();
      }
      this.lifecycle.resume(restored);
    }
    for (const [runId, old] of this.replaced) {
      if (this.toRestore.has(runId)) continue;
      this.replaced.delete(runId);
      old.history.wake();
    }
  }

  /**
   * The run a keyed feedback, terminate or reset reached the first time, when the store kept its key (a retry, also
   * after a restart): the request is not carried out again. The same key with another request is
   * IdempotencyKeyReusedError.
   */
  private doneBefore(idempotency: RequestIdempotency | undefined): PinnedRunRef | undefined {
    if (!idempotency) return undefined;
    const kept = this.store.controlKey(idempotency.key, idempotency.retentionMs);
    if (!kept) return undefined;
    if (kept.fingerprint !== idempotency.fingerprint) {
      throw new IdempotencyKeyReusedError('Idempotency-Key was already used for another request (a different body or endpoint); use a new key for a new request');
    }
    idempotency.recognised(kept.requestedAt);
    return kept.answer;
  }

  /** Keeps a keyed request's key with what it did, in the commit that does it. */
  private keepKey(idempotency: RequestIdempotency | undefined, answer: PinnedRunRef): void {
    if (!idempotency) return;
    this.store.keepControlKey(idempotency.key, {
      fingerprint: idempotency.fingerprint,
      requestedAt: idempotency.requestedAt,
      answer: { workflowId: answer.workflowId, runId: answer.runId },
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new EngineUnavailableError('The embedded engine is closed');
  }

  /** What a reader finds: a live run whose start is committed, else what the store keeps. */
  private find(ref: RunRef): StoredRun | undefined {
    if (ref.runId === undefined) return this.live.latestCommitted(ref.workflowId) ?? this.store.lookup(ref);
    const record = this.live.get(ref.runId);
    if (record?.committed && record.description.workflowId === ref.workflowId) return record;
    return this.store.lookup(ref);
  }

  /** The run, which must still be open and live: WorkflowClosedError once its close is decided. */
  private openRun(ref: RunRef): RunRecord {
    this.assertOpen();
    const found = this.find(ref) ?? notFound(ref);
    if (found instanceof RunRecord) {
      // Closed and still live (its close committed, not yet handed to the store): closed, as its status says.
      if (found.closing) throw found.description.status === 'running' ? closingError(found.description) : closedError(found.description);
      return found;
    }
    if (found.closed) throw closedError(found.description);
    throw new EngineUnavailableError('The run is being restored after a write to the store failed; retry shortly');
  }

  /** The old run of a reset as stored: the live run's own state, or the store's. */
  private stateOf(ref: RunRef): RunState {
    const found = this.find(ref) ?? notFound(ref);
    if (found instanceof RunRecord) return found.state();
    const { workflowId, runId } = found.description;
    return this.store.loadState({ workflowId, runId }) ?? notFound(ref);
  }

  /** A store write that failed answers as an engine out of service (503): what needed it is not done. */
  private async stored<T>(work: Promise<T> | undefined): Promise<T> {
    try {
      return (await work) as T;
    } catch (error) {
      if (error instanceof StoreWriteError) throw unwrittenAnswer(error);
      throw error;
    }
  }

  /** Waits for a run that is open in the store but not live (a failed write left it to be restored). */
  private async pollStoredRun(run: RunDescription, options: AwaitOptions): Promise<RunOutcome | undefined> {
    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline && !this.closed) {
      if (options.signal?.aborted) throw options.signal.reason;
      await new Promise<void>((resolve) => this.waitTimers.set(Math.min(STORED_RUN_POLL_MS, Math.max(0, deadline - Date.now())), resolve));
      const found = this.find({ workflowId: run.workflowId, runId: run.runId });
      if (found instanceof RunRecord) return awaitChainOutcome(found, this.waitTimers, { ...options, timeoutMs: Math.max(0, deadline - Date.now()) }, this.awaiterShutdowns);
      if (found?.closed) return this.awaitOutcome({ workflowId: run.workflowId, runId: run.runId }, { ...options, timeoutMs: 0 });
    }
    return undefined;
  }
}

/** What EmbeddedEngine.usage() reports. */
export type EngineUsage = { openRuns: number; closedRuns: number; closedBytes: number; keyRecords: number; keyRecordBytes: number };
