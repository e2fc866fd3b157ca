import { silentRunObserver, type RunObserver } from '../../ports/runObserver.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityDefinition } from '../../core/definition/activity.js';
import { defineActivity } from '../../core/definition/step.js';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import { ValidationError, WorkflowAlreadyStartedError } from '../../core/domain/errors.js';
import { identityAttribute, type HistoryEvent } from '../../core/domain/history.js';
import type { PinnedRunRef, RelatedRun, RunDescription } from '../../core/domain/run.js';
import type { RunIdempotency } from '../../core/domain/idempotency.js';
import type { WebhookCall } from '../../ports/webhookSender.js';
import type { CatalogRegistry } from './catalogs.js';
import { closings, type RunClosing } from './closings.js';
import type { CommandRecord, ReplayPlan } from './commandLog.js';
import { RunHistory, type HistoryLimits } from './runHistory.js';
import type { LiveRuns } from './liveRuns.js';
import { Payload } from './payload.js';
import type { CheckedOptions } from './options.js';
import { RunExecution } from './runExecution.js';
import type { ChildEnd, ChildStart, CommandServices, RunScope, StepAttemptProgress } from './runCommands.js';
import type { RunHost } from './runHost.js';
import { RunRecord } from './runRecord.js';
import type { TimerRegistry } from './timers.js';
import type { RunCallbackTarget } from '../../core/domain/callback.js';
import type { EngineStore, RunState } from './store/engineStore.js';
import { traceStepOf } from './stepTrace.js';
import { thrownMessage } from '../../core/definition/thrownValues.js';

/** Longest a single webhook call attempt may take. */
const WEBHOOK_CALL_TIMEOUT_MS = 30_000;
/** How often a parent looks again for a child run it cannot see (restored from a store that failed a write). */
const CHILD_LOOKUP_RETRY_MS = 1_000;

export interface NewRun {
  definition: WorkflowDefinition | undefined;
  workflowId: string;
  catalog: string;
  workflowName: string;
  input: Payload;
  /** The input of the chain's first run (continue-as-new, reset). @default input */
  chainInput?: Payload;
  firstRunId?: string;
  /** When the continue-as-new chain began (Temporal: workflowInfo().startTime). @default this run's start */
  chainStartedAt?: Date;
  continuedFromRunId?: string;
  parent?: RelatedRun;
  root?: RelatedRun;
  /** Kept by the run's continuations and resets; delivered when the chain's last run closes. */
  callback?: RunCallbackTarget;
  /** A start with an Idempotency-Key: kept with the run, as Temporal keeps it in the run's memo. */
  idempotency?: RunIdempotency;
  /** A rerun: the run it repeats. Kept by the run's continuations and resets, as Temporal keeps its memo. */
  rerunOf?: PinnedRunRef;
  /** The API key that started the run's chain: kept by its continuations and resets, as Temporal keeps its memo. */
  startedBy?: string;
  /** The schedule that started the run's chain: kept by its continuations and resets. */
  scheduleId?: string;
  /** The parent of the run's span (a W3C traceparent). @default the span active where the run is created */
  traceparent?: string;
}

/** What a close commits with it: the run that follows it, and what the request that closed it keeps. */
export interface CloseFollowUp {
  /** Makes the run that follows (a reset's new run), in the same commit as the close. */
  successor?: () => RunRecord;
  /** Called once the close is decided, in the same commit (a keyed terminate or reset keeps its key). */
  decided?: (next: RunRecord | undefined) => void;
}

/** How a reset run starts: the copied history, the replay plan, and what to add before it begins. */
export interface ResetSeed {
  events: readonly HistoryEvent[];
  replay: ReplayPlan;
  cancelRequested: boolean;
  seed(record: RunRecord): void;
}

/**
 * Creating, restoring, cancelling and closing runs: the engine side every running workflow talks to (RunHost), and
 * what the runs' commands are offered (CommandServices).
 */
export class RunLifecycle implements RunHost {
  readonly scopes = new AsyncLocalStorage<RunScope>();
  readonly stepAttempts = new AsyncLocalStorage<StepAttemptProgress>();
  readonly webhookStep: ActivityDefinition;
  readonly clock: CheckedOptions['clock'];
  readonly logger: CheckedOptions['logger'];
  readonly tracing: CheckedOptions['tracing'];
  readonly metrics: CheckedOptions['metrics'];
  readonly services: CommandServices;

  constructor(
    private readonly options: CheckedOptions,
    private readonly store: EngineStore,
    private readonly live: LiveRuns,
    private readonly catalogs: CatalogRegistry,
    readonly timers: TimerRegistry,
  ) {
    this.clock = options.clock;
    this.logger = options.logger;
    this.tracing = options.tracing;
    this.metrics = options.metrics;
    const sender = options.webhookSender;
    this.webhookStep = defineActivity('internal_step', {
      name: 'webhook',
      fn: (call: WebhookCall) => sender.send(call),
      retry: { maximumAttempts: 5, initialIntervalMs: 500 },
      timeoutMs: WEBHOOK_CALL_TIMEOUT_MS,
    }).definition as unknown as ActivityDefinition;
    this.services = {
      logger: this.logger,
      tracing: this.tracing,
      metrics: this.metrics,
      scopes: this.scopes,
      stepAttempts: this.stepAttempts,
      webhookStep: this.webhookStep,
      observerFor: (catalog) => this.observerFor(catalog),
      startChild: (start) => {
        const child = this.startChild(start);
        return { runId: child.description.runId };
      },
      awaitChild: (workflowId, runId) => this.awaitChild(workflowId, runId),
      cancelChild: (workflowId, parentRunId) => this.cancelChild(workflowId, parentRunId),
    };
  }

  commandChanged(record: RunRecord, command: CommandRecord): void {
    this.store.commandChanged(record, command);
  }

  commit(record: RunRecord): Promise<void> | undefined {
    return this.store.commit(record);
  }

  /** A new run, live but not begun: `launch` begins it once its start is committed. */
  createRun(spec: NewRun, reset?: ResetSeed): RunRecord {
    const runId = this.options.ids.uuid();
    const description: RunDescription = {
      workflowId: spec.workflowId,
      runId,
      workflowName: spec.workflowName,
      catalog: spec.catalog,
      status: 'running',
      startedAt: new Date(this.clock.now()),
      closedAt: null,
      firstRunId: spec.firstRunId ?? runId,
      ...(spec.continuedFromRunId ? { continuedFromRunId: spec.continuedFromRunId } : {}),
      ...(spec.parent ? { parent: spec.parent } : {}),
      ...(spec.root ? { root: spec.root } : {}),
      ...(spec.idempotency ? { idempotency: spec.idempotency } : {}),
      ...(spec.rerunOf ? { rerunOf: { ...spec.rerunOf } } : {}),
      ...(spec.startedBy === undefined ? {} : { startedBy: spec.startedBy }),
      ...(spec.scheduleId === undefined ? {} : { scheduleId: spec.scheduleId }),
    };
    const record = this.newRecord(description, spec.definition, spec.input, reset?.events ?? [], this.store.nextSequence(), 0);
    record.chainStartedAt = spec.chainStartedAt ?? description.startedAt;
    record.chainInput = spec.chainInput ?? spec.input;
    record.callback = spec.callback;
    // The request that starts a run (or the run that starts a child) is the active span here: the run joins its trace.
    const traceparent = spec.traceparent ?? this.tracing.activeTraceparent();
    const start = reset ? { replay: reset.replay, cancelRequested: reset.cancelRequested } : {};
    record.execution = new RunExecution(record, this, { ...start, ...(traceparent ? { traceparent } : {}) });
    // A step handed the run's input keeps no second copy of it.
    record.execution.intern(spec.input);
    this.live.add(record);
    this.store.runAdded(record);
    if (reset) {
      reset.seed(record);
    } else {
      record.history.append('workflow_started', {
        workflowName: spec.workflowName,
        catalog: spec.catalog,
        input: spec.input,
        ...(spec.continuedFromRunId ? { continuedFromRunId: spec.continuedFromRunId } : {}),
        ...(spec.parent ? { parentWorkflowId: spec.parent.workflowId } : {}),
        // Who started the chain; its continuations were started by the workflow itself.
        ...identityAttribute(spec.continuedFromRunId ? undefined : spec.startedBy),
      });
    }
    // A run without a first run to continue is a new chain: the id's key record is now its (keyed) or none.
    if (!spec.firstRunId) this.store.chainStarted(record);
    return record;
  }

  /**
   * Begins the run's code once its start is committed (at once on the memory store, in a microtask, as a start's
   * caller hears of the run before its code runs). Resolves when the start is committed; rejects with the store's
   * StoreWriteError when it could not be (the run then never existed).
   */
  launch(record: RunRecord): Promise<void> {
    const barrier = this.store.commit(record);
    if (!barrier) {
      queueMicrotask(() => record.execution.begin());
      return Promise.resolve();
    }
    return barrier.then(() => record.execution.begin());
  }

  /**
   * A run restored from the store (a restart, or a write that failed): live again with its own run id and history,
   * its code not running until `resume` (it needs a worker that serves its workflow).
   */
  restore(state: RunState): RunRecord {
    const record = this.newRecord({ ...state.description }, undefined, state.input, state.events, state.sequence, state.events.length);
    record.committed = true;
    record.chainInput = state.chainInput;
    record.chainStartedAt = state.chainStartedAt;
    record.callback = state.callback;
    const point = state.commands.reduce((most, command) => Math.max(most, command.completion ?? 0), 0);
    const children = state.commands.flatMap((command) => (command.progress?.kind === 'child' ? [command.progress.childWorkflowId] : []));
    record.execution = new RunExecution(record, this, {
      replay: { reason: 'restart', commands: state.commands, point },
      cancelRequested: state.events.some((event) => event.type === 'workflow_cancel_requested'),
      trace: state.commands.flatMap((command) => (command.trace ? [command.trace] : [])),
      childWorkflowIds: children,
    });
    record.execution.intern(state.input);
    // Replies are in the history; the replayed waits take back the ones they consumed, the rest stay buffered.
    for (const event of state.events) {
      const payload = event.attributes.payload;
      if (event.type === 'signal_received' && payload instanceof Payload) record.execution.inbox.deliver(payload, event.eventId);
    }
    this.live.add(record);
    return record;
  }

  /** Runs a restored run's code again (replaying what it did) once a worker serves its workflow; false while none does. */
  resume(record: RunRecord): boolean {
    if (record.closing || record.definition) return record.definition !== undefined;
    const definition = this.catalogs.liveDefinition(record.description.catalog, record.description.workflowName);
    if (!definition) return false;
    record.definition = definition;
    record.execution.begin();
    return true;
  }

  /** WorkflowAlreadyStartedError while the id has an open run, stored or live; closed ids may be reused. */
  assertIdFree(workflowId: string): void {
    const latest = this.live.latest(workflowId) ?? this.store.lookup({ workflowId });
    if (latest && !latest.closed) {
      throw new WorkflowAlreadyStartedError(`Workflow ${workflowId} is already running`, {
        workflowId,
        runId: latest.description.runId,
      });
    }
  }

  startChild(start: ChildStart): RunRecord {
    const definition = this.catalogs.definitionFor(start.catalog, start.workflowName);
    this.assertIdFree(start.workflowId);
    const child = this.createRun({
      definition,
      workflowId: start.workflowId,
      workflowName: start.workflowName,
      catalog: start.catalog,
      input: start.input,
      parent: start.parent,
      root: start.root,
    });
    // Committed with the parent's child_started; a failed commit restores the parent, which starts it again.
    const parent = this.live.get(start.parent.runId);
    if (parent) this.store.changedTogether(parent, child);
    this.launch(child).catch(() => {});
    return child;
  }

  observerFor(catalog: string): RunObserver {
    return this.catalogs.observerFor(catalog);
  }

  /** Waits for the end of the continue-as-new chain the child run began, wherever its runs are kept. */
  async awaitChild(workflowId: string, runId: string): Promise<ChildEnd> {
    let current = runId;
    for (;;) {
      const record = this.live.get(current);
      if (record) {
        if (!record.closed) {
          await new Promise<void>((resolve) => record.onClosed(resolve));
          continue;
        }
        if (record.continuedTo) {
          current = record.continuedTo.description.runId;
          continue;
        }
        return { runId: current, status: record.description.status as ChildEnd['status'], output: record.output, failure: record.failure };
      }
      const stored = this.store.lookup({ workflowId, runId: current });
      if (!stored) {
        return { runId: current, status: 'failed', output: undefined, failure: { name: 'WorkflowNotFoundError', message: `Child run ${current} of workflow ${workflowId} is no longer kept` } };
      }
      if (!stored.closed) {
        // Open in the store but not live: restored after a write that failed, shortly live again.
        await new Promise<void>((resolve) => this.timers.set(CHILD_LOOKUP_RETRY_MS, resolve));
        continue;
      }
      if (stored.continuedToRunId) {
        current = stored.continuedToRunId;
        continue;
      }
      const outcome = stored.outcome();
      const output = outcome.run.status === 'completed' ? Payload.of(outcome.output) : undefined;
      return { runId: current, status: outcome.run.status as ChildEnd['status'], output, failure: outcome.failure };
    }
  }

  cancelChild(workflowId: string, parentRunId: string): void {
    const child = this.live.latest(workflowId);
    if (child && !child.closing && child.description.parent?.runId === parentRunId) this.requestCancel(child);
  }

  /** Records the request once and interrupts the run's cancellable operations. */
  requestCancel(record: RunRecord, identity?: string): void {
    if (record.execution.cancelRequested) return;
    record.history.append('workflow_cancel_requested', identityAttribute(identity));
    record.execution.requestCancel();
  }

  terminate(record: RunRecord, reason: string, follow?: CloseFollowUp, identity?: string): Promise<void> {
    return this.close(record, closings.terminated(reason, identity), follow);
  }

  /**
   * Closes the run: its children terminated, its trace written, then its close and what follows it (the next run of
   * a continue-as-new, a reset's new run, the key of the request that closed it: `follow`) committed together, and
   * only then shown. Rejects with the store's StoreWriteError when that commit failed (the engine restores the run
   * from the store).
   */
  async close(record: RunRecord, requested: RunClosing, follow: CloseFollowUp = {}): Promise<void> {
    if (record.closing) return;
    record.closing = true;
    record.execution.abandon();
    let closing = requested;
    const closedAt = new Date(this.clock.now());
    await this.closeChildren(record, closing.status);
    await this.runClosedHook(record, closing, closedAt);
    this.tellObserver(record, closing);
    record.execution.span.end({
      attributes: { 'flowgate.status': closing.status },
      ...(closing.failure ? { error: closing.failure.message } : {}),
    });
    let next: RunRecord | undefined;
    if (closing.continueWith) {
      next = this.continuation(record, closing.continueWith.input);
      record.continuedTo = next;
      const attributes = { newRunId: next.description.runId, input: closing.continueWith.input };
      closing = { ...closing, event: { type: closing.event.type, attributes } };
    } else if (follow.successor) {
      next = follow.successor();
    }
    record.decideClose(closing, closedAt);
    follow.decided?.(next);
    this.store.runChanged(record);
    if (next) this.store.changedTogether(record, next);
    const barrier = this.store.commit(record);
    if (barrier) await barrier;
    record.publishClose();
    this.live.remove(record);
    this.store.runClosed(record);
    if (!closing.continueWith) this.store.chainClosed(record);
    if (next) {
      const begin = next;
      queueMicrotask(() => begin.execution.begin());
    }
    // A continued run's chain goes on: its last run's close is the one reported.
    if (record.callback && !closing.continueWith) this.callbackDue(record, record.callback);
    // On Node an enabled AsyncLocalStorage puts a hook on every promise the process creates, requests included
    // (a fifth of a status request's cost, bench figure 1). With no run live no code needs a run scope or a step
    // attempt (progress from a step of a closed run is dropped anyway); the next run() enables each again.
    if (this.live.size === 0) {
      this.scopes.disable();
      this.stepAttempts.disable();
    }
  }

  /** Delivers the run's callback (outside its async context: the delivery and its retries outlive the run). */
  callbackDue(record: { description: RunDescription }, callback: RunCallbackTarget): void {
    const run = { workflowId: record.description.workflowId, runId: record.description.runId };
    // The waiting on the delivery too: a promise reaction keeps the context it was made in, and the run's holds its
    // record, history and payloads for as long as the delivery retries.
    this.scopes.exit(() =>
      this.stepAttempts.exit(() => {
        const delivery = this.options.onRunCallback?.(run, callback);
        // The outbox keeps it until its delivery ended, however it ended, so a restart in between delivers it again.
        void Promise.resolve(delivery).then(
          () => this.store.callbackEnded(run),
          () => this.store.callbackEnded(run),
        );
      }),
    );
  }

  private newRecord(description: RunDescription, definition: WorkflowDefinition | undefined, input: Payload, events: readonly HistoryEvent[], sequence: number, committed: number): RunRecord {
    // The history's limits and journal call back into the record it belongs to, which exists before anything is appended.
    let created: RunRecord | undefined;
    const history = new RunHistory(this.clock, events, this.historyLimits(description, () => created), {
      onAppend: () => created && this.store.runChanged(created),
      gated: this.store.durable,
      committed,
    });
    created = new RunRecord(description, definition, input, history, sequence);
    return created;
  }

  private continuation(record: RunRecord, input: Payload): RunRecord {
    const { workflowId, runId, catalog, workflowName, firstRunId, parent, root, rerunOf, startedBy, scheduleId } = record.description;
    return this.createRun({
      definition: this.catalogs.liveDefinition(catalog, workflowName) ?? record.definition,
      workflowId,
      workflowName,
      catalog,
      input,
      chainInput: record.chainInput,
      firstRunId,
      chainStartedAt: record.chainStartedAt,
      continuedFromRunId: runId,
      ...(parent ? { parent } : {}),
      ...(root ? { root } : {}),
      ...(record.callback ? { callback: record.callback } : {}),
      ...(rerunOf ? { rerunOf } : {}),
      ...(startedBy === undefined ? {} : { startedBy }),
      ...(scheduleId === undefined ? {} : { scheduleId }),
      // The chain stays one trace: each run's span is a child of the run it continues.
      ...(record.execution.span.traceparent ? { traceparent: record.execution.span.traceparent } : {}),
    });
  }

  /**
   * MEMORY_MAX_HISTORY_BYTES: a warning once the history passes `historyWarnBytes`, and past `maxHistoryBytes` the
   * run is terminated, as Temporal terminates a run over limit.historySize.error.
   */
  private historyLimits(run: RunDescription, record: () => RunRecord | undefined): HistoryLimits {
    const { maxHistoryBytes, historyWarnBytes } = this.options;
    const fields = (bytes: number) => ({ workflowId: run.workflowId, runId: run.runId, historyBytes: bytes, maxHistoryBytes });
    return {
      maxBytes: maxHistoryBytes,
      warnBytes: historyWarnBytes,
      onWarn: (bytes) => this.logger.warn('embedded engine: a run\'s history is large; past MEMORY_MAX_HISTORY_BYTES the run is terminated', fields(bytes)),
      onExceeded: (bytes) => {
        const exceeded = record();
        if (!exceeded) return;
        this.logger.warn('embedded engine: a run\'s history passed MEMORY_MAX_HISTORY_BYTES; the run is terminated', fields(bytes));
        this.close(exceeded, closings.historySizeExceeded(bytes, maxHistoryBytes)).catch(() => {});
      },
    };
  }

  /** Hooks hear how the run's code ended; terminate and run timeouts run no code (as on Temporal), so they are not told. */
  private tellObserver(record: RunRecord, closing: RunClosing): void {
    const observer = this.catalogs.observerFor(record.description.catalog);
    if (observer === silentRunObserver) return;
    const details = record.execution.workflowDetails();
    const { status } = closing;
    if (status === 'completed' || status === 'continued_as_new') observer.runEnded(details, { status });
    else if (status === 'failed' || status === 'cancelled') {
      observer.runEnded(details, { status, error: closing.failure ?? { name: 'Error', message: status } });
    }
  }

  /** Temporal's default parent close policy: children still open when their parent closes are terminated. */
  private async closeChildren(record: RunRecord, status: string): Promise<void> {
    const { workflowId, runId } = record.description;
    const open: RunRecord[] = [];
    for (const childId of record.execution.childWorkflowIds) {
      const child = this.live.latest(childId);
      if (child && !child.closing && child.description.parent?.runId === runId) open.push(child);
    }
    await Promise.all(open.map((child) => this.terminate(child, `Parent workflow ${workflowId} (run ${runId}) closed: ${status}`).catch(() => {})));
  }

  private async runClosedHook(record: RunRecord, closing: RunClosing, closedAt: Date): Promise<void> {
    const hook = this.options.onRunClosed;
    if (!hook) return;
    const closed = {
      run: { ...record.snapshot(), status: closing.status, closedAt },
      input: record.input.value(),
      output: closing.output?.value(),
      failure: closing.failure,
      steps: record.execution.trace.map(traceStepOf),
    };
    try {
      // Outside the run's async context: the hook is engine code, not workflow code.
      await this.scopes.exit(() => hook(closed));
    } catch (error) {
      this.logger.error('onRunClosed failed', record.execution.logFields(error));
    }
  }
}

/** A value crossing into the engine, as the payload it keeps; ValidationError when JSON cannot carry it. */
export function payloadOf(value: unknown, field: string): Payload {
  try {
    return Payload.of(value);
  } catch (error) {
    const message = `${field} must be JSON-serialisable: ${thrownMessage(error)}`;
    throw new ValidationError(message, { issues: [{ code: 'invalid_json', path: [field], message }] });
  }
}
