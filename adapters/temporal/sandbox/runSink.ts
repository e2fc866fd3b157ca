import { proxySinks, type Sinks } from '@temporalio/workflow';
import type { SerializedFailure } from '../../../core/domain/run.js';
import { RUN_SINK } from '../protocol.js';
import { coreWorkflowInfo } from './runState.js';
import { takeStepsTimedOut } from './stepTimeouts.js';

/** The statuses a run can close with from inside its own code (terminated and timed-out runs never get here). */
export type SelfClosedStatus = 'completed' | 'failed' | 'cancelled' | 'continued_as_new';

/**
 * What the sandbox reports when a run closes. Dates travel as ISO strings: sink arguments are copied out of the
 * sandbox, and strings survive every copy.
 */
export interface RunClosedMessage {
  workflowId: string;
  runId: string;
  workflowName: string;
  catalog: string;
  status: SelfClosedStatus;
  /**
   * workflowInfo().startTime. The API finds a trace file by the run's start time as describe reports it; the worker
   * looks that up and keeps this only as a fallback (it differs for reset runs).
   */
  startedAt: string;
  /**
   * The start time the worker named the trace file by as the run closed (sandbox/traceLocation.ts), the same one
   * the run's memo gives the API: the trace is written under it, without asking the server again.
   */
  traceStartedAt?: string;
  closedAt: string;
  firstRunId: string;
  continuedFromRunId?: string;
  parent?: { workflowId: string; runId: string; namespace?: string };
  root?: { workflowId: string; runId: string };
  input: unknown;
  output: unknown;
  failure: SerializedFailure | null;
  /** Step calls whose last attempt Temporal timed out, by activity id, with their failure (stepTimeouts.ts). */
  timedOutSteps?: Record<string, SerializedFailure>;
}

export interface RunClosing {
  status: SelfClosedStatus;
  input: unknown;
  output?: unknown;
  failure?: SerializedFailure | null;
  /** RunClosedMessage.traceStartedAt. */
  traceStartedAt?: string | undefined;
}

export interface FlowgateSinks extends Sinks {
  [RUN_SINK]: {
    /** The run's code began (not called while replaying, so a reset run, which replays its start, does not report). */
    runStarted(): void;
    runClosed(message: RunClosedMessage): void;
  };
}

/** Reports the starting run to the worker, whose hooks see it (worker/runSinks.ts); the sink call carries workflowInfo. */
export function reportRunStarted(): void {
  proxySinks<FlowgateSinks>()[RUN_SINK].runStarted();
}

/** Reports the closing run to the worker, which writes its trace (worker/traceCollector.ts) and tells its hooks. */
export function reportRunClosed(closing: RunClosing): void {
  const info = coreWorkflowInfo();
  const timedOutSteps = takeStepsTimedOut();
  const message: RunClosedMessage = {
    workflowId: info.workflowId,
    runId: info.runId,
    workflowName: info.workflowName,
    catalog: info.catalog,
    status: closing.status,
    startedAt: info.startedAt.toISOString(),
    ...(closing.traceStartedAt ? { traceStartedAt: closing.traceStartedAt } : {}),
    // Workflow time: the start of the workflow task that closes the run.
    closedAt: new Date().toISOString(),
    firstRunId: info.firstRunId,
    ...(info.continuedFromRunId ? { continuedFromRunId: info.continuedFromRunId } : {}),
    ...(info.parent ? { parent: info.parent } : {}),
    ...(info.root ? { root: info.root } : {}),
    input: closing.input,
    output: closing.output,
    failure: closing.failure ?? null,
    ...(timedOutSteps ? { timedOutSteps } : {}),
  };
  proxySinks<FlowgateSinks>()[RUN_SINK].runClosed(message);
}
