import type { RunDescription, RunOutcome } from '../../../core/domain/run.js';
import { RESULT_TRACE_METADATA_KEY, type TraceLocation } from '../protocol.js';
import { failureDetailOf } from './failures.js';
import { outcomeOf } from './outcome.js';
import { EventType, type HistoryEvent } from './proto.js';
import { toDate } from './values.js';

/**
 * The outcome of a run that completed or failed, from its closing event alone: `started` (the run as its start
 * described it) with what the close settles. The worker put the trace's location on the result's metadata, or in the
 * failure's detail (sandbox/resultTraceReport.ts, runOutcome.ts): Temporal's start time, which names the file, and the
 * path on the worker's host, which the memo holds too. So the closed run need not be described again. Undefined for
 * any other close, or one without the report (a worker that could not say where the trace goes, or of a version
 * before the report): the caller describes the run then.
 */
export function reportedCloseOutcome(started: RunDescription, close: HistoryEvent): RunOutcome | undefined {
  const closedAt = toDate(close.eventTime);
  const reported = reportedTraceOf(close);
  if (!closedAt || !reported) return undefined;
  const run: RunDescription = { ...started, status: reported.status, startedAt: reported.startedAt, closedAt, localTracePath: reported.localPath };
  return outcomeOf(run, close);
}

/** The trace location a completed run's result, or a failed run's detail, reports; undefined for any other close. */
function reportedTraceOf(close: HistoryEvent): (ReportedTrace & { status: 'completed' | 'failed' }) | undefined {
  if (close.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) {
    const metadata = close.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0]?.metadata;
    const reported = traceLocationOf(parsedJson(metadata?.[RESULT_TRACE_METADATA_KEY]));
    return reported && { ...reported, status: 'completed' };
  }
  if (close.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED) {
    const reported = traceLocationOf(failureDetailOf(close.workflowExecutionFailedEventAttributes?.failure)?.traceLocation);
    return reported && { ...reported, status: 'failed' };
  }
  return undefined;
}

interface ReportedTrace {
  startedAt: Date;
  localPath: string;
}

/** The JSON of a metadata entry; undefined when it does not parse. */
function parsedJson(bytes: Uint8Array | null | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return undefined;
  }
}

function traceLocationOf(value: unknown): ReportedTrace | undefined {
  const reported = value as Partial<TraceLocation> | null | undefined;
  if (typeof reported?.localPath !== 'string' || reported.localPath.length === 0 || typeof reported.startedAt !== 'string') return undefined;
  const startedAt = new Date(reported.startedAt);
  return Number.isNaN(startedAt.getTime()) ? undefined : { startedAt, localPath: reported.localPath };
}

const utf8 = new TextDecoder();
