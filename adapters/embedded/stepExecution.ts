import type { ActivityDefinition } from '../../core/definition/activity.js';
import { CancelledError, serializeFailure, StepFailedError, stepTimedOut } from '../../core/definition/failures.js';
import { activityTypeOf } from '../../core/definition/names.js';
import { thrownMessage, thrownNonRetryable } from '../../core/definition/thrownValues.js';
import { isRetryable, isRetryableFailure, retryDelayMs } from '../../core/definition/retry.js';
import { runActivity, stepOutputNotJson } from '../../core/definition/runActivity.js';
import { checkJsonInput } from '../../core/definition/runRules.js';
import { addAggregations } from '../../core/definition/hooks.js';
import type { SerializedFailure } from '../../core/domain/run.js';
import type { CommandCall, CommandOutcome, CommandProgress } from './commandLog.js';
import { Payload } from './payload.js';
import { silentRunObserver } from '../../ports/runObserver.js';
import { meterStepAttempt, type StepAttemptMeter } from '../metrics/stepAttemptMeter.js';
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
  // An input that is no JSON value is a mistake of the workflow code, thrown before anything is recorded (as a bad
  // sleep duration is): recorded, a replay after a restart handed the code a plain Error instead of its TypeError.
  let payload: Payload;
  try {
    checkJsonInput(`The input of ${activity.kind} ${activity.name}`, input);
    payload = Payload.of(input);
  } catch (error) {
    return Promise.reject(error);
  }
  // Counted for replayed calls too, so every call keeps the activity id it had the first time.
  const activityId = String(commands.nextOrdinal('activity'));
  const call = commands.call('step', activity.name);
  if (!call) return never();
  if (call.mode === 'replayed') return commands.replayed(call);
  if (call.mode === 'resumed') return new StepRun(scope, activity, call, call.record.trace!.input, activityId).resume();
  if (commands.isCancelled(scope)) return commands.settle(call, commands.cancelledOutcome(`Step ${activity.name} cancelled`));
  return new StepRun(scope, activity, call, commands.intern(payload), activityId).start();
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
  /** Counts the attempt in flight once its fate is decided (a cancel decides it too). */
  private attemptMeter: StepAttemptMeter | undefined;
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
        span.end({ error: thrownMessage(error) });
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

  /**
   * One attempt, outside the run's async context (a step is an activity, not workflow code), inside its span. Its
   * fate is decided here, and counted (adapters/metrics) as it is decided: failed at the timeout even if the function
   * returns later or never, failed when its result cannot be kept, succeeded only once the result is kept.
   */
  private attemptOnce(span: TraceSpan): Promise<Payload> {
    const { activity, commands } = this;
    const { scopes, stepAttempts, metrics } = commands.services;
    const meter = meterStepAttempt(metrics, { workflow: commands.run.workflowName, step: activity.name });
    this.attemptMeter = meter;
    // Rejected at the timeout, so the worker's hooks report the failure then, not when (or if) the function returns.
    let timedOut: (error: StepTimeoutError) => void = () => {};
    const failedEarly = new Promise<never>((_resolve, reject) => {
      timedOut = reject;
    });
    failedEarly.catch(() => {});
    return new Promise((resolve, reject) => {
      const fail = (error: unknown): void => {
        meter.failed();
        reject(error);
      };
      const stopTimeout = commands.setTimer(activity.timeoutMs, () => {
        const error = new StepTimeoutError(stepTimedOut(this.activityType, this.attempt, activity.timeoutMs).message);
        timedOut(error);
        fail(error);
      });
      const attempt = this.attempt;
      const progress = { publish: (fields: Record<string, unknown>) => this.publishProgress(attempt, fields) };
      let running: Promise<unknown>;
      try {
        running = span.run(() => scopes.exit(() => stepAttempts.run(progress, () => this.observedAttempt(meter, () => runActivity(activity, this.input.value()), failedEarly))));
      } catch (error) {
        running = Promise.reject(error);
      }
      running.then(
        (output) => {
          stopTimeout();
          let payload: Payload;
          try {
            payload = Payload.of(output);
          } catch (error) {
            fail(stepOutputNotJson(activity, error));
            return;
          }
          // Ignored after a timeout: the attempt failed then, whatever its function did later.
          meter.succeeded();
          resolve(payload);
        },
        (error: unknown) => {
          stopTimeout();
          fail(error);
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
   * The attempt inside the worker's hooks when it has any (most workers do not: nothing is built for them), their
   * aggregations reported to the attempt's meter and trace.
   */
  private observedAttempt(meter: StepAttemptMeter, run: () => Promise<unknown>, failedEarly: Promise<never>): Promise<unknown> {
    const { activity, commands } = this;
    const observer = commands.services.observerFor(commands.run.catalog);
    if (observer === silentRunObserver) return run();
    const attempt = {
      workflowDetails: commands.workflowDetails(),
      activityInfo: { activityId: this.activityId, activityType: this.activityType, name: activity.name, attempt: this.attempt },
      outputActivityKind: activity.kind,
    };
    return observer.activityAttempt(
      attempt,
      run,
      (aggregations) => {
        meter.report(aggregations);
        this.trace.aggregations = addAggregations(this.trace.aggregations, aggregations);
      },
      failedEarly,
    );
  }

  private attemptFailed(error: unknown, attempt: number): void {
    const failure = serializeFailure(error);
    this.commands.append('step_failed', { attempt, error: failure }, this.activity.name);
    const nonRetryable = thrownNonRetryable(error);
    const facts = { name: failure.name, nonRetryable };
    const policy = this.activity.retry;
    if (isRetryable(policy, facts, attempt)) {
      const failedAt = this.commands.now();
      this.recordProgress(failedAt);
      this.scheduleRetry(failedAt + retryDelayMs(policy, attempt + 1));
      return;
    }
    // Like Temporal's ApplicationFailure.nonRetryable: a property of the error, not of exhausted attempts.
    const finalFailure: SerializedFailure = { ...failure, retryable: isRetryableFailure(policy, facts) };
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
      this.attemptMeter?.failed();
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
