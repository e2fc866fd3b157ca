import type { RunDescription, RunOutcome } from '../../../core/domain/run.js';
import { RESULT_TRACE_METADATA_KEY, type TraceLocation } from '../protocol.js';
import { EventType, type HistoryEvent } from './proto.js';
import { decodeFirst, toDate } from './values.js';

/**
 * The outcome of a run that completed, from its closing event alone: `started` (the run as its start described it)
 * with what the close settles. The worker put the trace's location on the result (sandbox/resultTraceReport.ts):
 * Temporal's start time, which names the file, and the path on the worker's host, which the memo holds too. So the
 * closed run need not be described again. Undefined for any other close, or a result without the report (a worker
 * that could not say where the trace goes, or of a version before the report): the caller describes the run then.
 */
export function reportedCloseOutcome(started: RunDescription, close: HistoryEvent): RunOutcome | undefined {
  if (close.eventType !== EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) return undefined;
  const result = close.workflowExecutionCompletedEventAttributes?.result;
  const report = traceLocationOf(result?.payloads?.[0]?.metadata?.[RESULT_TRACE_METADATA_KEY]);
  const closedAt = toDate(close.eventTime);
  if (!report || !closedAt) return undefined;
  const run: RunDescription = { ...started, status: 'completed', startedAt: report.startedAt, closedAt, localTracePath: report.localPath };
  return { run, output: decodeFirst(result), failure: null };
}

function traceLocationOf(bytes: Uint8Array | null | undefined): { startedAt: Date; localPath: string } | undefined {
  if (!bytes) return undefined;
  let reported: Partial<TraceLocation> | undefined;
  try {
    reported = JSON.parse(utf8.decode(bytes)) as Partial<TraceLocation> | undefined;
  } catch {
    return undefined;
  }
  if (typeof reported?.localPath !== 'string' || reported.localPath.length === 0 || typeof reported.startedAt !== 'string') return undefined;
  const startedAt = new Date(reported.startedAt);
  return Number.isNaN(startedAt.getTime()) ? undefined : { startedAt, localPath: reported.localPath };
}

const utf8 = new TextDecoder();
