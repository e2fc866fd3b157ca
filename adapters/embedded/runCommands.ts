import type { AsyncLocalStorage } from 'node:async_hooks';
import type { z } from 'zod';
import type { ActivityDefinition } from '../../core/definition/activity.js';
import type { WorkflowDetails } from '../../core/definition/hooks.js';
import type { HistoryEventType } from '../../core/domain/history.js';
import type { ProgressEvent } from '../../core/domain/progress.js';
import type { RelatedRun, RunDescription, SerializedFailure } from '../../core/domain/run.js';
import type { TerminalStatus } from '../../core/domain/status.js';
import type { Logger } from '../../ports/logger.js';
import type { Metrics } from '../../ports/metrics.js';
import type { RunObserver } from '../../ports/runObserver.js';
import type { Tracing } from '../../ports/tracing.js';
import type { CommandCall, CommandKind, CommandOutcome, CommandProgress } from './commandLog.js';
import type { FeedbackInbox } from './feedbackInbox.js';
import type { Payload } from './payload.js';
import type { StepTrace } from './stepTrace.js';

/**
 * Where workflow code is running: the async context the step router reads. `shielded` inside
 * ctx.nonCancellable, where a cancel request does not reach.
 */
export interface RunScope {
  readonly commands: RunCommands;
  readonly shielded: boolean;
}

/** The step attempt whose code is running: where its `progress(fields)` calls go. */
export interface StepAttemptProgress {
  publish(fields: Record<string, unknown>): void;
}

export interface ChildStart {
  workflowName: string;
  catalog: string;
  workflowId: string;
  /** Encoded by the parent's call, where a value JSON refuses is the code's TypeError. */
  input: Payload;
  parent: RelatedRun;
  root: RelatedRun;
}

/** How a child's continue-as-new chain ended: what its parent's history and code are told. */
export interface ChildEnd {
  runId: string;
  status: TerminalStatus;
  output: Payload | undefined;
  failure: SerializedFailure | null;
}

/** What the engine around the runs offers their commands: shared by every run of the engine. */
export interface CommandServices {
  readonly logger: Logger;
  /** Spans of step attempts (noTracing when tracing is off). */
  readonly tracing: Tracing;
  /** Where step attempts are counted (noMetrics when metrics are off). */
  readonly metrics: Metrics;
  readonly scopes: AsyncLocalStorage<RunScope>;
  /** Set while step code runs (outside the run's scope), for progress. */
  readonly stepAttempts: AsyncLocalStorage<StepAttemptProgress>;
  /** The internal step that sends a webhook call before a wait. */
  readonly webhookStep: ActivityDefinition;
  /** The hooks of the worker serving `catalog`. */
  observerFor(catalog: string): RunObserver;
  /** Starts a child run (it begins once its start is stored); throws the errors a start throws. */
  startChild(start: ChildStart): { runId: string };
  /** Resolves when the continue-as-new chain the child run began has ended (the child may be open, closed or stored). */
  awaitChild(workflowId: string, runId: string): Promise<ChildEnd>;
  /** Asks the open run of a child to cancel, if it is still that parent's child. */
  cancelChild(workflowId: string, parentRunId: string): void;
}

/**
 * What a run hands the code of its commands (steps, timers, webhook waits, children): the few operations they need,
 * so none of them knows the run's execution (runExecution.ts), which uses them.
 */
export interface RunCommands {
  /** The run's description (only the engine changes it). */
  readonly run: Readonly<RunDescription>;
  readonly services: CommandServices;
  /** True once the run was closed under its code: nothing it does is recorded any more. */
  readonly abandoned: boolean;
  /** Replies to the run's webhook waits. */
  readonly inbox: FeedbackInbox;
  /** The workflow's feedbackSchema: a webhook wait hands the code its reply parsed by it. */
  readonly feedbackSchema: z.ZodType | undefined;
  /** The parent of step attempts' spans (W3C traceparent of the run's span). */
  readonly traceparent: string | undefined;
  /** The scope of the calling workflow code; the run's base scope when called from outside it. */
  currentScope(): RunScope;
  /** Logs a command call; undefined when the run is gone or the call broke determinism (the run then fails). */
  call(kind: CommandKind, name: string): CommandCall | undefined;
  /** The recorded outcome of a replayed call, handed back in the order the calls originally completed. */
  replayed<T>(call: CommandCall): Promise<T>;
  /** Records a command's outcome and hands it to the code once it is stored. */
  settle<T>(call: CommandCall, outcome: CommandOutcome): Promise<T>;
  /** Records where a command under way stands (what resuming it after a restart needs). */
  progressed(call: CommandCall, progress: CommandProgress): void;
  isCancelled(scope: RunScope): boolean;
  /** Reacts to a cancel request, unless `scope` is shielded. Returns the function that withdraws the reaction. */
  onCancel(scope: RunScope, handler: () => void): () => void;
  cancelledOutcome(message: string): CommandOutcome;
  /** A timer that dies with the run. */
  setTimer(ms: number, callback: () => void): () => void;
  /**
   * A timer of a resumed command, due at `dueAt` (epoch ms): one that fell due while the process was down fires once
   * the replay is over, in due order with the others.
   */
  timerAt(dueAt: number, callback: () => void): () => void;
  /** Appends a history event (nothing once the run is closing); returns its id. */
  append(type: HistoryEventType, attributes: Record<string, unknown>, stepName?: string): number;
  /** Epoch ms on the engine's clock. */
  now(): number;
  nextOrdinal(kind: 'timer' | 'webhook' | 'child' | 'activity'): number;
  /** The run's copy of a payload with this content, if it has one (payload.ts). */
  intern(payload: Payload): Payload;
  /** A step call's trace entry joins the run's trace (in call order). */
  traceStep(trace: StepTrace): void;
  /** A step call began (its step_scheduled event is `stepEventId`) or ended: progress names the open ones. */
  stepOpened(stepEventId: number): void;
  stepEnded(stepEventId: number): void;
  publishProgress(progress: ProgressEvent): void;
  /** A child this run started: terminated if still open when the run closes. */
  childStarted(workflowId: string): void;
  /** The run as worker hooks see it (docs/hooks.md). */
  workflowDetails(): WorkflowDetails;
}
