import { AsyncLocalStorage } from 'node:async_hooks';
import { addEventSink, type Aggregations, type HooksDefinition } from '../../core/definition/hooks.js';
import { serializeFailure } from '../../core/definition/failures.js';
import type { Logger } from '../../ports/logger.js';
import type { ObservedAttempt, ObservedRunEnd, RunObserver } from '../../ports/runObserver.js';
import type { WorkflowDetails } from '../../core/definition/hooks.js';
import { HookBus, type HookBusOptions } from './hookBus.js';
import { observeHttpRequests } from './httpRequestEvents.js';

interface AttemptScope extends ObservedAttempt {
  aggregations: Aggregations;
}

/**
 * Worker hooks as the engines' RunObserver: lifecycle hooks from the engine's reports, named events from the code of
 * the activity attempt that is running (AsyncLocalStorage), `http:request` from undici's diagnostics channels, and
 * per-attempt aggregations of cost events, HTTP calls and tokens.
 */
export class HookRuntime implements RunObserver {
  readonly bus: HookBus;
  private readonly attempts = new AsyncLocalStorage<AttemptScope>();
  private readonly detach: (() => void)[] = [];

  constructor(definitions: readonly HooksDefinition[], options: HookBusOptions) {
    this.bus = new HookBus(definitions, options);
    this.detach.push(
      addEventSink({
        emit: (name, fields) => {
          const scope = this.attempts.getStore();
          if (!scope) return false;
          this.named(scope, name, fields);
          return true;
        },
      }),
      observeHttpRequests({
        currentContext: () => this.attempts.getStore(),
        onRequest: (event, scope) => this.named(scope, 'http:request', { ...event }),
        onListenerError: (error) => options.logger.warn('http:request event failed', { error: serializeFailure(error).message }),
      }),
    );
  }

  runStarted(details: WorkflowDetails): void {
    if (this.bus.listens('onWorkflowStart')) this.bus.fire('onWorkflowStart', { ...this.bus.envelope(), workflowDetails: details });
  }

  runEnded(details: WorkflowDetails, end: ObservedRunEnd): void {
    if (!('error' in end)) {
      if (this.bus.listens('onWorkflowEnd')) this.bus.fire('onWorkflowEnd', { ...this.bus.envelope(), workflowDetails: details });
      return;
    }
    this.bus.fire('onWorkflowError', { ...this.bus.envelope(), workflowDetails: details, error: end.error });
    this.bus.fire('onError', { ...this.bus.envelope(), source: 'workflow', workflowDetails: details, error: end.error });
  }

  async activityAttempt<T>(
    attempt: ObservedAttempt,
    run: () => Promise<T>,
    aggregated?: (aggregations: Aggregations) => void,
    failedEarly?: Promise<never>,
  ): Promise<T> {
    const scope: AttemptScope = { ...attempt, aggregations: { totalCost: 0, httpCalls: 0, tokens: 0 } };
    const envelope = { workflowDetails: attempt.workflowDetails, activityInfo: attempt.activityInfo, outputActivityKind: attempt.outputActivityKind };
    this.bus.fire('onActivityStart', { ...this.bus.envelope(), ...envelope });
    const running = this.attempts.run(scope, run);
    let settled = false;
    const done = (): void => {
      settled = true;
    };
    running.then(done, done);
    try {
      const output = await (failedEarly ? Promise.race([running, failedEarly]) : running);
      aggregated?.({ ...scope.aggregations });
      this.bus.fire('onActivityEnd', { ...this.bus.envelope(), ...envelope, aggregations: { ...scope.aggregations } });
      return output;
    } catch (error) {
      const failure = serializeFailure(error);
      const reported = { ...scope.aggregations };
      // Failed by the engine (a timeout) while the code runs on: what it spends from now is reported when it settles.
      if (!settled) running.then(() => reportLate(scope.aggregations, reported, aggregated), () => reportLate(scope.aggregations, reported, aggregated));
      aggregated?.(reported);
      this.bus.fire('onActivityError', { ...this.bus.envelope(), ...envelope, aggregations: { ...scope.aggregations }, error: failure });
      this.bus.fire('onError', { ...this.bus.envelope(), source: 'activity', ...envelope, error: failure });
      throw error;
    }
  }

  /** Stops listening for events and HTTP calls; handlers still running finish (bounded by their time limit). */
  async close(): Promise<void> {
    for (const detach of this.detach.splice(0)) detach();
    await this.bus.settled();
  }

  private named(scope: AttemptScope, name: string, fields: Record<string, unknown>): void {
    aggregate(scope.aggregations, name, fields);
    this.bus.fireNamed(name, { workflowDetails: scope.workflowDetails, activityInfo: scope.activityInfo, outputActivityKind: scope.outputActivityKind }, fields);
  }
}

/** What an attempt's code spent after its failure was reported (it outlived its timeout), if anything. */
function reportLate(now: Aggregations, reported: Aggregations, aggregated: ((aggregations: Aggregations) => void) | undefined): void {
  const late = { totalCost: now.totalCost - reported.totalCost, httpCalls: now.httpCalls - reported.httpCalls, tokens: now.tokens - reported.tokens };
  if (late.totalCost !== 0 || late.httpCalls !== 0 || late.tokens !== 0) aggregated?.(late);
}

/** Cost events add their `cost` (and an LLM call's tokens); every `http:request` counts one HTTP call. */
function aggregate(aggregations: Aggregations, name: string, fields: Record<string, unknown>): void {
  if (name === 'http:request') aggregations.httpCalls += 1;
  if (name === 'cost:http:request' || name === 'cost:llm:request') {
    const cost = fields.cost;
    if (typeof cost === 'number' && Number.isFinite(cost)) aggregations.totalCost += cost;
  }
  if (name === 'cost:llm:request') {
    const tokens = typeof fields.tokens === 'number' && Number.isFinite(fields.tokens) ? fields.tokens : sum(fields.inputTokens, fields.outputTokens);
    if (Number.isFinite(tokens)) aggregations.tokens += tokens;
  }
}

function sum(...values: unknown[]): number {
  return values.reduce<number>((total, value) => total + (typeof value === 'number' && Number.isFinite(value) ? value : 0), 0);
}
