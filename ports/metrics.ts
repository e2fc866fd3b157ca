import { token } from './token.js';

/** What a step attempt cost, from the hooks' aggregations (docs/hooks.md). */
export interface StepAttemptMetering {
  workflow: string;
  step: string;
  outcome: 'success' | 'failure';
  seconds: number;
  totalCost: number;
  tokens: number;
  httpCalls: number;
}

/**
 * What the API and the workers observe, named by what happened (docs/operations.md, Metrics). Labels are bounded sets:
 * route templates (never paths), operation names, workflow names and statuses. Calls never throw.
 */
export interface Metrics {
  /** An HTTP request answered: `route` is the matched route's template (`/workflow/{id}/status`) or `unmatched`. */
  requestFinished(route: string, method: string, status: number, seconds: number): void;
  /** A call of the WorkflowEngine port, by method name. */
  engineCall(operation: string, seconds: number, failed: boolean): void;
  runStarted(workflow: string): void;
  runClosed(workflow: string, status: string): void;
  /** A server-sent event stream opened (+1) or ended (-1). */
  eventStreamsOpen(delta: 1 | -1): void;
  /** One attempt of a run callback's POST (docs/callbacks.md) answered 2xx, or failed. */
  callbackDelivered(): void;
  callbackFailed(): void;
  /** A keyed request answered from what its key stored (docs/idempotency.md), by operation. */
  idempotencyHit(operation: string): void;
  /** A worker's step (or evaluator) attempt ended: its outcome was decided (a timeout decides before the step returns). */
  stepAttempt(attempt: StepAttemptMetering): void;
  /**
   * What an attempt's hooks reported after its outcome was counted (it timed out, then its step function finished):
   * spent all the same, so counted with the step's aggregations, but not as another attempt.
   */
  stepAggregationsAfterOutcome(aggregations: Omit<StepAttemptMetering, 'outcome' | 'seconds'>): void;
  /**
   * A schedule's fire was acted on (docs/schedules.md): its run `started`, or it was `skipped` or `buffered` by the
   * overlap policy, `missed` (past the catch-up window) or `failed` to start.
   */
  scheduleAction(scheduleId: string, outcome: ScheduleActionOutcome): void;
  /**
   * A schedule was deleted: its series go. Schedule ids are the API callers' to choose, and a deleted schedule's series
   * would otherwise stay for the process's life, one per outcome.
   */
  scheduleDeleted(scheduleId: string): void;
}

export const SCHEDULE_ACTION_OUTCOMES = ['started', 'skipped', 'buffered', 'missed', 'failed'] as const;
export type ScheduleActionOutcome = (typeof SCHEDULE_ACTION_OUTCOMES)[number];

/** Metrics that can be read back in a scrape format (Prometheus text). */
export interface MetricsExposition {
  readonly contentType: string;
  exposition(): Promise<string>;
}

export type ExposedMetrics = Metrics & MetricsExposition;

/** Observes nothing: the default of every part that takes Metrics. */
export const noMetrics: Metrics = {
  requestFinished: () => {},
  engineCall: () => {},
  runStarted: () => {},
  runClosed: () => {},
  eventStreamsOpen: () => {},
  callbackDelivered: () => {},
  callbackFailed: () => {},
  idempotencyHit: () => {},
  stepAttempt: () => {},
  stepAggregationsAfterOutcome: () => {},
  scheduleAction: () => {},
  scheduleDeleted: () => {},
};

export const METRICS = token<ExposedMetrics>('Metrics');
