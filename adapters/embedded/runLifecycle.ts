import { silentRunObserver, type RunObserver } from '../../ports/runObserver.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityDefinition } from '../../core/definition/activity.js';
import { defineActivity } from '../../core/definition/step.js';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import { ValidationError, WorkflowAlreadyStartedError } from '../../core/domain/errors.js';
import type { HistoryEvent } from '../../core/domain/history.js';
import type { PinnedRunRef, RelatedRun, RunDescription } from '../../core/domain/run.js';
import type { RunIdempotency } from '../../core/domain/idempotency.js';
import type { WebhookCall } from '../../ports/webhookSender.js';
import type { CatalogRegistry } from './catalogs.js';
import type { KeyRecords } from './keyRecords.js';
import { closings, type RunClosing } from './closings.js';
import type { ReplayPlan } from './commandLog.js';
import { RunHistory, type HistoryLimits } from './history.js';
import { Payload } from './payload.js';
import type { CheckedOptions } from './options.js';
import { RunExecution } from './runExecution.js';
import type { ChildStart, RunHost, RunScope, StepAttemptProgress } from './runHost.js';
import { RunRecord } from './runRecord.js';
import type { RunStore } from './runStore.js';
import type { TimerRegistry } from './timers.js';
import type { RunCallbackTarget } from '../../core/domain/callback.js';
import { traceStepOf } from './stepTrace.js';

/** Longest a single webhook call attempt may take. */
const WEBHOOK_CALL_TIMEOUT_MS = 30_000;

export interface NewRun {
  definition: WorkflowDefinition;
  workflowId: string;
  catalog: string;
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
  /** The parent of the run's span (a W3C traceparent). @default the span active where the run is created */
  traceparent?: string;
}

/** How a reset run starts: the copied history, the replay plan, and what to add before it begins. */
export interface ResetSeed {
  events: readonly HistoryEvent[];
  replay: ReplayPlan;
  cancelRequested: boolean;
  seed(record: RunRecord): void;
}

/** Creating, cancelling and closing runs: the engine side every running workflow talks to. */
export class RunLifecycle implements RunHost {
  readonly scopes = new AsyncLocalStorage<RunScope>();
  readonly stepAttempts = new AsyncLocalStorage<StepAttemptProgress>();
  readonly webhookStep: ActivityDefinition;
  readonly clock: CheckedOptions['clock'];
  readonly logger: CheckedOptions['logger'];
  readonly tracing: CheckedOptions['tracing'];
  readonly metrics: CheckedOptions['metrics'];

  constructor(
    private readonly options: CheckedOptions,
    private readonly store: RunStore,
    private readonly catalogs: CatalogRegistry,
    readonly timers: TimerRegistry,
    private readonly keys: KeyRecords,
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
  }

  createRun(spec: NewRun, reset?: ResetSeed): RunRecord {
    const runId = this.options.ids.uuid();
    const description: RunDescription = {
      workflowId: spec.workflowId,
      runId,
      workflowName: spec.definition.name,
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
    };
    // The history's limits call back into the record it belongs to, which exists before anything is appended.
    let created: RunRecord | undefined;
    const history = new RunHistory(this.clock, reset?.events, this.historyLimits(description, () => created));
    const record = new RunRecord(description, spec.definition, spec.input, history, this.store.nextSequence());
    created = record;
    record.chainStartedAt = spec.chainStartedAt ?? description.startedAt;
    record.chainInput = spec.chainInput ?? spec.input;
    record.callback = spec.callback;
    // The request that starts a run (or the run that starts a child) is the active span here: the run joins its trace.
    const traceparent = spec.traceparent ?? this.tracing.activeTraceparent();
    const start = reset ? { replay: reset.replay, cancelRequested: reset.cancelRequested } : {};
    record.execution = new RunExecution(record, this, { ...start, ...(traceparent ? { traceparent } : {}) });
    // A step handed the run's input keeps no second copy of it.
    record.execution.intern(spec.input);
    if (reset) {
      reset.seed(record);
    } else {
      history.append('workflow_started', {
        workflowName: spec.definition.name,
        catalog: spec.catalog,
        input: spec.input,
        ...(spec.continuedFromRunId ? { continuedFromRunId: spec.continuedFromRunId } : {}),
        ...(spec.parent ? { parentWorkflowId: spec.parent.workflowId } : {}),
      });
    }
    this.store.add(record);
    // A run without a first run to continue is a new chain: the id's key record is now its (keyed) or none.
    if (!spec.firstRunId) this.keys.chainStarted(record);
    queueMicrotask(() => record.execution.begin());
    return record;
  }

  /** WorkflowAlreadyStartedError while the id has an open run; closed ids may be reused. */
  assertIdFree(workflowId: string): void {
    const latest = this.store.latest(workflowId);
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
    return this.createRun({
      definition,
      workflowId: start.workflowId,
      catalog: start.catalog,
      input: payloadOf(start.input, 'input'),
      parent: start.parent,
      root: start.root,
    });
  }

  observerFor(catalog: string): RunObserver {
    return this.catalogs.observerFor(catalog);
  }

  chainEnd(run: RunRecord): Promise<RunRecord> {
    return new Promise((resolve) => {
      const follow = (from: RunRecord): void => {
        let current = from;
        while (current.closed && current.continuedTo) current = current.continuedTo;
        if (current.closed) resolve(current);
        else current.onClosed(() => follow(current));
      };
      follow(run);
    });
  }

  cancelChild(workflowId: string, parentRunId: string): void {
    const child = this.store.latest(workflowId);
    if (child && !child.closing && child.description.parent?.runId === parentRunId) this.requestCancel(child);
  }

  /** Records the request once and interrupts the run's cancellable operations. */
  requestCancel(record: RunRecord): void {
    if (record.execution.cancelRequested) return;
    record.history.append('workflow_cancel_requested', {});
    record.execution.requestCancel();
  }

  terminate(record: RunRecord, reason: string): Promise<void> {
    return this.close(record, closings.terminated(reason));
  }

  async close(record: RunRecord, requested: RunClosing): Promise<void> {
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
    if (closing.continueWith) {
      const { workflowId, runId, catalog, workflowName, firstRunId, parent, root, rerunOf } = record.description;
      const next = this.createRun({
        definition: this.catalogs.liveDefinition(catalog, workflowName) ?? record.definition,
        workflowId,
        catalog,
        input: closing.continueWith.input,
        chainInput: record.chainInput,
        firstRunId,
        chainStartedAt: record.chainStartedAt,
        continuedFromRunId: runId,
        ...(parent ? { parent } : {}),
        ...(root ? { root } : {}),
        ...(record.callback ? { callback: record.callback } : {}),
        ...(rerunOf ? { rerunOf } : {}),
        // The chain stays one trace: each run's span is a child of the run it continues.
        ...(record.execution.span.traceparent ? { traceparent: record.execution.span.traceparent } : {}),
      });
      record.continuedTo = next;
      const attributes = { newRunId: next.description.runId, input: closing.continueWith.input };
      closing = { ...closing, event: { type: closing.event.type, attributes } };
    }
    record.publishClose(closing, closedAt);
    this.store.markClosed(record);
    if (!closing.continueWith) this.keys.chainClosed(record);
    // A continued run's chain goes on: its last run's close is the one reported.
    if (record.callback && !closing.continueWith) {
      const { callback } = record;
      const run = { workflowId: record.description.workflowId, runId: record.description.runId };
      // Outside the run's async context: the delivery and its retry timers are engine work that outlives the run.
      this.scopes.exit(() => this.options.onRunCallback?.(run, callback));
    }
    // On Node 20 an enabled AsyncLocalStorage puts a hook on every promise the process creates, requests included
    // (a fifth of a status request's cost, bench figure 1). With no run open no code needs a run scope or a step
    // attempt (progress from a step of a closed run is dropped anyway); the next run() enables each again.
    if (this.store.openCount === 0) {
      this.scopes.disable();
      this.stepAttempts.disable();
    }
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
      onWarn: (bytes) => this.logger.warn('memory engine: a run\'s history is large; past MEMORY_MAX_HISTORY_BYTES the run is terminated', fields(bytes)),
      onExceeded: (bytes) => {
        const exceeded = record();
        if (!exceeded) return;
        this.logger.warn('memory engine: a run\'s history passed MEMORY_MAX_HISTORY_BYTES; the run is terminated', fields(bytes));
        void this.close(exceeded, closings.historySizeExceeded(bytes, maxHistoryBytes));
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
      const child = this.store.latest(childId);
      if (child && !child.closing && child.description.parent?.runId === runId) open.push(child);
    }
    await Promise.all(open.map((child) => this.terminate(child, `Parent workflow ${workflowId} (run ${runId}) closed: ${status}`)));
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
    const message = `${field} must be JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`;
    throw new ValidationError(message, { issues: [{ code: 'invalid_json', path: [field], message }] });
  }
}
