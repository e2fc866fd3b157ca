import type { z } from 'zod';
import type { WorkflowDetails } from '../../core/definition/hooks.js';
import type { HistoryEventType } from '../../core/domain/history.js';
import type { ProgressEvent } from '../../core/domain/progress.js';
import type { RunDescription } from '../../core/domain/run.js';
import { silentRunObserver } from '../../ports/runObserver.js';
import type { TraceSpan } from '../../ports/tracing.js';
import type { WorkflowContext } from '../../core/definition/context.js';
import { CancelledError, NondeterminismError, serializeFailure } from '../../core/definition/failures.js';
import { invalidInputFailure, invalidOutputFailure, outputNotJsonFailure, schemaVerdict } from '../../core/definition/runRules.js';
import { thrownMessage } from '../../core/definition/thrownValues.js';
import { closings, ContinueAsNewRequest, type RunClosing } from './closings.js';
import { CommandLog, type CommandCall, type CommandKind, type CommandOutcome, type CommandProgress, type CommandRecord, type ReplayPlan } from './commandLog.js';
import { FeedbackInbox } from './feedbackInbox.js';
import { never } from './never.js';
import { Payload, PayloadPool } from './payload.js';
import { ReplayDelivery } from './replay.js';
import type { CommandServices, RunCommands, RunScope } from './runCommands.js';
import type { RunHost } from './runHost.js';
import type { RunRecord } from './runRecord.js';
import type { StepTrace } from './stepTrace.js';
import { createWorkflowContext } from './workflowContext.js';
import { StoreWriteError } from './store/engineStore.js';

export interface ExecutionStart {
  /** A reset or a restart: the commands to replay (replay.ts). */
  replay?: ReplayPlan;
  /** A reset whose copied history holds a cancel request, or a restored run that had one, starts cancelled. */
  cancelRequested?: boolean;
  /** The parent of the run's span (W3C traceparent); absent: the run starts a trace of its own. */
  traceparent?: string;
  /** A restored run's trace so far (its steps' entries, in call order). */
  trace?: StepTrace[];
  /** A restored run's children (they are terminated if still open when it closes). */
  childWorkflowIds?: Iterable<string>;
}

/** A timer whose due time passed while the process was down, waiting for its turn. */
interface OverdueTimer {
  dueAt: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * The live side of one run: the workflow function, its pending operations, cancellation and command log. It is what
 * the run's commands see of it (RunCommands, runCommands.ts).
 * Once the run closes (or is terminated) the execution is abandoned: its timers stop, nothing more is recorded,
 * and every pending or new operation stays pending forever, as workflow code on a closed Temporal run never resumes.
 */
export class RunExecution implements RunCommands {
  readonly commands: CommandLog;
  readonly trace: StepTrace[];
  /** The run's large payloads by content, so a value met again is kept once (payload.ts). */
  private readonly payloads = new PayloadPool();
  readonly inbox = new FeedbackInbox();
  /** Children this run started; they are terminated if still open when it closes. */
  readonly childWorkflowIds: Set<string>;
  readonly baseScope: RunScope;
  readonly context: WorkflowContext;
  /** The run's span: its workflow code runs inside it, its step attempts are its children. Ended when the run closes. */
  readonly span: TraceSpan;
  readonly services: CommandServices;
  cancelRequested: boolean;
  private abandonedFlag = false;
  private readonly cancelHandlers = new Set<() => void>();
  private readonly timerCancellers = new Set<() => void>();
  /** Hands replayed outcomes back in completion order (reset, restart). */
  private readonly replay: ReplayDelivery | undefined;
  private readonly replayReason: ReplayPlan['reason'] | undefined;
  private overdue: OverdueTimer[] = [];
  private overdueScheduled = false;
  private readonly ordinals: Record<'timer' | 'webhook' | 'child' | 'activity', number> = { timer: 0, webhook: 0, child: 0, activity: 0 };

  constructor(
    readonly record: RunRecord,
    readonly host: RunHost,
    start: ExecutionStart = {},
  ) {
    this.services = host.services;
    this.commands = new CommandLog(start.replay, (command) => host.commandChanged(record, command));
    this.replayReason = start.replay?.reason;
    this.replay = start.replay
      ? new ReplayDelivery(start.replay, (expected) => this.replayStalled(expected))
      : undefined;
    this.trace = start.trace ?? [];
    this.childWorkflowIds = new Set(start.childWorkflowIds);
    this.cancelRequested = start.cancelRequested ?? false;
    this.baseScope = { commands: this, shielded: false };
    this.context = createWorkflowContext(this, () => this.cancelRequested);
    const { workflowName, workflowId, runId, catalog } = record.description;
    this.span = host.tracing.startSpan(`RunWorkflow:${workflowName}`, {
      parent: start.traceparent,
      attributes: { 'flowgate.workflow_id': workflowId, 'flowgate.run_id': runId, 'flowgate.catalog': catalog },
    });
  }

  get run(): Readonly<RunDescription> {
    return this.record.description;
  }

  get feedbackSchema(): z.ZodType | undefined {
    return this.record.definition?.feedbackSchema;
  }

  get abandoned(): boolean {
    return this.abandonedFlag;
  }

  get traceparent(): string | undefined {
    return this.span.traceparent;
  }

  /** Runs the workflow function; called once the run's start is stored and its definition is known. */
  begin(): void {
    const { definition } = this.record;
    if (this.record.closing || this.abandonedFlag || !definition) return;
    const { runTimeoutMs } = definition;
    if (runTimeoutMs !== undefined) {
      // From the run's start, also for a run restored after a restart.
      this.timerAt(this.record.description.startedAt.getTime() + runTimeoutMs, () => void this.host.close(this.record, closings.timedOut(runTimeoutMs)));
    }
    const observer = this.services.observerFor(this.record.description.catalog);
    // A replaying run's hooks already heard of its start. Most workers have no hooks: nothing is built for them.
    if (!this.replay && observer !== silentRunObserver) observer.runStarted(this.workflowDetails());
    this.services.scopes.run(this.baseScope, () =>
      this.span.run(() => {
        this.runWorkflow().catch((error: unknown) => {
          // A close the store could not commit: the engine restores the run from the store and has logged why.
          if (error instanceof StoreWriteError) return;
          this.host.logger.error('embedded engine: run failed internally', this.logFields(error));
        });
      }),
    );
    this.replay?.start();
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
      startTime: this.record.chainStartedAt.getTime(),
      workflowId,
      workflowType: workflowName,
    };
  }

  currentScope(): RunScope {
    const scope = this.services.scopes.getStore();
    return scope?.commands === this ? scope : this.baseScope;
  }

  isCancelled(scope: RunScope): boolean {
    return this.cancelRequested && !scope.shielded;
  }

  nextOrdinal(kind: 'timer' | 'webhook' | 'child' | 'activity'): number {
    this.ordinals[kind] += 1;
    return this.ordinals[kind];
  }

  append(type: HistoryEventType, attributes: Record<string, unknown>, stepName?: string): number {
    if (this.abandonedFlag || this.record.closing) return this.record.history.lastEventId;
    return this.record.history.append(type, attributes, stepName).eventId;
  }

  now(): number {
    return this.host.clock.now();
  }

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

  timerAt(dueAt: number, callback: () => void): () => void {
    const delay = dueAt - this.now();
    if (delay >= 0 || this.abandonedFlag) {
      let cancel = (): void => {};
      const fire = (): void => {
        // node measures a timer on the loop's cached time, which can lag the clock: it may fire a millisecond before
        // its due time by the clock, and a durable timer's timer_fired must never come before it.
        const early = dueAt - this.now();
        if (early > 0 && !this.abandonedFlag) cancel = this.setTimer(early, fire);
        else callback();
      };
      cancel = this.setTimer(Math.max(0, delay), fire);
      return () => cancel();
    }
    const timer: OverdueTimer = { dueAt, callback, cancelled: false };
    this.overdue.push(timer);
    this.scheduleOverdue();
    return () => {
      timer.cancelled = true;
    };
  }

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
    this.replay?.stop();
    this.cancelHandlers.clear();
    for (const cancel of [...this.timerCancellers]) cancel();
    this.timerCancellers.clear();
    this.overdue = [];
    // A wait that will never be served would keep the workflow's frame (its decoded input) alive with the run.
    this.inbox.dropWaiters();
    this.payloads.clear();
  }

  intern(payload: Payload): Payload {
    return this.abandonedFlag ? payload : this.payloads.intern(payload);
  }

  traceStep(trace: StepTrace): void {
    this.trace.push(trace);
  }

  stepOpened(stepEventId: number): void {
    this.record.history.stepOpened(stepEventId);
  }

  stepEnded(stepEventId: number): void {
    this.record.history.stepEnded(stepEventId);
  }

  publishProgress(progress: ProgressEvent): void {
    if (this.abandonedFlag || this.record.closing) return;
    this.record.history.publishProgress(progress);
  }

  childStarted(workflowId: string): void {
    this.childWorkflowIds.add(workflowId);
  }

  call(kind: CommandKind, name: string): CommandCall | undefined {
    if (this.abandonedFlag || this.record.closing) return undefined;
    try {
      // While replaying, the code has seen the replayed outcomes handed back so far.
      return this.commands.call(kind, name, this.replay?.active ? this.replay.deliveredCount : undefined);
    } catch (error) {
      void this.host.close(this.record, closings.failed(serializeFailure(error)));
      return undefined;
    }
  }

  progressed(call: CommandCall, progress: CommandProgress): void {
    if (!this.abandonedFlag) this.commands.progressed(call.record, progress);
  }

  settle<T>(call: CommandCall, outcome: CommandOutcome): Promise<T> {
    if (this.abandonedFlag) return never();
    this.commands.complete(call.record, outcome, this.record.history.lastEventId);
    // What runs for real completed, the first time, after everything a replay hands back.
    if (this.replay?.active) return this.replay.done.then(() => this.afterCommit<T>(outcome));
    return this.afterCommit<T>(outcome);
  }

  replayed<T>(call: CommandCall): Promise<T> {
    const { record } = call;
    // A restored run's trace holds its replayed steps already; a reset run's is built as it replays.
    if (record.trace && this.replayReason === 'reset') this.trace.push(record.trace);
    const outcome = record.outcome;
    if (!outcome || !this.replay) return never();
    return this.replay.turnOf(record.index).then(() => (this.abandonedFlag ? never<T>() : handOver<T>(outcome)));
  }

  cancelledOutcome(message: string): CommandOutcome {
    return { ok: false, error: new CancelledError(message) };
  }

  logFields(error?: unknown): Record<string, unknown> {
    const { workflowId, runId } = this.record.description;
    return error === undefined ? { workflowId, runId } : { workflowId, runId, error: thrownMessage(error) };
  }

  /**
   * Hands an outcome to the code once the store has committed it (at once on the memory store). A commit that failed
   * leaves the run to the engine, which restores it from the store (engine.ts): this execution never resumes.
   */
  private afterCommit<T>(outcome: CommandOutcome): Promise<T> {
    const barrier = this.host.commit(this.record);
    if (!barrier) return handOver<T>(outcome);
    return barrier.then(
      () => (this.abandonedFlag ? never<T>() : handOver<T>(outcome)),
      () => never<T>(),
    );
  }

  /** Timers that fell due while the process was down fire once the replay is over, in due order. */
  private scheduleOverdue(): void {
    if (this.overdueScheduled) return;
    this.overdueScheduled = true;
    void (this.replay?.done ?? Promise.resolve()).then(() =>
      setImmediate(() => {
        this.overdueScheduled = false;
        const due = this.overdue.sort((a, b) => a.dueAt - b.dueAt);
        this.overdue = [];
        for (const timer of due) if (!timer.cancelled && !this.abandonedFlag) timer.callback();
      }),
    );
  }

  private replayStalled(expected: CommandRecord): void {
    const error = new NondeterminismError(
      `After a ${this.replayReason} the workflow did not call ${expected.kind} "${expected.name}" as command ${expected.index + 1}, as the original run did (it waits for something the original run did not)`,
    );
    void this.host.close(this.record, closings.failed(serializeFailure(error)));
  }

  private async runWorkflow(): Promise<void> {
    const { input } = this.record;
    const definition = this.record.definition!;
    const parsedInput = schemaVerdict(definition.inputSchema, input.value());
    if (!parsedInput.success) {
      await this.host.close(this.record, closings.failed(invalidInputFailure(definition.name, parsedInput.issues)));
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
      const error = new NondeterminismError(
        `After a ${this.replayReason} the workflow ended without calling ${missing.kind} "${missing.name}" as command ${missing.index + 1}, as the original run did`,
      );
      closing = closings.failed(serializeFailure(error));
    }
    await this.host.close(this.record, closing);
  }

  private completion(output: unknown): RunClosing {
    const definition = this.record.definition!;
    const parsed = schemaVerdict(definition.outputSchema, output);
    if (!parsed.success) return closings.failed(invalidOutputFailure(definition.name, parsed.issues));
    try {
      return closings.completed(this.intern(Payload.of(parsed.data)));
    } catch (error) {
      return closings.failed(outputNotJsonFailure(definition.name, error));
    }
  }

  private failureClosing(error: unknown): RunClosing {
    if (error instanceof ContinueAsNewRequest) return closings.continuedAsNew(this.intern(error.input));
    if (error instanceof CancelledError && this.cancelRequested) return closings.cancelled();
    return closings.failed(serializeFailure(error));
  }
}

/** An outcome as the code gets it: a decoded copy of the value (the log keeps the original), or the error. */
function handOver<T>(outcome: CommandOutcome): Promise<T> {
  return outcome.ok ? Promise.resolve(outcome.value.value() as T) : Promise.reject(outcome.error);
}
