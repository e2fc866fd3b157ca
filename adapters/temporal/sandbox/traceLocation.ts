import { CancellationScope, proxyLocalActivities, upsertMemo } from '@temporalio/workflow';
import { TRACE_LOCATION_ACTIVITY, TRACE_MEMO_KEY, type TraceLocation, type TraceLocationRequest, type TraceMemo } from '../protocol.js';
import { coreWorkflowInfo } from './runState.js';

const { [TRACE_LOCATION_ACTIVITY]: locateTrace } = proxyLocalActivities<{
  [TRACE_LOCATION_ACTIVITY]: (request: TraceLocationRequest) => Promise<TraceLocation>;
}>({
  // The worker asks the server for the run's start time, with a deadline of its own (10 s).
  startToCloseTimeout: '20 seconds',
  // Best effort: without an answer the run still closes and its trace is still written; only the memo lacks the path.
  retry: { maximumAttempts: 1 },
});

/**
 * As a run closes on its own: asks the worker running this task where the run's trace file goes and records it in the
 * run's memo (TRACE_MEMO_KEY), which the API reads with the run. Returns the location: the trace sink writes under its
 * start time, and a completed run reports it on its result (resultTraceReport.ts). Undefined when the worker did not
 * answer: the sink then looks the start time up itself.
 */
export async function recordTraceLocation(): Promise<TraceLocation | undefined> {
  const info = coreWorkflowInfo();
  const request: TraceLocationRequest = {
    workflowId: info.workflowId,
    runId: info.runId,
    workflowName: info.workflowName,
    startedAt: info.startedAt.toISOString(),
  };
  try {
    // Not cancellable: a stopped run closing as cancelled names its trace as well.
    const location = await CancellationScope.nonCancellable(() => locateTrace(request));
    const memo: TraceMemo = { local: location.localPath };
    upsertMemo({ [TRACE_MEMO_KEY]: memo });
    return location;
  } catch {
    return undefined;
  }
}
