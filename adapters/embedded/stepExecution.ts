import type { ActivityDefinition } from '../../core/definition/activity.js';
import { CancelledError, serializeFailure, StepFailedError } from '../../core/definition/failures.js';
import { activityTypeOf } from '../../core/definition/names.js';
import { isRetryable, retryDelayMs } from '../../core/definition/retry.js';
import { runActivity } from '../../core/definition/runActivity.js';
import { addAggregations } from '../../core/definition/hooks.js';
import type { SerializedFailure } from '../../core/domain/run.js';
import type { CommandCall, CommandOutcome, CommandProgress } from './commandLog.js';
import { Payload } from './payload.js';
import { silentRunObserver } from '../../ports/runObserver.js';
import { meteredStepAttempt } from '../metrics/meteredStepAttempt.js';
import type { TraceSpan } from '../../ports/tracing.js';
import type { RunCommands, RunScope } from './runCommands.js';
import { never } from './never.js';
import type { StepTrace } from './stepTrace.js';

/** An attempt that outlived the step's `timeoutMs` (Temporal: a start-to-close timeout). Retryable. */
export class StepTimeoutError extends Error {
  override name = 'StepTimeoutError';
}

/**
 * The attempt a step had under way when the process running it stopped (a crash, a kill, a restart): it counts as a
 * failed attempt and the step's retry policy decides what comes next. Steps run at least once (docs/reliability.md).
 */
export class ProcessStoppedError extends Error {
  override name = 'ProcessStoppedError';
  constructor(attempt: number) {
    super(`The process stopped while attempt ${attempt} of this step was running`);
  }
}

/** A step, evaluator or internal step called by workflow code: recorded, retried, cancellable. */
export function executeStep(scope: RunScope, activity: ActivityDefinition, input: unknown): Promise<unknown> {
  const { commands } = scope;
  // Counted for replayed calls too, so every call keeps the activity id it had the first time.
  const activityId = String(commands.nextOrdinal('activity'));
  const call = commands.call('step', activity.name);
  if (!call) return never();
  if (call.mode === 'replayed') return commands.replayed(call);
  if (call.mode === 'resumed') return new StepRun(scope, activity, call, call.record.trace!.input, activityId).resume();
  if (commands.isCancelled(scope)) return commands.settle(call, commands.cancelledOutcome(`Step ${activity.name} cancelled`));
  let payload: Payload;
  try {
    payload = commands.intern(Payload.of(input));
  } catch (error) {
    return commands.settle(call, { ok: false, error });
  }
  return new StepRun(scope, activity, call, payload, activityId).start();
}

class StepRun {
  private readonly commands: RunCommands;
  private readonly activityType: string;
  private readonly trace: StepTrace;
  private attempt = 0;
  private attemptInFlight = false;
  private finished = false;
  /** The step_scheduled event's id, which names this step call's progress. */
  private stepEventId = 0;
  private progressSeq = 0;
  private stopBackoff: (() => void) | undefined;
  /** The span of the attempt in flight (a child of the run's span). */
  private attemptSpan: TraceSpan | undefined;
  private withdrawCancel: () => void = () => {};
  private deliver: (result: Promise<unknown>) => void = () => {};

  constructor(
    private readonly scope: RunScope,
    private readonly activity: ActivityDefinition,
    private readonly call: CommandCall,
    private readonly input: Payload,
    /** Like Temporal's activity id: one per step call of the run, the same for all its attempts. */
    private readonly activityId: string,
  ) {
    this.commands = scope.commands;
    this.activityType = activityTypeOf(this.commands.run.workflowName, activity.name);
    this.trace = call.record.trace ?? {
      name: activity.name,
      kind: activity.kind,
      input,
      output: null,
      error: null,
      startedAt: new Date(this.commands.now()).toISOString(),
      endedAt: null,
      attempt: 0,
    };
  }

  start(): Promise<unknown> {
    const { activity, commands, trace } = this;
    this.stepEventId = commands.append('step_scheduled', { activityType: this.activityType, kind: activity.kind, input: trace.input }, activity.name);
    commands.stepOpened(this.stepEventId);
    commands.traceStep(trace);
    this.call.record.trace = trace;
    return new Promise((resolve) => {
      this.deliver = resolve;
      this.withdrawCancel = commands.onCancel(this.scope, () => this.cancel());
      this.runAttempt();
    });
  }

  /**
   * After a restart: the step's events and trace are in the history already. An attempt that was running counts as
   * failed ("the process stopped") and the retry policy decides; a retry that was waiting out its backoff starts when
   * the backoff ends.
   */
  resume(): Promise<unknown> {
    const progress = this.call.record.progress;
    if (progress?.kind !== 'step') throw new Error(`step ${this.activity.name} has no progress to resume from`);
    const { commands } = this;
    this.stepEventId = progress.stepEventId;
    this.attempt = progress.attempt;
    commands.stepOpened(this.stepEventId);
    return new Promise((resolve) => {
      this.deliver = resolve;
      this.withdrawCancel = commands.onCancel(this.scope, () => this.cancel());
      if (commands.isCancelled(this.scope)) {
        this.cancel();
        return;
      }
      if (progress.inFlight || progress.failedAt === undefined) {
        this.attemptFailed(new ProcessStoppedError(this.attempt), this.attempt);
        return;
      }
      this.scheduleRetry(progress.failedAt + retryDelayMs(this.activity.retry, this.attempt + 1));
    });
  }

  private runAttempt(): void {
    this.attempt += 1;
    const attempt = this.attempt;
    this.trace.attempt = attempt;
    this.attemptInFlight = true;
    this.commands.append('step_started', { attempt }, this.activity.name);
    this.recordProgress();
    const span = this.startAttemptSpan(attempt);
    this.attemptOnce(span).then(
      (result) => {
        span.end();
        if (this.finished || this.commands.abandoned) return;
        this.attemptInFlight = false;
        const output = this.commands.intern(result);
        this.commands.append('step_completed', { attempt, output }, this.activity.name);
        this.trace.output = output;
        this.finish({ ok: true, value: output });
      },
      (error: unknown) => {
        span.end({ error: error instanceof Error ? error.message : String(error) });
        if (this.finished || this.commands.abandoned) return;
        this.attemptInFlight = false;
        this.attemptFailed(error, attempt);
      },
    );
  }

  private recordProgress(failedAt?: number): void {
    const progress: CommandProgress = {
      kind: 'step',
      stepEventId: this.stepEventId,
      attempt: this.attempt,
      inFlight: this.attemptInFlight,
      ...(failedAt === undefined ? {} : { failedAt }),
    };
    this.commands.progressed(this.call, progress);
  }

  /** Named as Temporal's interceptors name an activity attempt, so a trace reads the same on both engines. */
  private startAttemptSpan(attempt: number): TraceSpan {
    const { commands, activity } = this;
    this.attemptSpan = commands.services.tracing.startSpan(`RunActivity:${this.activityType}`, {
      parent: commands.traceparent,
      attributes: { 'flowgate.step': activity.name, 'flowgate.attempt': attempt, 'flowgate.activity_id': this.activityId },
    });
    return this.attemptSpan;
  }

  /** One attempt, outside the run's async context (a step is an activity, not workflow code), inside its span. */
  private attemptOnce(span: TraceSpan): Promise<Payload> {
    const { activity, commands } = this;
    const { scopes, stepAttempts } = commands.services;
    return new Promise((resolve, reject) => {
      const stopTimeout = commands.setTimer(activity.timeoutMs, () =>
        reject(new StepTimeoutError(`Step ${this.activityType} attempt ${this.attempt} timed out after ${activity.timeoutMs} ms`)),
      );
      const attempt = this.attempt;
      const progress = { publish: (fields: Record<string, unknown>) => this.publishProgress(attempt, fields) };
      span
        .run(() => scopes.exit(() => stepAttempts.run(progress, () => this.observedAttempt(() => runActivity(activity, this.input.value())))))
        .then(
          (output) => {
            stopTimeout();
            try {
              resolve(Payload.of(output));
            } catch (error) {
              reject(error);
            }
          },
          (error: unknown) => {
            stopTimeout();
            reject(error);
          },
        );
    });
  }

  /** Progress of the attempt still in flight; an attempt that timed out or a finished step reports nothing more. */
  private publishProgress(attempt: number, fields: Record<string, unknown>): void {
    const { commands } = this;
    if (this.finished || !this.attemptInFlight || attempt !== this.attempt || commands.abandoned) return;
    this.progressSeq += 1;
    commands.publishProgress({
      stepEventId: this.stepEventId,
      stepName: this.activity.name,
      attempt,
      seq: this.progressSeq,
      time: new Date(commands.now()).toISOString(),
      fields,
    });
  }

  /**
   * The attempt counted (adapters/metrics), inside the worker's hooks when it has any (most workers do not: nothing is
   * built for them).
   */
  private observedAttempt(run: () => Promise<unknown>): Promise<unknown> {
    const { activity, commands } = this;
    const { services } = commands;
    const observer = services.observerFor(commands.run.catalog);
    const labels = { workflow: commands.run.workflowName, step: activity.name };
    if (observer === silentRunObserver) return meteredStepAttempt(services.metrics, labels, run);
    const attempt = {
      workflowDetails: commands.workflowDetails(),
      activityInfo: { activityId: this.activityId, activityType: this.activityType, name: activity.name, attempt: this.attempt },
      outputActivityKind: activity.kind,
    };
    return meteredStepAttempt(services.metrics, labels, (report) =>
      observer.activityAttempt(attempt, run, (aggregations) => {
        report(aggregations);
        this.trace.aggregations = addAggregations(this.trace.aggregations, aggregations);
      }),
    );
  }

  private attemptFailed(error: unknown, attempt: number): void {
    const failure = serializeFailure(error);
    this.commands.append('step_failed', { attempt, error: failure }, this.activity.name);
    const nonRetryable = (error as { nonRetryable?: unknown } | null)?.nonRetryable === true;
    const facts = { name: failure.name, nonRetryable };
    const policy = this.activity.retry;
    if (isRetryable(policy, facts, attempt)) {
      const failedAt = this.commands.now();
      this.recordProgress(failedAt);
      this.scheduleRetry(failedAt + retryDelayMs(policy, attempt + 1));
      return;
    }
    // Like Temporal's ApplicationFailure.nonRetryable: a property of the error, not of exhausted attempts.
    const finalFailure: SerializedFailure = { ...failure, retryable: !(nonRetryable || policy.nonRetryableErrorNames.includes(failure.name)) };
    this.trace.error = { ...finalFailure, activityType: this.activityType };
    this.finish({ ok: false, error: new StepFailedError(this.activityType, finalFailure) });
  }

  private scheduleRetry(dueAt: number): void {
    this.stopBackoff = this.commands.timerAt(dueAt, () => {
      this.stopBackoff = undefined;
      this.runAttempt();
    });
  }

  private cancel(): void {
    if (this.finished) return;
    const error = new CancelledError(`Step ${this.activityType} cancelled`);
    const failure = serializeFailure(error);
    if (this.attemptInFlight) {
      this.commands.append('step_failed', { attempt: this.attempt, error: failure }, this.activity.name);
      this.attemptSpan?.end({ error: failure.message });
    }
    this.trace.error = failure;
    this.finish({ ok: false, error });
  }

  private finish(outcome: CommandOutcome): void {
    if (this.finished) return;
    this.finished = true;
    this.commands.stepEnded(this.stepEventId);
    this.withdrawCancel();
    this.stopBackoff?.();
    this.trace.endedAt = new Date(this.commands.now()).toISOString();
    this.deliver(this.commands.settle(this.call, outcome));
  }
}
