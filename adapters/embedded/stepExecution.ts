import type { ActivityDefinition } from '../../core/definition/activity.js';
import { CancelledError, serializeFailure, StepFailedError } from '../../core/definition/failures.js';
import { activityTypeOf } from '../../core/definition/names.js';
import { isRetryable, retryDelayMs } from '../../core/definition/retry.js';
import { runActivity } from '../../core/definition/runActivity.js';
import { addAggregations } from '../../core/definition/hooks.js';
import type { SerializedFailure } from '../../core/domain/run.js';
import type { CommandCall, CommandOutcome } from './commandLog.js';
import { Payload } from './payload.js';
import { silentRunObserver } from '../../ports/runObserver.js';
import { meteredStepAttempt } from '../metrics/meteredStepAttempt.js';
import type { TraceSpan } from '../../ports/tracing.js';
import type { RunScope } from './runHost.js';
import { never } from './never.js';
import type { RunExecution } from './runExecution.js';
import type { StepTrace } from './stepTrace.js';

/** An attempt that outlived the step's `timeoutMs` (Temporal: a start-to-close timeout). Retryable. */
export class StepTimeoutError extends Error {
  override name = 'StepTimeoutError';
}

/** A step, evaluator or internal step called by workflow code: recorded, retried, cancellable. */
export function executeStep(scope: RunScope, activity: ActivityDefinition, input: unknown): Promise<unknown> {
  const { execution } = scope;
  const call = execution.call('step', activity.name);
  if (!call) return never();
  if (call.replayed) return execution.replay(call.record);
  if (execution.isCancelled(scope)) return execution.settle(call, execution.cancelledOutcome(`Step ${activity.name} cancelled`));
  let payload: Payload;
  try {
    payload = execution.intern(Payload.of(input));
  } catch (error) {
    return execution.settle(call, { ok: false, error });
  }
  return new StepRun(scope, activity, call, payload).start();
}

class StepRun {
  private readonly execution: RunExecution;
  private readonly activityType: string;
  /** Like Temporal's activity id: one per step call of the run, the same for all its attempts. */
  private readonly activityId: string;
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
  ) {
    this.execution = scope.execution;
    this.activityType = activityTypeOf(this.execution.record.description.workflowName, activity.name);
    this.activityId = String(this.execution.nextOrdinal('activity'));
    this.trace = {
      name: activity.name,
      kind: activity.kind,
      input,
      output: null,
      error: null,
      startedAt: this.execution.now(),
      endedAt: null,
      attempt: 0,
    };
  }

  start(): Promise<unknown> {
    const { activity, execution, trace } = this;
    execution.append('step_scheduled', { activityType: this.activityType, kind: activity.kind, input: trace.input }, activity.name);
    this.stepEventId = execution.record.history.lastEventId;
    execution.record.history.stepOpened(this.stepEventId);
    execution.trace.push(trace);
    this.call.record.trace = trace;
    return new Promise((resolve) => {
      this.deliver = resolve;
      this.withdrawCancel = execution.onCancel(this.scope, () => this.cancel());
      this.runAttempt();
    });
  }

  private runAttempt(): void {
    this.attempt += 1;
    const attempt = this.attempt;
    this.trace.attempt = attempt;
    this.attemptInFlight = true;
    this.execution.append('step_started', { attempt }, this.activity.name);
    const span = this.startAttemptSpan(attempt);
    this.attemptOnce(span).then(
      (result) => {
        span.end();
        if (this.finished || this.execution.abandoned) return;
        this.attemptInFlight = false;
        const output = this.execution.intern(result);
        this.execution.append('step_completed', { attempt, output }, this.activity.name);
        this.trace.output = output;
        this.finish({ ok: true, value: output });
      },
      (error: unknown) => {
        span.end({ error: error instanceof Error ? error.message : String(error) });
        if (this.finished || this.execution.abandoned) return;
        this.attemptInFlight = false;
        this.attemptFailed(error, attempt);
      },
    );
  }

  /** Named as Temporal's interceptors name an activity attempt, so a trace reads the same on both engines. */
  private startAttemptSpan(attempt: number): TraceSpan {
    const { execution, activity } = this;
    this.attemptSpan = execution.host.tracing.startSpan(`RunActivity:${this.activityType}`, {
      parent: execution.span.traceparent,
      attributes: { 'flowgate.step': activity.name, 'flowgate.attempt': attempt, 'flowgate.activity_id': this.activityId },
    });
    return this.attemptSpan;
  }

  /** One attempt, outside the run's async context (a step is an activity, not workflow code), inside its span. */
  private attemptOnce(span: TraceSpan): Promise<Payload> {
    const { activity, execution } = this;
    return new Promise((resolve, reject) => {
      const stopTimeout = execution.setTimer(activity.timeoutMs, () =>
        reject(new StepTimeoutError(`Step ${this.activityType} attempt ${this.attempt} timed out after ${activity.timeoutMs} ms`)),
      );
      const attempt = this.attempt;
      const progress = { publish: (fields: Record<string, unknown>) => this.publishProgress(attempt, fields) };
      span
        .run(() => execution.host.scopes.exit(() => execution.host.stepAttempts.run(progress, () => this.observedAttempt(() => runActivity(activity, this.input.value())))))
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
    const { execution } = this;
    if (this.finished || !this.attemptInFlight || attempt !== this.attempt || execution.abandoned || execution.record.closing) return;
    this.progressSeq += 1;
    execution.record.history.publishProgress({
      stepEventId: this.stepEventId,
      stepName: this.activity.name,
      attempt,
      seq: this.progressSeq,
      time: new Date(execution.now()).toISOString(),
      fields,
    });
  }

  /**
   * The attempt counted (adapters/metrics), inside the worker's hooks when it has any (most workers do not: nothing is
   * built for them).
   */
  private observedAttempt(run: () => Promise<unknown>): Promise<unknown> {
    const { activity, execution } = this;
    const observer = execution.host.observerFor(execution.record.description.catalog);
    const labels = { workflow: execution.record.description.workflowName, step: activity.name };
    if (observer === silentRunObserver) return meteredStepAttempt(execution.host.metrics, labels, run);
    const attempt = {
      workflowDetails: execution.workflowDetails(),
      activityInfo: { activityId: this.activityId, activityType: this.activityType, name: activity.name, attempt: this.attempt },
      outputActivityKind: activity.kind,
    };
    return meteredStepAttempt(execution.host.metrics, labels, (report) =>
      observer.activityAttempt(attempt, run, (aggregations) => {
        report(aggregations);
        this.trace.aggregations = addAggregations(this.trace.aggregations, aggregations);
      }),
    );
  }

  private attemptFailed(error: unknown, attempt: number): void {
    const failure = serializeFailure(error);
    this.execution.append('step_failed', { attempt, error: failure }, this.activity.name);
    const nonRetryable = (error as { nonRetryable?: unknown } | null)?.nonRetryable === true;
    const facts = { name: failure.name, nonRetryable };
    const policy = this.activity.retry;
    if (isRetryable(policy, facts, attempt)) {
      this.stopBackoff = this.execution.setTimer(retryDelayMs(policy, attempt + 1), () => {
        this.stopBackoff = undefined;
        this.runAttempt();
      });
      return;
    }
    // Like Temporal's ApplicationFailure.nonRetryable: a property of the error, not of exhausted attempts.
    const finalFailure: SerializedFailure = { ...failure, retryable: !(nonRetryable || policy.nonRetryableErrorNames.includes(failure.name)) };
    this.trace.error = { ...finalFailure, activityType: this.activityType };
    this.finish({ ok: false, error: new StepFailedError(this.activityType, finalFailure) });
  }

  private cancel(): void {
    if (this.finished) return;
    const error = new CancelledError(`Step ${this.activityType} cancelled`);
    const failure = serializeFailure(error);
    if (this.attemptInFlight) {
      this.execution.append('step_failed', { attempt: this.attempt, error: failure }, this.activity.name);
      this.attemptSpan?.end({ error: failure.message });
    }
    this.trace.error = failure;
    this.finish({ ok: false, error });
  }

  private finish(outcome: CommandOutcome): void {
    if (this.finished) return;
    this.finished = true;
    this.execution.record.history.stepEnded(this.stepEventId);
    this.withdrawCancel();
    this.stopBackoff?.();
    this.trace.endedAt = this.execution.now();
    this.deliver(this.execution.settle(this.call, outcome));
  }
}
