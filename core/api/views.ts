import type { HistoryEvent } from '../domain/history.js';
import type { JsonSchema } from '../domain/json.js';
import type { ProgressEvent } from '../domain/progress.js';
import type { RunStatus, TerminalStatus } from '../domain/status.js';
import type { SerializedFailure } from '../domain/run.js';
import type { TraceDestinations, TraceRecord } from '../domain/trace.js';

/** GET /auth/key (docs/security.md). */
export type { KeyDescription } from '../domain/access.js';

/**
 * What a call that changes something answers: `answer` is its response; `expiresAt` is set when the call carried an
 * idempotency key (IdempotencyOptions) and says until when a retry with that key gets this same answer.
 */
export interface Answer<T> {
  answer: T;
  expiresAt?: Date;
}

/** Status response, run-list item and history metadata (docs/api.md). Times are ISO 8601 UTC. */
export interface RunStatusView {
  workflowId: string;
  runId: string;
  workflowName: string;
  catalog: string;
  status: RunStatus;
  startedAt: string;
  closedAt: string | null;
  /** Only on a run a rerun started (and the continue-as-new runs and resets of its chain): the run it repeats. */
  rerunOf?: RunRefView;
  /** Only on a run an API key started (and the runs of its chain): the key's id. */
  startedBy?: string;
  /** Only on a run a schedule started: the schedule's id. */
  scheduleId?: string;
}

/** Workflow result, version 2: exactly these keys. */
export interface WorkflowResultV2 {
  v: '2';
  workflowId: string;
  runId: string | null;
  status: TerminalStatus;
  input: unknown;
  output: unknown;
  trace: TraceDestinations | null;
  error: SerializedFailure | null;
}

export interface LegacyErrorDetails {
  message: string | null;
  name: string | null;
  retryable: boolean | null;
  activityId: string | null;
  cause: Record<string, unknown> | null;
}

/** Workflow result, legacy (deprecated): exactly these keys. */
export interface WorkflowResultLegacy {
  workflowId: string;
  runId: string | null;
  status: TerminalStatus;
  input: unknown;
  output: unknown;
  trace: { destinations: TraceDestinations } | null;
  error: string | null;
  errorDetails: LegacyErrorDetails | null;
}

export type ResultVersion = '2' | 'legacy';
export type WorkflowResult = WorkflowResultV2 | WorkflowResultLegacy;

export interface StartView {
  workflowId: string;
  runId: string;
  status: 'running';
}

export interface RunRefView {
  workflowId: string;
  runId: string;
}

export interface TerminateView {
  terminated: true;
  workflowId: string;
  runId: string;
}

export interface InputView {
  workflowId: string;
  runId: string;
  input: unknown;
}

export interface RunListView {
  runs: RunStatusView[];
  nextPageToken: string | null;
}

export interface HistoryPageView {
  workflow: RunStatusView;
  events: HistoryEvent[];
  nextPageToken: string | null;
}

/** One item of a history stream; the HTTP adapter frames these as server-sent events. */
export type HistoryStreamItem =
  | { event: 'workflow'; data: RunStatusView }
  | { event: 'history'; id: number; data: HistoryEvent }
  /** `id`: the stream position after it (core/domain/progress.ts), for Last-Event-ID. */
  | { event: 'progress'; id: string; data: ProgressEvent }
  | { event: 'done'; data: { status: RunStatus } };

export type TraceLogView =
  /** `data` is absent when the stored object is not a readable trace and no local copy is (docs/api.md, Trace log). */
  | { source: 'remote'; runId: string; data?: TraceRecord }
  | { source: 'local'; runId: string; localPath: string; data?: TraceRecord };

export type ReadinessView =
  | { status: 'ready'; engine: string }
  | { status: 'unavailable'; engine: string; message: string };

/**
 * One workflow type of a catalog, with the JSON Schemas (draft 2020-12) its input, output and, when it declares one,
 * webhook replies (POST /workflow/feedback `payload`) are checked against.
 */
export interface WorkflowListEntry {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  feedbackSchema?: JsonSchema;
}

export interface WorkflowListView {
  workflows: WorkflowListEntry[];
}

/** One run a bulk operation could not act on, with the error a single call would have answered. */
export interface BulkFailureView {
  workflowId: string;
  runId: string;
  error: string;
  message: string;
}

export interface BulkControlView {
  action: 'terminate' | 'cancel';
  dryRun: boolean;
  /** Runs the filter matched: the open ones acted on plus `alreadyClosed`. */
  matched: number;
  /** Matched runs the listing showed as closed: counted, not acted on. */
  alreadyClosed: number;
  /** Runs acted on successfully; 0 on a dry run. */
  succeeded: number;
  failures: BulkFailureView[];
  /** True when more runs matched than one call acts on: call again. */
  truncated: boolean;
}

/** A rerun's answer: the new run, as POST /workflow answers, and the run it repeats. */
export interface RerunView extends StartView {
  rerunOf: RunRefView;
}

export interface BulkRerunView {
  action: 'rerun';
  dryRun: boolean;
  /** Runs the filter matched, open and closed: each is rerun. */
  matched: number;
  /** The matched runs (at most 10,000 per call): on a dry run, what would be rerun. */
  runs: RunRefView[];
  /** The new runs, each with the run it repeats; empty on a dry run. */
  started: RerunView[];
  /** Runs started; 0 on a dry run. */
  succeeded: number;
  /** Matched runs that could not be rerun, with the error a single rerun would have answered. */
  failures: BulkFailureView[];
  /**
   * True when more runs matched than one call takes: only the first 10,000 listed were rerun. Calling again would
   * rerun those again (they still match, and so may their new runs): narrow the filter instead.
   */
  truncated: boolean;
}
