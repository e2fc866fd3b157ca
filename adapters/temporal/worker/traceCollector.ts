import { recordTrace, type ClosedRunRecord } from '../../../core/trace/recordTrace.js';
import type { ActivityKind, TraceStep } from '../../../core/domain/trace.js';
import { addAggregations, type Aggregations } from '../../../core/definition/hooks.js';
import type { Logger } from '../../../ports/logger.js';
import type { TraceStores } from '../../../ports/traceStore.js';
import type { RunClosedMessage } from '../sandbox/runSink.js';
import type { TraceUploads } from '../../../core/trace/traceUploads.js';

/** Runs whose steps are remembered at once; the oldest are forgotten first (a run ended from outside never reports). */
const MAX_OPEN_RUNS = 10_000;
/** Run ids already written, so a sink call repeated by a workflow-task retry writes nothing twice. */
const MAX_REMEMBERED_CLOSINGS = 10_000;

/** The run's start time as the API will see it (describe), or undefined when it cannot be had. */
export type RunStartTimeLookup = (workflowId: string, runId: string) => Promise<Date | undefined>;

export interface StepAttempt {
  runId: string;
  /** Temporal's activity id: the same for every attempt of one step call. */
  activityId: string;
  name: string;
  kind: ActivityKind;
  input: unknown;
  attempt: number;
}

/**
 * Buffers the steps of each run in memory (one entry per step call, updated by each attempt, as the embedded engine
 * keeps them) and writes the run's trace once, when the sandbox reports the close through the trace sink. Only
 * steps this worker process ran are known: an attempt that ran in another worker is missing from its trace.
 */
export class TraceCollector {
  private readonly runs = new Map<string, Map<string, TraceStep>>();
  private readonly closed = new Set<string>();

  constructor(
    private readonly stores: TraceStores,
    private readonly logger: Logger,
    /**
     * The trace's file name holds the run's start time, and the API computes it from describe. The sandbox only
     * knows its started event's time, which a reset run copies from the original run, so ask the server.
     */
    private readonly runStartTime?: RunStartTimeLookup,
    /**
     * Bounds how long a run's close waits for its remote upload. The close happens in the sink the SDK awaits before
     * it completes the workflow task, so an unbounded upload to a stalled store outlived the task's timeout.
     */
    private readonly uploads?: TraceUploads,
  ) {}

  /** Records the start of an attempt; returns the function that records its end. */
  attemptStarted(attempt: StepAttempt): (end: { output: unknown } | { error: TraceStep['error'] }, aggregations?: Aggregations) => void {
    const steps = this.stepsOf(attempt.runId);
    const now = new Date().toISOString();
    let step = steps.get(attempt.activityId);
    if (!step) {
      step = { name: attempt.name, kind: attempt.kind, input: attempt.input ?? null, output: null, error: null, startedAt: now, endedAt: null, attempt: 0 };
      steps.set(attempt.activityId, step);
    }
    const entry = step;
    entry.attempt = Math.max(entry.attempt, attempt.attempt);
    return (end, aggregations) => {
      // An attempt that returns after a later one began (it outlived its time limit): the later one is the step's.
      if (entry.attempt > attempt.attempt) return;
      entry.endedAt = new Date().toISOString();
      if (aggregations) entry.aggregations = addAggregations(entry.aggregations, aggregations);
      if ('output' in end) {
        entry.output = end.output ?? null;
        entry.error = null;
      } else {
        entry.output = null;
        entry.error = end.error;
      }
    };
  }

  /** The trace sink: merges the run's steps and writes its trace, once per run id. */
  async runClosed(message: RunClosedMessage): Promise<void> {
    if (this.closed.has(message.runId)) return;
    remember(this.closed, message.runId, MAX_REMEMBERED_CLOSINGS);
    const open = this.runs.get(message.runId);
    this.runs.delete(message.runId);
    // What Temporal decided for a last attempt that timed out, whatever its function did (or does later).
    for (const [activityId, failure] of Object.entries(message.timedOutSteps ?? {})) {
      const step = open?.get(activityId);
      if (step) Object.assign(step, { output: null, error: failure, endedAt: step.endedAt ?? message.closedAt });
    }
    const steps = [...(open?.values() ?? [])];
    const record = closedRunRecord(message, steps);
    // The start time the run's memo names the file by (traceLocation.ts), else the server's answer now.
    record.run.startedAt = message.traceStartedAt ? new Date(message.traceStartedAt) : await this.startTimeOf(message);
    await recordTrace(this.stores, this.logger, record, this.uploads);
  }

  /**
   * The start time a run's trace file is named by: the run's start as describe reports it (what the API computes the
   * name from), or its started event's time when the server cannot say.
   */
  async startTimeOf(run: { workflowId: string; runId: string; startedAt: string }): Promise<Date> {
    const fallback = new Date(run.startedAt);
    if (!this.runStartTime) return fallback;
    try {
      return (await this.runStartTime(run.workflowId, run.runId)) ?? fallback;
    } catch (error) {
      this.logger.warn('could not look up the run start time; the trace is named by the started event time', {
        workflowId: run.workflowId,
        runId: run.runId,
        error: error instanceof Error ? error.message : String(error),
      });
      return fallback;
    }
  }

  private stepsOf(runId: string): Map<string, TraceStep> {
    let steps = this.runs.get(runId);
    if (!steps) {
      steps = new Map();
      this.runs.set(runId, steps);
      while (this.runs.size > MAX_OPEN_RUNS) this.runs.delete(this.runs.keys().next().value!);
    }
    return steps;
  }
}

export function closedRunRecord(message: RunClosedMessage, steps: TraceStep[]): ClosedRunRecord {
  return {
    run: {
      workflowId: message.workflowId,
      runId: message.runId,
      workflowName: message.workflowName,
      catalog: message.catalog,
      status: message.status,
      startedAt: new Date(message.startedAt),
      closedAt: new Date(message.closedAt),
      firstRunId: message.firstRunId,
      ...(message.continuedFromRunId ? { continuedFromRunId: message.continuedFromRunId } : {}),
      ...(message.parent ? { parent: message.parent } : {}),
      ...(message.root ? { root: message.root } : {}),
    },
    input: message.input,
    output: message.output,
    failure: message.failure,
    steps,
  };
}

function remember(set: Set<string>, value: string, limit: number): void {
  set.add(value);
  if (set.size > limit) set.delete(set.values().next().value!);
}
