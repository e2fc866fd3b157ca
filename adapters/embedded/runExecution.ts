import type { WorkflowDetails } from '../../core/definition/hooks.js';
import { silentRunObserver } from '../../ports/runObserver.js';
import type { TraceSpan } from '../../ports/tracing.js';
import type { WorkflowContext } from '../../core/definition/context.js';
import { CancelledError, NondeterminismError, serializeFailure } from '../../core/definition/failures.js';
import type { HistoryEventType } from '../../core/domain/history.js';
import { invalidInputFailure, invalidOutputFailure, outputNotJsonFailure } from '../../core/definition/runRules.js';
import { closings, ContinueAsNewRequest, type RunClosing } from './closings.js';
import { CommandLog, type CommandCall, type CommandKind, type CommandOutcome, type CommandRecord, type ReplayPlan } from './commandLog.js';
import { FeedbackInbox } from './feedbackInbox.js';
import { never } from './never.js';
import { Payload, PayloadPool } from './payload.js';
import type { RunHost, RunScope } from './runHost.js';
import type { RunRecord } from './runRecord.js';
import type { StepTrace } from './stepTrace.js';
import { createWorkflowContext } from './workflowContext.js';


export interface ExecutionStart {
  replay?: ReplayPlan;
  /** A reset whose copied history holds a cancel request starts cancelled. */
  cancelRequested?: boolean;
  /** The parent of the run's span (W3C traceparent); absent: the run starts a trace of its own. */
  traceparent?: string;
}

/**
 * The live side of one run: the workflow function, its pending operations, cancellation and command log.
 * Once the run closes (or is terminated) the execution is abandoned: its timers stop, nothing more is recorded,
 * and every pending or new operation stays pending forever, as workflow code on a closed Temporal run never resumes.
 */
export class RunExecution {
  readonly commands: CommandLog;
  readonly trace: StepTrace[] = [];
  /** The run's large payloads by content, so a value met again is kept once (payload.ts). */
  private readonly payloads = new PayloadPool();
  readonly inbox = new FeedbackInbox();
  /** Children this run started; they are terminated if still open when it closes. */
  readonly childWorkflowIds = new Set<string>();
  readonly baseScope: RunScope;
  readonly context: WorkflowContext;
  /** The run's span: its workflow code runs inside it, its step attempts are its children. Ended when the run closes. */
  readonly span: TraceSpan;
  cancelRequested: boolean;
  private abandonedFlag = false;
  private readonly cancelHandlers = new Set<() => void>();
  private readonly timerCancellers = new Set<() => void>();
  /** A reset run replays the original's code up to the reset point: its hooks already fired for the original. */
  private readonly isReset: boolean;
  private readonly ordinals: Record<'timer' | 'webhook' | 'child' | 'activity', number> = { timer: 0, webhook: 0, child: 0, activity: 0 };

  constructor(
    readonly record: RunRecord,
    readonly host: RunHost,
    start: ExecutionStart = {},
  ) {
    this.commands = new CommandLog(start.replay);
    this.isReset = start.replay !== undefined;
    this.cancelRequested = start.cancelRequested ?? false;
    this.baseScope = { execution: this, shielded: false };
    this.context = createWorkflowContext(this);
    const { workflowName, workflowId, runId, catalog } = record.description;
    this.span = host.tracing.startSpan(`RunWorkflow:${workflowName}`, {
      parent: start.traceparent,
      attributes: { 'flowgate.workflow_id': workflowId, 'flowgate.run_id': runId, 'flowgate.catalog': catalog },
    });
  }

  get abandoned(): boolean {
    return this.abandonedFlag;
  }

  /** Runs the workflow function; called in a microtask after the run was registered. */
  begin(): void {
    if (this.record.closing) return;
    const { runTimeoutMs } = this.record.definition;
    if (runTimeoutMs !== undefined) {
      this.setTimer(runTimeoutMs, () => void this.host.close(this.record, closings.timedOut(runTimeoutMs)));
    }
    const observer = this.host.observerFor(this.record.description.catalog);
    // Most workers have no hooks: no details are built for them on this hot path.
    if (!this.isReset && observer !== silentRunObserver) observer.runStarted(this.workflowDetails());
    this.host.scopes.run(this.baseScope, () =>
      this.span.run(() => {
        this.runWorkflow().catch((error: unknown) => this.host.logger.error('memory engine: run failed internally', this.logFields(error)));
      }),
    );
  }

  /** The run as worker hooks see it (docs/hooks.md: workflowDetails); the embedded engine's namespace is `default`. */
  workflowDetails(): WorkflowDetails {
    const { workflowId, runId, workflowName, startedAt, firstRunId, continuedFromRunId, parent, root } = this.record.description;
    const started = startedAt.getTime();
    return {
      attempt: 1,
      ...(continuedFromRunId ? { continuedFromExecutionRunId: continuedFromRunId } : {}),
      firstExecutionRunId: firstRunId,
      ...(parent ? { parent: { runId: parent.runId, workflowId: parent.workflowId, namespace: 'default' } } : {}),
      ...(root ? { root: { runId: root.runId, workflowId: root.workflowId } } : {}),
      runId,
      runStartTime: started,
      startTime: (this.record.chainStartedAt ?? startedAt).getTime(),
      workflowId,
      workflowType: workflowName,
    };
  }

  /** The scope of the calling workflow code; the base scope when called from outside this run's async context. */
  currentScope(): RunScope {
    const scope = this.host.scopes.getStore();
    return scope?.execution === this ? scope : this.baseScope;
  }

  isCancelled(scope: RunScope): boolean {
    return this.cancelRequested && !scope.shielded;
  }

  nextOrdinal(kind: 'timer' | 'webhook' | 'child' | 'activity'): number {
    this.ordinals[kind] += 1;
    return this.ordinals[kind];
  }

  append(type: HistoryEventType, attributes: Record<string, unknown>, stepName?: string): void {
    if (!this.abandonedFlag && !this.record.closing) this.record.history.append(type, attributes, stepName);
  }

  now(): string {
    return new Date(this.host.clock.now()).toISOString();
  }

  /** A timer that dies with the run. */
  setTimer(ms: number, callback: () => void): () => void {
    if (this.abandonedFlag) return () => {};
    const cancelTimer = this.host.timers.set(ms, () => {
      this.timerCancellers.delete(cancelTimer);
      callback();
    });
    this.timerCancellers.add(cancelTimer);
    return () => {
      this.timerCancellers.delete(cancelTimer);
      cancelTimer();
    };
  }

  /** Reacts to a cancel request, unless `scope` is shielded. Returns the function that withdraws the reaction. */
  onCancel(scope: RunScope, handler: () => void): () => void {
    if (scope.shielded || this.abandonedFlag) return () => {};
    this.cancelHandlers.add(handler);
    return () => this.cancelHandlers.delete(handler);
  }

  requestCancel(): void {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    const handlers = [...this.cancelHandlers];
    this.cancelHandlers.clear();
    for (const handler of handlers) handler();
  }

  abandon(): void {
    this.abandonedFlag = true;
    this.cancelHandlers.clear();
    for (const cancel of [...this.timerCancellers]) cancel();
    this.timerCancellers.clear();
    // A wait that will never be served would keep the workflow's frame (its decoded input) alive with the run.
    this.inbox.dropWaiters();
    this.payloads.clear();
  }

  /** The run's copy of a payload with this content, if it has one (payload.ts). */
  intern(payload: Payload): Payload {
    return this.abandonedFlag ? payload : this.payloads.intern(payload);
  }

  /** Logs a command call; undefined when the run is gone or the call broke determinism (the run then fails). */
  call(kind: CommandKind, name: string): CommandCall | undefined {
    if (this.abandonedFlag || this.record.closing) return undefined;
    try {
      return this.commands.call(kind, name);
    } catch (error) {
      void this.host.close(this.record, closings.failed(serializeFailure(error)));
      return undefined;
    }
  }

  /** Records a command's outcome and hands it to the workflow (a decoded copy, so the log keeps the original). */
  settle<T>(call: CommandCall, outcome: CommandOutcome): Promise<T> {
    if (this.abandonedFlag) return never();
    this.commands.complete(call.record, outcome, this.record.history.lastEventId);
    return outcome.ok ? Promise.resolve(outcome.value.value() as T) : Promise.reject(outcome.error);
  }

  /** The outcome a command had in the run this one was reset from. */
  replay<T>(record: CommandRecord): Promise<T> {
    if (record.trace) this.trace.push(record.trace);
    const outcome = record.outcome;
    if (!outcome) return never();
    return outcome.ok ? Promise.resolve(outcome.value.value() as T) : Promise.reject(outcome.error);
  }

  cancelledOutcome(message: string): CommandOutcome {
    return { ok: false, error: new CancelledError(message) };
  }

  logFields(error?: unknown): Record<string, unknown> {
    const { workflowId, runId } = this.record.description;
    return error === undefined ? { workflowId, runId } : { workflowId, runId, error: error instanceof Error ? error.message : String(error) };
  }

  private async runWorkflow(): Promise<void> {
    const { definition, input } = this.record;
    const parsedInput = definition.inputSchema.safeParse(input.value());
    if (!parsedInput.success) {
      await this.host.close(this.record, closings.failed(invalidInputFailure(definition.name, parsedInput.error.issues)));
      return;
    }
    let closing: RunClosing;
    try {
      closing = this.completion(await definition.fn(parsedInput.data, this.context));
    } catch (error) {
      closing = this.failureClosing(error);
    }
    if (this.abandonedFlag || this.record.closing) return;
    const missing = this.commands.missingReplay();
    if (missing) {
      const error = new NondeterminismError(`After a reset the workflow ended without calling ${missing.kind} "${missing.name}" as the original run did`);
      closing = closings.failed(serializeFailure(error));
    }
    await this.host.close(this.record, closing);
  }

  private completion(output: unknown): RunClosing {
    const { definition } = this.record;
    const parsed = definition.outputSchema.safeParse(output);
    if (!parsed.success) return closings.failed(invalidOutputFailure(definition.name, parsed.error.issues));
    try {
      return closings.completed(this.intern(Payload.of(parsed.data)));
    } catch (error) {
      return closings.failed(outputNotJsonFailure(definition.name, error));
    }
  }

  private failureClosing(error: unknown): RunClosing {
    if (error instanceof ContinueAsNewRequest) return closings.continuedAsNew(this.intern(error.input));
    if (error instanceof CancelledError && this.cancelRequested) return closings.cancelled(serializeFailure(error));
    return closings.failed(serializeFailure(error));
  }
}
