import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { SCHEDULE_ACTION_OUTCOMES, type ExposedMetrics, type ScheduleActionOutcome, type StepAttemptMetering } from '../../ports/metrics.js';

export interface PromMetricsOptions {
  /** Prefix of every metric name. @default 'flowgate_' */
  prefix?: string;
  /** Also export Node's process metrics (CPU, memory, event loop lag, GC). @default true */
  processMetrics?: boolean;
}

const processRegistries = new Map<string, Registry>();

/**
 * Node's process metrics (CPU, memory, heap, event loop delay, GC, handles), collected once per process and prefix:
 * their collectors (an event loop monitor, a GC observer) live as long as the process.
 */
function processMetricsRegistry(prefix: string): Registry {
  let registry = processRegistries.get(prefix);
  if (!registry) {
    registry = new Registry();
    // The event loop delay is sampled every 100 ms, not prom-client's 10 ms: a timer every 10 ms measurably shifted
    // when a busy server got to new connections (tests/integration, graceful shutdown).
    collectDefaultMetrics({ register: registry, prefix, eventLoopMonitoringPrecision: 100 });
    // prom-client names these gauges `_total`, the suffix Prometheus keeps for counters (`promtool check metrics`
    // refuses them). Each is the sum of its family by type, which stays: `sum(flowgate_nodejs_active_handles)`.
    for (const family of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`${prefix}nodejs_active_${family}_total`);
    processRegistries.set(prefix, registry);
  }
  return registry;
}

/** Seconds: from a status read (milliseconds) to a run-and-wait (up to an hour). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The Metrics port in Prometheus' text format, on a registry of its own (several flowgates can share a process, as
 * the tests do). Metric names: docs/operations.md, Metrics.
 */
export class PromMetrics implements ExposedMetrics {
  readonly registry = new Registry();
  /** The process's own metrics, shared by every PromMetrics of the process (they describe one process). */
  private readonly processRegistry: Registry | undefined;
  private readonly requests: Histogram<'route' | 'method' | 'status'>;
  private readonly engineCalls: Histogram<'operation'>;
  private readonly engineErrors: Counter<'operation'>;
  private readonly runsStarted: Counter<'workflow'>;
  private readonly runsClosed: Counter<'workflow' | 'status'>;
  private readonly eventStreams: Gauge;
  private readonly callbacks: Counter<'outcome'>;
  private readonly idempotencyHits: Counter<'operation'>;
  private readonly scheduleActions: Counter<'schedule' | 'outcome'>;
  private readonly stepAttempts: Histogram<'workflow' | 'step' | 'outcome'>;
  private readonly stepCost: Counter<'workflow' | 'step'>;
  private readonly stepTokens: Counter<'workflow' | 'step'>;
  private readonly stepHttpCalls: Counter<'workflow' | 'step'>;

  constructor(options: PromMetricsOptions = {}) {
    const prefix = options.prefix ?? 'flowgate_';
    const registers = [this.registry];
    this.processRegistry = (options.processMetrics ?? true) ? processMetricsRegistry(prefix) : undefined;
    this.requests = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'HTTP requests answered, by route template, method and status, with their duration (streams: until they end).',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.engineCalls = new Histogram({
      name: `${prefix}engine_call_duration_seconds`,
      help: 'Calls of the workflow engine (embedded or Temporal), by operation, with their duration.',
      labelNames: ['operation'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.engineErrors = new Counter({
      name: `${prefix}engine_call_errors_total`,
      help: 'Engine calls that failed (any error, a run not found included), by operation.',
      labelNames: ['operation'],
      registers,
    });
    this.runsStarted = new Counter({ name: `${prefix}runs_started_total`, help: 'Runs started, by workflow.', labelNames: ['workflow'], registers });
    this.runsClosed = new Counter({
      name: `${prefix}runs_closed_total`,
      help: 'Runs closed, by workflow and status.',
      labelNames: ['workflow', 'status'],
      registers,
    });
    this.eventStreams = new Gauge({ name: `${prefix}event_streams_open`, help: 'Server-sent event streams open now.', registers });
    this.callbacks = new Counter({
      name: `${prefix}callback_attempts_total`,
      help: 'Run callback POST attempts, by outcome (delivered: a 2xx; failed: anything else).',
      labelNames: ['outcome'],
      registers,
    });
    this.scheduleActions = new Counter({
      name: `${prefix}schedule_actions_total`,
      help: 'Schedule fires acted on by this process, by schedule and outcome (started, skipped, buffered, missed, failed).',
      labelNames: ['schedule', 'outcome'],
      registers,
    });
    this.idempotencyHits = new Counter({
      name: `${prefix}idempotency_hits_total`,
      help: 'Keyed requests answered from what their Idempotency-Key stored, by operation.',
      labelNames: ['operation'],
      registers,
    });
    this.stepAttempts = new Histogram({
      name: `${prefix}step_attempt_duration_seconds`,
      help: 'Step and evaluator attempts run by this worker, by workflow, step and outcome, with their duration.',
      labelNames: ['workflow', 'step', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const stepCounter = (name: string, help: string) => new Counter({ name: `${prefix}${name}`, help, labelNames: ['workflow', 'step'], registers });
    this.stepCost = stepCounter('step_cost_total', 'Cost reported by step attempts (cost events, docs/hooks.md), by workflow and step.');
    this.stepTokens = stepCounter('step_tokens_total', 'LLM tokens reported by step attempts, by workflow and step.');
    this.stepHttpCalls = stepCounter('step_http_calls_total', 'HTTP calls made by step attempts, by workflow and step.');
    // Present from the first scrape, so a dashboard's rate() has a zero to start from.
    this.eventStreams.set(0);
    this.callbacks.inc({ outcome: 'delivered' }, 0);
    this.callbacks.inc({ outcome: 'failed' }, 0);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  async exposition(): Promise<string> {
    const own = await this.registry.metrics();
    return this.processRegistry ? `${own}\n${await this.processRegistry.metrics()}` : own;
  }

  requestFinished(route: string, method: string, status: number, seconds: number): void {
    this.requests.observe({ route, method: KNOWN_METHODS.has(method) ? method : 'other', status: String(status) }, seconds);
  }

  engineCall(operation: string, seconds: number, failed: boolean): void {
    this.engineCalls.observe({ operation }, seconds);
    if (failed) this.engineErrors.inc({ operation });
  }

  runStarted(workflow: string): void {
    this.runsStarted.inc({ workflow });
  }

  runClosed(workflow: string, status: string): void {
    this.runsClosed.inc({ workflow, status });
  }

  eventStreamsOpen(delta: 1 | -1): void {
    this.eventStreams.inc(delta);
  }

  callbackDelivered(): void {
    this.callbacks.inc({ outcome: 'delivered' });
  }

  callbackFailed(): void {
    this.callbacks.inc({ outcome: 'failed' });
  }

  scheduleAction(scheduleId: string, outcome: ScheduleActionOutcome): void {
    this.scheduleActions.inc({ schedule: scheduleId, outcome });
  }

  scheduleDeleted(scheduleId: string): void {
    for (const outcome of SCHEDULE_ACTION_OUTCOMES) this.scheduleActions.remove({ schedule: scheduleId, outcome });
  }

  idempotencyHit(operation: string): void {
    this.idempotencyHits.inc({ operation });
  }

  stepAttempt(attempt: StepAttemptMetering): void {
    this.stepAttempts.observe({ workflow: attempt.workflow, step: attempt.step, outcome: attempt.outcome }, attempt.seconds);
    this.stepAggregationsAfterOutcome(attempt);
  }

  stepAggregationsAfterOutcome(aggregations: Omit<StepAttemptMetering, 'outcome' | 'seconds'>): void {
    const labels = { workflow: aggregations.workflow, step: aggregations.step };
    if (aggregations.totalCost > 0) this.stepCost.inc(labels, aggregations.totalCost);
    if (aggregations.tokens > 0) this.stepTokens.inc(labels, aggregations.tokens);
    if (aggregations.httpCalls > 0) this.stepHttpCalls.inc(labels, aggregations.httpCalls);
  }
}
