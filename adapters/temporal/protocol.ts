/**
 * What flowgate's Temporal worker and its Temporal client adapter agree on. Both sides import these constants; nothing
 * else couples them. This module is also bundled into the workflow sandbox, so it imports nothing.
 */
import type { SerializedFailure } from '../../core/domain/run.js';
import type { WorkflowTypeInfo } from '../../core/domain/catalog.js';
import type { RunCallbackTarget } from '../../core/domain/callback.js';

/** Signal that carries a webhook reply (POST /workflow/feedback); its single argument is the payload. */
export const FEEDBACK_SIGNAL = 'flowgate.feedback';

/**
 * The catalog registry: one long-running workflow per catalog (= task queue), started by the catalog's workers.
 * Its memo holds the catalog's content, so the API reads a catalog with DescribeWorkflowExecution and never needs a
 * worker to answer a query.
 */
export const CATALOG_WORKFLOW_TYPE = 'flowgate.catalog';
export const catalogWorkflowId = (catalog: string): string => `flowgate.catalog:${catalog}`;
/** Signal to the catalog workflow: publish new content / a worker went offline. */
export const CATALOG_PUBLISH_SIGNAL = 'flowgate.catalog.publish';
export const CATALOG_WORKER_OFFLINE_SIGNAL = 'flowgate.catalog.workerOffline';
/** Memo key of the catalog workflow holding a CatalogMemo. */
export const CATALOG_MEMO_KEY = 'flowgate.catalog';

/**
 * A workflow as the registry publishes it. `runTimeoutMs` is the definition's run time limit: only the starter can
 * hand it to Temporal (workflowRunTimeout), so the API reads it here; it is not part of the HTTP catalog listing.
 */
export type PublishedWorkflow = WorkflowTypeInfo & { runTimeoutMs?: number };

export interface CatalogMemo {
  catalog: string;
  workflows: PublishedWorkflow[];
  /** Worker identities that published and have not said goodbye (a crashed worker is caught by its pollers' age). */
  onlineWorkers: string[];
  publishedAt: string;
}

export interface CatalogPublication {
  workerIdentity: string;
  workflows: PublishedWorkflow[];
}

/**
 * A failing run's error travels in the ApplicationFailure's first detail, lossless: the original error class name,
 * message, activityType when a step failed, retryable, cause chain. The failure's `type` is the same `name`.
 */
export interface FailureDetail {
  flowgateFailure: SerializedFailure;
  /** Where the run's trace goes, as a completed run reports it on its result (RESULT_TRACE_METADATA_KEY). */
  traceLocation?: TraceLocation;
}

/** Activity type of a step called from a workflow (docs/authoring.md: the activity type `workflow#step`). */
export const activityTypeFor = (workflowName: string, stepName: string): string => `${workflowName}#${stepName}`;

/** Name of the internal step a webhook wait uses to POST its call. */
export const WEBHOOK_STEP_NAME = 'webhook';

/** Sink the workflow sandbox calls when a run starts (worker hooks) and closes (its trace, worker hooks). */
export const RUN_SINK = 'flowgateRun';

/**
 * Where a closing run's trace goes, asked of the worker that runs the closing workflow task: a local activity (it runs
 * in that worker, whose TRACE_DIR only it knows), called as the run closes on its own. The answer is kept in the run's
 * memo under TRACE_MEMO_KEY, so the API can name the file even when its own TRACE_DIR is another host's.
 */
export const TRACE_LOCATION_ACTIVITY = 'flowgate.trace#locate';

export interface TraceLocationRequest {
  workflowId: string;
  runId: string;
  workflowName: string;
  /** The run's started event time (ISO): the file's time when the worker cannot ask the server for the run's start. */
  startedAt: string;
}

export interface TraceLocation {
  /** Absolute path of the trace file on the worker's host. */
  localPath: string;
  /** The start time (ISO) the file is named by; the worker's trace sink writes under the same one. */
  startedAt: string;
}

/** Memo key of a run that closed on its own: TraceMemo. Continue-as-new does not copy it to the next run. */
export const TRACE_MEMO_KEY = 'flowgate.trace';

export interface TraceMemo {
  /** TraceLocation.localPath. */
  local: string;
}

/**
 * Metadata key on a completed run's result payload: the run's TraceLocation as JSON (sandbox/resultTraceReport.ts; a
 * failed run's FailureDetail carries it too). The API waiting on the run reads its closing event anyway; with this it
 * names the trace file without describing the closed run for the memo and Temporal's start time
 * (engine/reportedClose.ts). Temporal's converters read only a payload's `encoding`, so any other client decodes the
 * result as before.
 */
export const RESULT_TRACE_METADATA_KEY = 'flowgate-trace';

/**
 * Memo key the sandbox upserts when a webhook wait begins for real (sandbox/feedbackWaitStarted.ts): Temporal records
 * no event for a run awaiting a signal, and the WORKFLOW_PROPERTIES_MODIFIED event of this upsert is the run's
 * `feedback_wait_started` (engine/workflowEvents.ts), its value the event's attributes. Continue-as-new does not copy it.
 */
export const FEEDBACK_WAIT_MEMO_KEY = 'flowgate.feedbackWait';

export interface FeedbackWaitMemo {
  /** The wait's time limit, when it has one. */
  timeoutMs?: number;
}

/**
 * The patch (Temporal's workflow versioning) the upsert is made under: a run that waited under a worker from before
 * it replays without the command, so upgrading workers does not break runs waiting across the upgrade.
 */
export const FEEDBACK_WAIT_PATCH = 'flowgate.feedback-wait-started';

/**
 * Failure `type` for a workflow or step result larger than MAX_RESULT_BYTES, or, without a claim-check store, than
 * TEMPORAL_MAX_PAYLOAD_BYTES.
 */
export const RESULT_TOO_LARGE_ERROR = 'ResultTooLargeError';

/** Why a result over TEMPORAL_MAX_PAYLOAD_BYTES fails, and what lets it pass. */
export function payloadLimitMessage(what: string, bytes: number, maxPayloadBytes: number): string {
  return (
    `The result of ${what} is ${bytes} bytes of JSON, more than the ${maxPayloadBytes} bytes Temporal takes per payload ` +
    '(TEMPORAL_MAX_PAYLOAD_BYTES); configure remote traces (TRACE_S3_BUCKET) on the API and the workers to pass larger results as claim checks'
  );
}

/**
 * Activity header that carries the scheduling run's workflowDetails to the activity, so worker hooks see the same
 * details whichever worker process runs the attempt. Set only by workers that have hooks (bundleCatalog option).
 */
export const WORKFLOW_DETAILS_HEADER = 'flowgate-workflow-details';

/** Memo key of a user run started with a callback: its RunCallbackTarget (reset keeps the memo, continue-as-new copies it). */
export const CALLBACK_MEMO_KEY = 'flowgate.callback';

/**
 * The workflow that delivers a closed run's callback (docs/callbacks.md): a child the run starts as it closes on its
 * own, abandoned by the close, on the run's task queue. Its id holds the run id (a UUID), so one run has one delivery.
 */
export const CALLBACK_WORKFLOW_TYPE = 'flowgate.callback';
export const callbackWorkflowId = (runId: string): string => `flowgate.callback:${runId}`;
/** Activity of the callback workflow: reads the run's result and POSTs it, one attempt per activity attempt. */
export const CALLBACK_ACTIVITY = 'flowgate.callback#deliver';

/** Argument of the callback workflow and its activity. */
export interface CallbackDelivery {
  workflowId: string;
  runId: string;
  target: RunCallbackTarget;
}

/** The catalog registry's workflows and the callback deliveries: flowgate's own, never shown to users as runs. */
export const isInternalWorkflowType = (name: string | null | undefined): boolean => name === CATALOG_WORKFLOW_TYPE || name === CALLBACK_WORKFLOW_TYPE;

/**
 * Heartbeat details of a step attempt that reported progress (docs/progress.md): the step call's latest progress
 * records (at most PROGRESS_BUFFER_SIZE, oldest first). The API reads them from the pending activity (describe);
 * nothing of it reaches the run's history.
 */
export interface ProgressHeartbeat {
  flowgateProgress: ProgressRecordShape[];
}

/** A progress record as it travels (core/definition/progress.ts ProgressRecord). */
export interface ProgressRecordShape {
  seq: number;
  attempt: number;
  time: string;
  fields: Record<string, unknown>;
}

/** The progress records in heartbeat details, oldest first; none when the details are something else. */
export function progressRecordsOf(details: unknown): ProgressRecordShape[] {
  const records = (details as Partial<ProgressHeartbeat> | null | undefined)?.flowgateProgress;
  if (!Array.isArray(records)) return [];
  return records.filter(
    (record): record is ProgressRecordShape =>
      typeof record === 'object' &&
      record !== null &&
      Number.isInteger(record.seq) &&
      record.seq > 0 &&
      Number.isInteger(record.attempt) &&
      typeof record.time === 'string' &&
      typeof record.fields === 'object' &&
      record.fields !== null,
  );
}
