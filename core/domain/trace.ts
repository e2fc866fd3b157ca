import type { SerializedFailure } from './run.js';

export type ActivityKind = 'step' | 'evaluator' | 'internal_step';

/** One step of a trace (docs/api.md, Trace log). */
export type TraceStep = {
  name: string;
  kind: ActivityKind;
  input: unknown;
  output: unknown;
  error: SerializedFailure | null;
  startedAt: string;
  endedAt: string | null;
  attempt: number;
  /** What the step's last attempt cost and called (worker hooks: cost events, HTTP calls, tokens). */
  aggregations?: { totalCost: number; httpCalls: number; tokens: number } | undefined;
};

/** The content of a trace file. A type, as SerializedFailure is: the wire's schema of it is open to more fields. */
export type TraceRecord = {
  workflowId: string;
  runId: string;
  workflowName: string;
  input: unknown;
  output: unknown;
  error: SerializedFailure | null;
  startedAt: string;
  closedAt: string | null;
  steps: TraceStep[];
};

/** Where a run's trace is; a destination that does not exist is absent, never null. */
export interface TraceDestinations {
  local?: string;
  remote?: string;
}

/** What identifies a run's trace in every store. */
export interface TraceKey {
  workflowName: string;
  workflowId: string;
  runId: string;
  startedAt: Date;
}
